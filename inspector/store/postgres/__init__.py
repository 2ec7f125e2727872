"""LangGraph's PostgreSQL checkpoint database (``PostgresSaver``'s tables), read through read-only sessions.

``PostgresStore`` (``store``) is assembled from one reader per job: thread listing and
branches (``threads``), timelines and histories (``timeline``), decoded states, writes
and delta rebuilds (``states``), per-channel sizes computed by the server (``sizes``)
and value shapes (``shapes``); ``connect`` parses the URL and opens the pool of read-only
sessions. Like the rest of ``inspector.store``, it imports nothing else of the inspector.
"""

from .store import PostgresStore

__all__ = ["PostgresStore"]
