"""Files a state points at: the user-data folders and path safety (``user_data``, ``paths``),
``viewed_images`` decoded and checked (``images``) and along the history (``image_history``, its
per-checkpoint facts kept in the analysis cache by ``image_facts``),
``artifacts`` and their previews (``artifacts``, ``previews``), and a checkpoint's media report
(``report``), the one set of rows the CLI and the pages show.

May import ``store``, ``history``, ``safety`` and ``analysis_cache``.
"""
