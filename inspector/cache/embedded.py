"""The analysis cache: facts derived from one checkpoint, kept between runs in an embedded SQLite file.

A checkpoint never changes once written, so a fact computed from it (its per-field
stored bytes and hashes, its replay verdict, its image entries) is keyed by the
store's identity, the thread, the namespace, the checkpoint id and the kind of
fact, and is never stale. The second look at a thread, or a look after ten new
checkpoints, costs only what is new.

- Where: ``$XDG_CACHE_HOME/state-inspector``, else ``~/.cache/state-inspector``;
  the ``cache_dir`` setting (``INSPECTOR_CACHE_DIR``) moves it. It is never the
  inspected store: a cache path that resolves to the store's own file is refused.
- Private to the user (``cache.files``): the file and SQLite's side files are 0600, the default folder and
  every folder the inspector creates 0700; a folder the operator made for ``cache_dir`` is left as they set it.
- What: sizes, verdicts, flags and image entry metadata (path, content fingerprint, base64 length, file
  reference: ``profiles.deerflow.files.image_facts``), encoded by the analyses themselves as msgpack, their
  content fingerprints sealed under the cache's own key (``cache.fingerprints``; kept in the file's ``about``
  table) and none for a value the mask touches; and each thread's stored bytes per day, channel and part, for
  growth (``cache.growth``); the search index (``cache.search``): the texts of each thread's messages,
  tool calls, file names, title and metadata, masked before they are kept (marks bare: no length, no hash), so
  no secret reaches it.
- Bounded: ``cache_max_mb``; whole threads are evicted, least recently used first.
- Shared: the CLI and every dashboard process use one file (WAL, a busy timeout,
  ``INSERT OR IGNORE``: a fact two processes compute at once is stored once).
- Disposable: deleting the file loses nothing. A file SQLite cannot read is set
  aside (renamed ``*.corrupt-<time>``) and rebuilt, and ``notice`` says so; a file an older version wrote
  (another schema) is deleted and started anew.

This is the default backend of the ``FactCache`` protocol (``cache.facts``); ``cache_url`` puts the same
facts in a PostgreSQL database instead (``cache.postgres``), for replicas that share them.
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..safety.redaction import use_marks_key
from ..settings import default_cache_dir
from .facts import CacheError, FactCache, SqlFactCache, pack, unpack
from .files import SIDE_FILES, private_file, private_folder
from .fingerprints import marks_key, new_key
from .growth import GROWTH_SCHEMA
from .search import SQLITE_SEARCH_SCHEMA, SqliteSearch

__all__ = ["FILE_NAME", "AnalysisCache", "CacheError", "FactCache", "default_cache_dir", "open_cache", "pack",
           "unpack"]

FILE_NAME = "analysis-cache.sqlite3"
SCHEMA_VERSION = "3"  # 2: fingerprints sealed under the key in ``about``; stores named by their fact identity;
# 3: each sealed fingerprint carries a check, so one sealed under another key is a miss
BUSY_TIMEOUT_MS = 10_000

_GROWTH_TABLES = {"cells": "growth_cells", "days": "growth_thread_days", "cuts": "growth_cuts", "blob": "BLOB",
                  "without_rowid": " WITHOUT ROWID"}
_SCHEMA = """
CREATE TABLE IF NOT EXISTS facts (
    store TEXT NOT NULL, thread TEXT NOT NULL, ns TEXT NOT NULL, checkpoint TEXT NOT NULL,
    kind TEXT NOT NULL, value BLOB NOT NULL,
    PRIMARY KEY (store, thread, kind, ns, checkpoint)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS threads (
    store TEXT NOT NULL, thread TEXT NOT NULL, used REAL NOT NULL, bytes INTEGER NOT NULL,
    PRIMARY KEY (store, thread)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS about (key TEXT PRIMARY KEY, value TEXT NOT NULL);
""" + "".join(f"{statement.format(**_GROWTH_TABLES)};\n" for statement in GROWTH_SCHEMA) + "".join(
    f"{statement};\n" for statement in SQLITE_SEARCH_SCHEMA)


class _OtherVersion(sqlite3.DatabaseError):
    """The file is an analysis cache of another schema."""


class AnalysisCache(SqliteSearch, SqlFactCache):
    """Per-checkpoint facts in ``directory/analysis-cache.sqlite3``; safe to share between processes."""

    FACTS, THREADS, MARK, LENGTH = "facts", "threads", "?", "length"
    INSERT_FACT = "INSERT OR IGNORE INTO facts VALUES (?, ?, ?, ?, ?, ?)"
    UPSERT_THREAD = "INSERT OR REPLACE INTO threads VALUES (?, ?, ?, ?)"
    GROWTH_CELLS, GROWTH_DAYS, GROWTH_CUTS = "growth_cells", "growth_thread_days", "growth_cuts"
    UPSERT_CUT = "INSERT OR REPLACE INTO growth_cuts VALUES (?, ?, ?)"

    def __init__(self, directory: str | Path, max_bytes: int = 512_000_000, store_files: Iterable[Path] = ()) -> None:
        super().__init__(max_bytes)
        self.directory = Path(directory).expanduser()
        self.path = self.directory / FILE_NAME
        self._lock = threading.Lock()
        resolved = self.path.resolve()
        for store_file in store_files:
            if Path(store_file).resolve() == resolved:
                raise CacheError(f"the analysis cache would be the inspected store itself ({self.path})")
        try:
            # the cache's own folder holds its file and the unpacked bundles (``settings``: ``bundle_cache_dir``)
            private_folder(self.directory, own=self.directory == default_cache_dir(), names=(FILE_NAME, "bundles"))
        except OSError as exc:
            raise CacheError(f"cannot create the analysis cache folder {self.directory}: {exc}") from None
        self._conn = self._open()

    # -- opening, and recovering from a file SQLite cannot read ---------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            private_file(self.path)  # before SQLite creates it, so it is never readable by others
        except OSError as exc:
            raise CacheError(f"cannot open the analysis cache {self.path}: {exc}") from None
        conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False,
                               isolation_level=None)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if conn.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise sqlite3.DatabaseError("cannot switch the cache to WAL mode")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(_SCHEMA)
            version = conn.execute("SELECT value FROM about WHERE key = 'schema'").fetchone()
            if version is None:
                conn.execute("INSERT OR IGNORE INTO about VALUES ('schema', ?)", [SCHEMA_VERSION])
            elif version[0] != SCHEMA_VERSION:
                raise _OtherVersion(f"an analysis cache of schema {version[0]} (this version reads {SCHEMA_VERSION})")
            conn.execute("INSERT OR IGNORE INTO about VALUES ('key', ?)", [new_key().hex()])
            self._key = bytes.fromhex(conn.execute("SELECT value FROM about WHERE key = 'key'").fetchone()[0])
            use_marks_key(marks_key(self._key))
            conn.execute("SELECT count(*) FROM threads").fetchone()
        except sqlite3.DatabaseError:
            conn.close()
            raise
        except (ValueError, TypeError) as exc:
            conn.close()
            raise sqlite3.DatabaseError(f"its key is unreadable ({exc})") from None
        for suffix in SIDE_FILES:  # SQLite makes them with the file's own mode; older ones are made private
            with contextlib.suppress(OSError):
                private_file(Path(f"{self.path}{suffix}"), create=False)
        return conn

    def _open(self) -> sqlite3.Connection:
        try:
            return self._connect()
        except _OtherVersion as exc:
            return self._start_anew(exc)
        except sqlite3.DatabaseError as exc:
            return self._rebuild(exc)

    def _start_anew(self, exc: Exception) -> sqlite3.Connection:
        """Delete a cache another version wrote (its facts may hold what this version no longer keeps)."""
        for suffix in ("", *SIDE_FILES):
            Path(f"{self.path}{suffix}").unlink(missing_ok=True)
        self.notice = (f"The analysis cache {self.path} was {exc}; it was deleted and is being filled anew. "
                       "Nothing was lost: every fact is computed again from the store.")
        return self._connect()

    def _rebuild(self, exc: Exception) -> sqlite3.Connection:
        """Set the unreadable file aside and start an empty cache; ``notice`` says what happened."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.path.with_name(f"{self.path.name}.corrupt-{stamp}")
        for suffix in ("", *SIDE_FILES):
            source = Path(f"{self.path}{suffix}")
            if source.exists():
                try:
                    private_file(source, create=False)
                    source.replace(Path(f"{aside}{suffix}"))
                except OSError:
                    source.unlink(missing_ok=True)
        self.notice = (f"The analysis cache {self.path} could not be read ({exc}); it was set aside as "
                       f"{aside.name} and is being rebuilt. Nothing was lost: every fact is computed again from the store.")
        return self._connect()

    def _run(self, action: Any) -> Any:
        """Run ``action(conn)``; a cache found corrupt mid-run is set aside and rebuilt once."""
        with self._lock:
            try:
                return action(self._conn)
            except sqlite3.DatabaseError as exc:
                if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
                    raise
                with contextlib.suppress(sqlite3.Error):
                    self._conn.close()
                self._conn = self._rebuild(exc)
                return action(self._conn)

    @contextlib.contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _ids_match(self, ids: list[str]) -> tuple[str, list[Any]]:
        return f"checkpoint IN ({','.join('?' * len(ids))})", ids

    def _threads_match(self, tokens: list[str], negate: bool) -> tuple[str, list[Any]]:
        return f"thread {'NOT ' if negate else ''}IN ({','.join('?' * len(tokens))})", tokens


def open_cache(cache_dir: str | None, max_mb: int, store: Any = None, cache_url: str | None = None) -> FactCache | None:
    """The cache in ``cache_dir`` (default: ``default_cache_dir()``), or in the PostgreSQL database
    ``cache_url`` names; None when ``max_mb`` is 0 (turned off).

    ``store``: the store being inspected, so the cache is never its own file or database.
    """
    if max_mb <= 0:
        return None
    if cache_url:
        from .postgres import PostgresAnalysisCache

        return PostgresAnalysisCache(cache_url, max_mb * 1_000_000, store)
    directory = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    store_files = [store.path] if getattr(store, "path", None) is not None else []
    return AnalysisCache(directory, max_mb * 1_000_000, store_files)
