"""The analysis cache in a PostgreSQL database the inspector may write (``cache_url``), shared by replicas.

The same facts, keys, bound and eviction as the embedded SQLite cache (``analysis_cache``), in three
tables of their own (``inspector_cache_facts``, ``inspector_cache_threads``, ``inspector_cache_about``),
so several dashboard processes behind a load balancer reuse what any of them computed. It is never the
inspected store: a ``cache_url`` whose server and database are the store's, or whose schema holds
LangGraph's checkpoint tables, is refused. Eviction runs under an advisory lock, one process at a time.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterable
from typing import Any

import psycopg

from .fact_cache import CacheError, read_key, stored_facts, stored_keys, unpack
from .store.model import Key

SCHEMA_VERSION = "1"
_CHUNK = 400
_EVICT_LOCK = 0x1A5C_CAC4E  # pg_advisory_xact_lock key of the eviction
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS inspector_cache_facts (
        store TEXT NOT NULL, thread TEXT NOT NULL, ns TEXT NOT NULL, checkpoint TEXT NOT NULL,
        kind TEXT NOT NULL, value BYTEA NOT NULL, PRIMARY KEY (store, thread, kind, ns, checkpoint))""",
    """CREATE TABLE IF NOT EXISTS inspector_cache_threads (
        store TEXT NOT NULL, thread TEXT NOT NULL, used DOUBLE PRECISION NOT NULL, bytes BIGINT NOT NULL,
        PRIMARY KEY (store, thread))""",
    "CREATE TABLE IF NOT EXISTS inspector_cache_about (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
# What tells two sessions apart by server and database, readable by any role.
_WHERE_AM_I = "SELECT pg_postmaster_start_time()::text, inet_server_port(), current_database()"
_HAS_CHECKPOINTS = ("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                    "AND table_name IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')")


def _where(url: str) -> str:
    from .store.postgres.connect import parse_pg_url

    return parse_pg_url(url).where


class PostgresAnalysisCache:
    """Per-checkpoint facts in PostgreSQL tables; safe to share between processes and machines."""

    def __init__(self, url: str, max_bytes: int = 512_000_000, store: Any = None) -> None:
        self.url = url
        self.max_bytes = max_bytes
        self.notice: str | None = None
        self.hits = self.misses = 0  # facts found and keys asked for but not found, in this process
        self._lock = threading.Lock()
        where = _where(url)
        try:
            self._conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise CacheError(f"cannot connect to the analysis cache at {where}: "
                             f"{str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}") from None
        try:
            self._refuse_the_store(store, where)
            self._setup()
        except psycopg.Error as exc:
            self._conn.close()
            raise CacheError(f"the analysis cache at {where} cannot be used: {str(exc).strip().splitlines()[0]}") from None
        except CacheError:
            self._conn.close()
            raise

    def _refuse_the_store(self, store: Any, where: str) -> None:
        if self._conn.execute(_HAS_CHECKPOINTS).fetchone()[0]:
            raise CacheError(f"cache_url {where} holds LangGraph's checkpoint tables: it is a store, not a cache")
        if getattr(store, "kind", None) == "postgres":
            mine = self._conn.execute(_WHERE_AM_I).fetchone()
            theirs = store._query(_WHERE_AM_I)[0]
            if tuple(mine) == tuple(theirs):
                raise CacheError(f"cache_url {where} is the inspected store's database; name another database")

    def _setup(self) -> None:
        for statement in _SCHEMA:
            with contextlib.suppress(psycopg.errors.UniqueViolation):  # another process created it just now
                self._conn.execute(statement)
        self._conn.execute("INSERT INTO inspector_cache_about VALUES ('schema', %s) ON CONFLICT DO NOTHING",
                           [SCHEMA_VERSION])
        version = self._conn.execute("SELECT value FROM inspector_cache_about WHERE key = 'schema'").fetchone()[0]
        if version != SCHEMA_VERSION:
            raise CacheError(f"the analysis cache at {_where(self.url)} has schema {version} "
                             f"(this version reads {SCHEMA_VERSION})")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "PostgresAnalysisCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, action: Any) -> Any:
        with self._lock:
            try:
                return action(self._conn)
            except psycopg.OperationalError:
                self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)  # once, after a restart
                return action(self._conn)

    def get(self, store: str, thread: str, kind: str, keys: Iterable[Key]) -> dict[Key, Any]:
        thread, by_ns = stored_keys(thread, keys)

        def read(conn: psycopg.Connection) -> dict[Key, Any]:
            found: dict[Key, Any] = {}
            for ns, ids in by_ns.items():
                for start in range(0, len(ids), _CHUNK):
                    rows = conn.execute(
                        "SELECT checkpoint, value FROM inspector_cache_facts WHERE store = %s AND thread = %s "
                        "AND kind = %s AND ns = %s AND checkpoint = ANY(%s)",
                        [store, thread, kind, ns, ids[start:start + _CHUNK]]).fetchall()
                    found.update({read_key(ns, cid): unpack(bytes(value)) for cid, value in rows})
            if found:
                conn.execute("UPDATE inspector_cache_threads SET used = %s WHERE store = %s AND thread = %s",
                             [time.time(), store, thread])
            return found

        found = self._run(read)
        asked = sum(len(ids) for ids in by_ns.values())
        self.hits += len(found)
        self.misses += asked - len(found)
        return found

    def put(self, store: str, thread: str, kind: str, facts: dict[Key, Any]) -> None:
        if not facts:
            return
        thread, packed = stored_facts(thread, facts)
        rows = [(store, thread, ns, cid, kind, value) for ns, cid, value in packed]

        def write(conn: psycopg.Connection) -> None:
            with conn.transaction():
                with conn.cursor() as cur:
                    cur.executemany("INSERT INTO inspector_cache_facts VALUES (%s, %s, %s, %s, %s, %s) "
                                    "ON CONFLICT DO NOTHING", rows)
                size = conn.execute("SELECT coalesce(sum(octet_length(value)), 0) FROM inspector_cache_facts "
                                    "WHERE store = %s AND thread = %s", [store, thread]).fetchone()[0]
                conn.execute("INSERT INTO inspector_cache_threads VALUES (%s, %s, %s, %s) ON CONFLICT (store, thread) "
                             "DO UPDATE SET used = excluded.used, bytes = excluded.bytes",
                             [store, thread, time.time(), size])
                self._evict(conn, keep=(store, thread))

        self._run(write)

    def _evict(self, conn: psycopg.Connection, keep: tuple[str, str]) -> None:
        """Drop whole threads, least recently used first, until the facts fit in ``max_bytes``."""
        total = conn.execute("SELECT coalesce(sum(bytes), 0) FROM inspector_cache_threads").fetchone()[0]
        if total <= self.max_bytes:
            return
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_EVICT_LOCK])
        for store, thread, size in conn.execute(
                "SELECT store, thread, bytes FROM inspector_cache_threads ORDER BY used").fetchall():
            if total <= self.max_bytes * 0.9:
                break
            if (store, thread) == keep:
                continue
            conn.execute("DELETE FROM inspector_cache_facts WHERE store = %s AND thread = %s", [store, thread])
            conn.execute("DELETE FROM inspector_cache_threads WHERE store = %s AND thread = %s", [store, thread])
            total -= size

    def stats(self) -> dict[str, int]:
        def read(conn: psycopg.Connection) -> dict[str, int]:
            facts, size = conn.execute("SELECT count(*), coalesce(sum(octet_length(value)), 0) "
                                       "FROM inspector_cache_facts").fetchone()
            threads = conn.execute("SELECT count(*) FROM inspector_cache_threads").fetchone()[0]
            return {"facts": int(facts), "bytes": int(size), "threads": int(threads)}

        return self._run(read)
