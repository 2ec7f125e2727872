"""The analysis cache in a PostgreSQL database the inspector may write (``cache_url``), shared by replicas.

The same facts, keys, bound and eviction as the embedded SQLite cache (``cache.embedded``), in tables of
their own (``inspector_cache_facts``, ``inspector_cache_threads``, ``inspector_cache_about``, and the growth
rows ``inspector_cache_growth_*``: ``cache.growth``),
so several dashboard processes behind a load balancer reuse what any of them computed. It is never the
inspected store: a ``cache_url`` whose server and database are the store's, or whose schema holds
LangGraph's checkpoint tables, is refused. Eviction runs under an advisory lock, one process at a time.

Fingerprints in facts are sealed under a key kept in ``inspector_cache_about`` (``cache.fingerprints``): the
replicas are stateless and share it, so whoever may read that table holds the key, and no fingerprint is kept
for a value the mask touches. A cache an older version filled (schema 1, bare hashes; schema 2, seals without a
check) is emptied on first use.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import psycopg

from ..safety.redaction import use_marks_key
from .facts import CacheError, SqlFactCache
from .fingerprints import marks_key, new_key
from .growth import GROWTH_SCHEMA
from .search import POSTGRES_SEARCH_SCHEMA, PostgresSearch

SCHEMA_VERSION = "3"  # 2: fingerprints sealed under the key in ``inspector_cache_about``; stores named by fact identity;
# 3: each sealed fingerprint carries a check, so one sealed under another key is a miss
_EMPTIED_ON_UPGRADE = ("1", "2")  # schemas whose rows are dropped, not refused (1: bare hashes; 2: unchecked seals)
_EVICT_LOCK = 0x1A5C_CAC4E  # pg_advisory_xact_lock key of the eviction
_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS inspector_cache_facts (
        store TEXT NOT NULL, thread TEXT NOT NULL, ns TEXT NOT NULL, checkpoint TEXT NOT NULL,
        kind TEXT NOT NULL, value BYTEA NOT NULL, PRIMARY KEY (store, thread, kind, ns, checkpoint))""",
    """CREATE TABLE IF NOT EXISTS inspector_cache_threads (
        store TEXT NOT NULL, thread TEXT NOT NULL, used DOUBLE PRECISION NOT NULL, bytes BIGINT NOT NULL,
        PRIMARY KEY (store, thread))""",
    "CREATE TABLE IF NOT EXISTS inspector_cache_about (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    *(statement.format(cells="inspector_cache_growth_cells", days="inspector_cache_growth_thread_days",
                       cuts="inspector_cache_growth_cuts", blob="BYTEA", without_rowid="")
      for statement in GROWTH_SCHEMA),
    *POSTGRES_SEARCH_SCHEMA,
)
# What tells two sessions apart by server and database, readable by any role.
_WHERE_AM_I = "SELECT pg_postmaster_start_time()::text, inet_server_port(), current_database()"
_HAS_CHECKPOINTS = ("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                    "AND table_name IN ('checkpoints', 'checkpoint_blobs', 'checkpoint_writes')")


def _where(url: str) -> str:
    from ..store.postgres.connect import parse_pg_url

    return parse_pg_url(url).where


class PostgresAnalysisCache(PostgresSearch, SqlFactCache):
    """Per-checkpoint facts in PostgreSQL tables; safe to share between processes and machines."""

    FACTS, THREADS, MARK, LENGTH = "inspector_cache_facts", "inspector_cache_threads", "%s", "octet_length"
    INSERT_FACT = "INSERT INTO inspector_cache_facts VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING"
    UPSERT_THREAD = ("INSERT INTO inspector_cache_threads VALUES (%s, %s, %s, %s) ON CONFLICT (store, thread) "
                     "DO UPDATE SET used = excluded.used, bytes = excluded.bytes")
    GROWTH_CELLS, GROWTH_DAYS = "inspector_cache_growth_cells", "inspector_cache_growth_thread_days"
    GROWTH_CUTS = "inspector_cache_growth_cuts"
    UPSERT_CUT = ("INSERT INTO inspector_cache_growth_cuts VALUES (%s, %s, %s) ON CONFLICT (store) "
                  "DO UPDATE SET cut = excluded.cut, threads = excluded.threads")

    def __init__(self, url: str, max_bytes: int = 512_000_000, store: Any = None) -> None:
        super().__init__(max_bytes)
        self.url = url
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
        if version in _EMPTIED_ON_UPGRADE:
            self._empty_older(version)
        elif version != SCHEMA_VERSION:
            raise CacheError(f"the analysis cache at {_where(self.url)} has schema {version} "
                             f"(this version reads {SCHEMA_VERSION})")
        self._conn.execute("INSERT INTO inspector_cache_about VALUES ('key', %s) ON CONFLICT DO NOTHING",
                           [new_key().hex()])
        held = self._conn.execute("SELECT value FROM inspector_cache_about WHERE key = 'key'").fetchone()[0]
        try:
            self._key = bytes.fromhex(held)
            use_marks_key(marks_key(self._key))
        except ValueError:
            raise CacheError(f"the analysis cache at {_where(self.url)} holds an unreadable key; "
                             "delete the row 'key' of inspector_cache_about") from None

    def _empty_older(self, version: str) -> None:
        """Drop every row an older version stored (one process does it; the others find this schema after it)."""
        with self._conn.transaction():
            self._lock_eviction(self._conn)
            held = self._conn.execute("SELECT value FROM inspector_cache_about WHERE key = 'schema'").fetchone()[0]
            if held != version:
                return
            for table in ("inspector_cache_facts", "inspector_cache_threads", "inspector_cache_growth_cells",
                          "inspector_cache_growth_thread_days", "inspector_cache_growth_cuts",
                          "inspector_cache_search_rows", "inspector_cache_search_threads", "inspector_cache_search_cuts"):
                self._conn.execute(f"DELETE FROM {table}")
            self._conn.execute("UPDATE inspector_cache_about SET value = %s WHERE key = 'schema'", [SCHEMA_VERSION])
        self.notice = (f"The analysis cache at {_where(self.url)} was filled by an older version (schema {version}); "
                       "it was emptied and is being filled anew.")

    def _run(self, action: Any) -> Any:
        with self._lock:
            try:
                return action(self._conn)
            except psycopg.OperationalError:
                self._conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)  # once, after a restart
                return action(self._conn)

    def _transaction(self, conn: psycopg.Connection) -> Any:
        return conn.transaction()

    def _insert_facts(self, conn: psycopg.Connection, rows: list[tuple]) -> None:
        with conn.cursor() as cur:
            cur.executemany(self.INSERT_FACT, rows)

    def _ids_match(self, ids: list[str]) -> tuple[str, list[Any]]:
        return "checkpoint = ANY(%s)", [ids]

    def _threads_match(self, tokens: list[str], negate: bool) -> tuple[str, list[Any]]:
        return ("NOT (thread = ANY(%s))" if negate else "thread = ANY(%s)"), [tokens]

    def _execute_many(self, conn: psycopg.Connection, sql: str, rows: list[tuple]) -> None:
        with conn.cursor() as cur:
            cur.executemany(sql, rows)

    def _lock_eviction(self, conn: psycopg.Connection) -> None:
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_EVICT_LOCK])
