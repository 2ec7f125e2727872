"""Any LangGraph ``BaseCheckpointSaver`` (Redis, MongoDB, InMemorySaver, ...) read through its public API.

``SaverStore`` (``store``) is assembled from one reader per job: thread listing and
branches (``threads``), timelines and histories (``timeline``), decoded states, writes,
sizes and delta rebuilds (``states``), over the saver's read calls (``calls``, async
savers on a private event loop). ``loading`` imports the saver a ``module:attribute``
spec names; ``serialize`` turns the saver's Python objects into the decoder's plain
data. Like the rest of ``inspector.store``, it imports nothing else of the inspector.
"""

from .store import SAVER_WARNING, SaverStore

__all__ = ["SAVER_WARNING", "SaverStore"]
