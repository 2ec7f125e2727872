"""How big a state is and whether it is healthy: per-field stored bytes along a thread (``accounting``,
kept in the analysis cache by ``cached``) and across the largest threads of the store
(``store_sizes``), health flags for a thread and for the store (``health``), value lints
(``health_values``), base64 carried in checkpoints (``health_base64``), and the size chart's data
(``chart``). The rows the CLI and the pages both show: the store's health report
(``health_report``), a thread's fields (``tables``), the what-ifs in words (``what_if``), and what
delta mode would store (``delta_what_if``).

May import ``store``, ``schema``, ``state``, ``formatting``, ``settings``, ``cache``,
``safety`` (what may be kept in the cache), and ``profiles.deerflow.files.user_data`` for DeerFlow's agent-visible
``/mnt/user-data`` paths.
"""
