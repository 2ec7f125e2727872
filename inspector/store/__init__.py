"""Read-only checkpoint stores behind one protocol.

This package owns everything about reading a LangGraph checkpoint store: the ``Store``
protocol (``protocol``) and the plain records it returns (``model``), the safe decoder of
stored values (``decode``, ``carried``), the size measurer (``measure``), what a checkpoint holds
read by its headers (``shapes``, ``shape_walk``: channel names and value shapes), the backends
(``sqlite/``, ``postgres/``, ``saver/``, DeerFlow's home in ``apps``, support bundles in
``bundle``), the reading steps every SQL backend shares (``sql_reading``: each backend supplies its
dialect), delta-channel rebuilds (``delta``) and what a uuid6 id says of its time (``id_dating``).
Operating a store (growth, retention keys, orphaned rows, file facts, export) is ``store_ops``, which
builds on this package; this package never imports it. It imports nothing else of the inspector:
its options come as ``open_store`` arguments, and the state
schema a delta channel is folded with is handed to it (``delta.SchemaSource``; the
``inspector`` package sets its active schema as the default).

``open_store(url)`` picks the backend from the URL:

- ``sqlite:///relative.db``, ``sqlite:////absolute.db`` or a bare file path: ``SqliteStore``.
- ``postgresql://user:pass@host:port/db`` or ``postgres://...`` (optional ``?schema=NAME`` or
  ``?options=-csearch_path=NAME``): ``PostgresStore``, direct SQL in read-only sessions.
- ``module.path:attribute`` or ``path/to/file.py:attribute``: ``SaverStore`` over any
  ``BaseCheckpointSaver`` (an instance, or a function returning one), through its public API.
- ``deerflow:///path/to/deerflow/home`` (or ``deerflow:`` for ``$DEER_FLOW_HOME``): DeerFlow's
  ``.deer-flow/data/deerflow.db``, read by ``SqliteStore``.
- a path ending in ``.zip`` (bare or ``sqlite:``): a support bundle, ``BundleStore``.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path
from typing import Any

from .apps import HOME_URL, home_db
from .decode import Problem
from .delta import ChannelWrite, DeltaHistory, SchemaSource
from .model import (
    PER_CHECKPOINT_COPY,
    SHARED_BLOBS,
    BranchThread,
    CheckpointRow,
    CheckpointSizes,
    CheckpointState,
    NotFound,
    StoreError,
    StoreTotals,
    ThreadHeads,
    ThreadSummary,
    WriteKey,
    WriteRecord,
    is_internal_channel,
)
from .not_utf8 import quoted
from .protocol import Store
from .sqlite import SqliteStore

__all__ = [
    "PER_CHECKPOINT_COPY",
    "SHARED_BLOBS",
    "BranchThread",
    "ChannelWrite",
    "CheckpointRow",
    "CheckpointSizes",
    "CheckpointState",
    "DeltaHistory",
    "NotFound",
    "Problem",
    "Store",
    "StoreError",
    "StoreTotals",
    "ThreadHeads",
    "ThreadSummary",
    "display_url",
    "WriteKey",
    "WriteRecord",
    "is_internal_channel",
    "open_store",
    "sqlite_path",
]


def sqlite_path(url: str) -> Path:
    """The file a ``sqlite:`` URL or bare path names."""
    if url.startswith("sqlite:"):
        parsed = urllib.parse.urlsplit(url)
        if parsed.netloc not in ("", "localhost"):
            raise StoreError(f"malformed SQLite URL {quoted(url)}: use sqlite:///relative.db or sqlite:////absolute.db")
        path = urllib.parse.unquote(parsed.path)
        if not path.startswith("/") or path == "/":
            raise StoreError(f"malformed SQLite URL {quoted(url)}: use sqlite:///relative.db or sqlite:////absolute.db")
        return Path(path[1:])  # sqlite:///a.db -> a.db ; sqlite:////abs/a.db -> /abs/a.db
    return Path(url)


def display_url(url: str) -> str:
    """``url`` with any password replaced by ``***``, for showing on screen."""
    if "://" not in url:
        return url
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError:  # malformed (e.g. an unclosed IPv6 bracket): mask any user:password@ by hand
        scheme, _, rest = url.partition("://")
        userinfo, at, host = rest.rpartition("@")
        return f"{scheme}://{userinfo.split(':', 1)[0]}:***@{host}" if at and ":" in userinfo else url
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc))


def is_saver_spec(url: str) -> bool:
    """``module.path:attribute`` or ``path/to/file.py:attribute`` (not a Windows drive or a file: URL)."""
    target, sep, attribute = url.rpartition(":")
    if not sep or not target or not attribute.isidentifier() or url.startswith(("file:", "sqlite:")):
        return False
    if target.endswith(".py"):
        return True
    return all(part.isidentifier() for part in target.split("."))


PG_TIMEOUT_MS = 30_000
PG_POOL_SIZE = 4
BUNDLE_MAX_BYTES = 4_000_000_000
BUNDLE_MAX_MEMBERS = 10_000
BUNDLE_MAX_RATIO = 200
BUNDLE_CACHE_MAX_ENTRIES = 4
BUNDLE_CACHE_MAX_BYTES = 2_048 * 1024 * 1024


def open_store(
    url: str,
    *,
    pg_timeout_ms: int = PG_TIMEOUT_MS,
    pg_pool_size: int = PG_POOL_SIZE,
    bundle_max_bytes: int = BUNDLE_MAX_BYTES,
    schema: SchemaSource | None = None,
    bundle_max_members: int = BUNDLE_MAX_MEMBERS,
    bundle_max_ratio: int = BUNDLE_MAX_RATIO,
    bundle_cache_dir: str | Path | None = None,
    bundle_cache_max_entries: int = BUNDLE_CACHE_MAX_ENTRIES,
    bundle_cache_max_bytes: int = BUNDLE_CACHE_MAX_BYTES,
) -> Store:
    """Open the store ``url`` names, read-only. Raises ``StoreError`` with one clear line.

    Args:
        url: The store (see the package docstring for the forms it takes).
        pg_timeout_ms: PostgreSQL's statement timeout for every query, in milliseconds.
        pg_pool_size: How many PostgreSQL connections the store may hold.
        bundle_max_bytes: The most a support bundle may unpack to.
        bundle_max_members: The most members a support bundle's zip may list.
        bundle_max_ratio: The most one member of a support bundle, or the whole bundle, may expand (bytes
            unpacked per byte stored).
        bundle_cache_dir: Where support bundles are kept unpacked, once per content hash (None: a temporary
            copy per open, removed when the store is closed).
        bundle_cache_max_entries: The most bundles kept unpacked in ``bundle_cache_dir`` (the least recently
            opened are removed first; one a store is reading never is).
        bundle_cache_max_bytes: The most bytes of bundles kept unpacked there.
        schema: Called (with no argument) when a delta channel is rebuilt; returns the reducers to
            fold its writes with. None: the default source (``delta.set_default_schema``).
    """
    if not isinstance(url, str) or not url.strip():
        raise StoreError("no store URL given")
    url = url.strip()
    try:
        from .bundle import BundleLimits
        from .bundle_cache import CacheBounds

        bundle = (BundleLimits(bundle_max_bytes, bundle_max_members, bundle_max_ratio), bundle_cache_dir,
                  CacheBounds(bundle_cache_max_entries, bundle_cache_max_bytes))
        return _open(url, pg_timeout_ms, pg_pool_size, bundle, schema)
    except ValueError as exc:  # urllib's parse errors: bad IPv6 host, port out of range, ...
        raise StoreError(f"malformed store URL {quoted(display_url(url))}: {exc}") from None


def _open(url: str, pg_timeout_ms: int, pg_pool_size: int, bundle: tuple[Any, str | Path | None, Any],
          schema: SchemaSource | None) -> Store:
    scheme = urllib.parse.urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme in ("postgresql", "postgres"):
        from .postgres import PostgresStore

        return PostgresStore(url, pg_timeout_ms, pg_pool_size, schema=schema)
    if (home := home_db(url)) is not None:
        return SqliteStore(home, url=url, schema=schema)
    if not scheme and is_saver_spec(url):
        from .saver import SaverStore

        return SaverStore.from_spec(url, schema=schema)
    if scheme in ("", "sqlite", "file") and not url.startswith("file:"):
        return _sqlite_or_bundle(sqlite_path(url), url, bundle, schema)
    if url.startswith("file:"):
        path = Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path))
        return _sqlite_or_bundle(path, url, bundle, schema)
    raise StoreError(f"unsupported store URL {quoted(display_url(url))}: expected a SQLite file or bundle (a path, "
                     f"sqlite:///path.db, file:...), postgresql://..., {HOME_URL}, or module:attribute naming a "
                     "checkpoint saver")


def _sqlite_or_bundle(path: Path, url: str, bundle: tuple[Any, str | Path | None, Any],
                      schema: SchemaSource | None) -> Store:
    from .bundle import BundleStore, is_bundle_path

    if is_bundle_path(path):
        limits, cache_dir, bounds = bundle
        return BundleStore(path, url=url, schema=schema, limits=limits, cache_dir=cache_dir, cache_bounds=bounds)
    return SqliteStore(path, url=url, schema=schema)
