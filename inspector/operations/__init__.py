"""Operating a large store: how fast it grows and when it passes the disk budget (``growth``), what its
files hold (``file_facts``), rows no checkpoint references (``orphans``), and a Prometheus endpoint
over the same numbers (``metrics``).

Everything here is read from keys, lengths and the database's own statistics through the store's
``Operations`` (``store_ops``); no blob content is read and nothing is written to the store (growth keeps
per-thread day summaries in the analysis cache, ``growth_summaries``). May import ``store``, ``store_ops``,
``formatting``, ``settings``, ``fact_cache`` and ``retention.sql`` (the statements an operator would run).
"""
