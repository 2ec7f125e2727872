"""LangGraph's long-term memory store (``BaseStore``: ``SqliteStore``, ``PostgresStore``), read-only.

This package owns reading the store's tables beside the checkpoints (or alone): ``store`` (namespace as its
``prefix`` text, key, JSON value, created/updated times, TTL and expiry), ``store_vectors`` (one embedding per
indexed field) and the migration tables. ``open_memory(url)`` opens them through the checkpoint store's own
read-only connections (``store.sqlite.connect``: ``mode=ro`` and ``query_only``; ``store.postgres.connect``:
``default_transaction_read_only=on``); nothing here writes.

``reading`` turns rows into records (``model``) with each backend's SQL (``sqlite``, ``postgres``); ``tree`` lays
namespaces out as a tree with counts and bytes; ``values`` parses one item's value under the depth guard and finds
the threads it names; ``times`` reads and says times, TTL and expiry; ``report`` holds the rows the page and the
CLI both show. Values come back raw: the CLI and the pages mask them as they mask state. Imports ``store``
(connections, depth guard, ids), ``state.fields`` and ``formatting``; never streamlit.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from ..store import StoreError, display_url, is_saver_spec, sqlite_path
from ..store.apps import HOME_URL, home_db
from ..store.not_utf8 import quoted
from .model import GrowthDay, Item, ItemRow, MemoryTotals, NamespaceRow, VectorRow, namespace_of, prefix_of
from .reading import ITEM_SORTS, MemoryReader

__all__ = ["ITEM_SORTS", "GrowthDay", "Item", "ItemRow", "MemoryReader", "MemoryTotals", "NamespaceRow", "VectorRow",
           "namespace_of", "open_memory", "prefix_of"]


def open_memory(url: str, pg_timeout_ms: int = 30_000, pg_pool_size: int = 2) -> MemoryReader:
    """Open the memory tables of the database ``url`` names (the forms a checkpoint store takes: a SQLite path or
    ``sqlite:``/``file:`` URL, ``postgresql://``, ``deerflow:``), read-only. A database without them opens, with
    ``present`` False. Raises ``StoreError`` with one line for a URL that names no database."""
    if not isinstance(url, str) or not url.strip():
        raise StoreError("no store URL given")
    url = url.strip()
    try:
        return _open(url, pg_timeout_ms, pg_pool_size)
    except ValueError as exc:  # urllib's parse errors
        raise StoreError(f"malformed store URL {quoted(display_url(url))}: {exc}") from None


def _open(url: str, pg_timeout_ms: int, pg_pool_size: int) -> MemoryReader:
    scheme = urllib.parse.urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme in ("postgresql", "postgres"):
        from .postgres import PostgresMemory

        return PostgresMemory(url, pg_timeout_ms, pg_pool_size)
    from .sqlite import SqliteMemory

    if (home := home_db(url)) is not None:
        return SqliteMemory(home, url)
    if not scheme and is_saver_spec(url):
        raise StoreError(f"{quoted(url)} names a checkpoint saver in code, which has no memory tables to read; name "
                         "the memory store's database by URL (memory_db setting, INSPECTOR_MEMORY_DB, or --db)")
    if url.startswith("file:"):
        path = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
    elif scheme in ("", "sqlite", "file"):
        path = sqlite_path(url)
    else:
        raise StoreError(f"unsupported store URL {quoted(display_url(url))}: expected a SQLite file (a path, "
                         f"sqlite:///path.db, file:...), postgresql://... or {HOME_URL}")
    if path.suffix.lower() == ".zip":
        raise StoreError(f"{path} is a support bundle: it holds one thread's checkpoints, no memory store")
    return SqliteMemory(path, url)
