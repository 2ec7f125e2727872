"""Read-only access to LangGraph's PostgreSQL checkpoint schema (``PostgresSaver``'s tables).

Every session of the small pool runs with ``default_transaction_read_only=on``,
autocommit and a statement timeout, so the server itself refuses any write; a
role with ``SELECT`` rights is enough. Thread lists, timelines and sizes read
keys, JSONB metadata and blob *lengths*, never blob contents.

The checkpoint JSONB holds ``channel_versions`` and the primitive channel values;
other values live in ``checkpoint_blobs`` keyed by (channel, version), so a value
that did not change between checkpoints is stored once and shared.

``ShallowPostgresSaver``'s tables (the latest checkpoint of each thread only) are read
too, through views of the same shape (``shallow``); the store says it keeps no history.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from ..delta import SchemaSource
from ..measure import Inspect
from ..model import SHARED_BLOBS, CheckpointSizes, Key, StoreError
from ..sql_reading import Closing
from .connect import SHALLOW_NOTE, PgTarget, check_schema, not_utf8_named, one_line, open_pool, parse_pg_url, read_error
from .shallow import ShallowConnection, shallow_views
from .shapes import PgShapes
from .sizes import pg_field_sizes
from .states import PgStates
from .threads import PgThreads
from .timeline import PgTimeline

_SYSTEM_ID = "SELECT system_identifier FROM pg_control_system()"
_GENERATION = """SELECT (SELECT oid FROM pg_database WHERE datname = current_database()),
    to_regclass('checkpoints')::oid, pg_relation_filenode(to_regclass('checkpoints')),
    to_regclass('checkpoint_blobs')::oid, pg_relation_filenode(to_regclass('checkpoint_blobs'))"""


class PostgresStore(PgThreads, PgTimeline, PgStates, PgShapes, Closing):
    """A LangGraph PostgreSQL checkpoint database, read through read-only sessions."""

    kind = "postgres"
    MARK = "%s"
    WRITES = "checkpoint_writes"
    read_only = True
    size_accounting = SHARED_BLOBS
    warning: str | None = None
    history_note: str | None = None  # why views that need a thread's history are empty (a shallow store)
    _system_id: str | None = None  # the cluster's, read once ("-": pg_control_system() refused to the role)

    def __init__(self, url: str, statement_timeout_ms: int = 30_000, pool_size: int = 4,
                 schema: SchemaSource | None = None) -> None:
        self.url = url
        self.schema = schema
        self.target: PgTarget = parse_pg_url(url, statement_timeout_ms)
        self.identity = f"postgres:{self.target.where}" + (f"?schema={self.target.schema}" if self.target.schema else "")
        kwargs = self.target.connect_kwargs()
        try:
            with psycopg.connect(self.target.conninfo, connect_timeout=10, **kwargs) as conn:
                shallow = check_schema(conn, self.target)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {self.target.where}: {one_line(exc, self.target)}") from None
        # ShallowPostgresSaver's tables are read through views of PostgresSaver's shape, written into each statement
        self.shallow = shallow is not None
        self._views = shallow_views(shallow) if shallow is not None else None
        if self.shallow:
            self.warning = self.history_note = SHALLOW_NOTE
        self._pool = open_pool(self.target, pool_size)

    def fact_identity(self) -> str:
        """``identity`` and which database and tables are there now: the cluster's system identifier (where the
        role may read ``pg_control_system()``; ``-`` where not), the database's OID, and the OID and file node of
        ``checkpoints`` and ``checkpoint_blobs`` (a database or table created again, or truncated, is another
        store)."""
        if self._system_id is None:
            try:
                with self._pool.connection() as conn:
                    self._system_id = str(conn.execute(_SYSTEM_ID).fetchone()[0])
            except psycopg.errors.InsufficientPrivilege:
                self._system_id = "-"
            except psycopg.Error as exc:
                raise read_error(exc, self.target) from None
        found = self._query(_GENERATION)[0]
        return f"{self.identity}#{self._system_id}." + ".".join("-" if v is None else str(v) for v in found)

    def close(self) -> None:
        self._pool.close()


    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled read-only session (autocommit, ``default_transaction_read_only=on``)."""
        with self._pool.connection() as conn:
            yield conn if self._views is None else ShallowConnection(conn, self._views)  # type: ignore[misc]

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        try:
            with self.connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise read_error(exc, self.target) from None
        except UnicodeEncodeError:  # a text that is not UTF-8 bound to the query: no row can hold it
            raise not_utf8_named(params) from None

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel sizes computed in SQL (blob lengths and md5; contents never fetched); see ``sizes``."""
        return pg_field_sizes(self._query, thread_id, ns)

    def iter_field_sizes(self, thread_id: str, ns: str | None = None, keys: Collection[Key] | None = None,
                         inspect: Inspect | None = None) -> Iterator[CheckpointSizes]:
        """The server computes lengths and hashes; only those small rows come back, so one query serves."""
        rows = pg_field_sizes(self._query, thread_id, ns, inspect)
        wanted = None if keys is None else set(keys)
        return iter([r for r in rows if wanted is None or (r.checkpoint_ns, r.checkpoint_id) in wanted])
