"""How big a state is and whether it is healthy: per-field stored bytes along a thread
(``accounting``, kept in the analysis cache by ``cached``), health flags for a thread and for the
store (``health``), value lints (``health_values``), base64 carried in checkpoints
(``health_base64``), and the size chart's data (``chart``).

May import ``store``, ``schema``, ``state``, ``formatting``, ``settings``, ``analysis_cache``, and
``media.user_data`` for DeerFlow's agent-visible ``/mnt/user-data`` paths.
"""
