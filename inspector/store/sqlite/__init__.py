"""LangGraph's SQLite checkpoint database (``SqliteSaver``'s tables), read-only.

``SqliteStore`` (``store``) is assembled from one reader per job: thread listing and
branches (``threads``), timelines and histories (``timeline``), decoded states, writes
and delta rebuilds (``states``), per-channel sizes (``sizes``) and value shapes
(``shapes``); ``connect`` opens the file so that no statement can write, ``queries``
holds the SQL pieces they share. Like the rest of ``inspector.store``, it imports
nothing else of the inspector.
"""

from .store import SqliteStore

__all__ = ["SqliteStore"]
