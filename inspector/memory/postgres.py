"""``PostgresStore``'s tables (``store``, ``store_vectors``, ``store_migrations``, ``vector_migrations``), read
through the inspector's read-only sessions (``default_transaction_read_only=on``, a statement timeout, the pool
and the JSON depth guard of ``store.postgres.connect``).

The value column is ``jsonb``: its stored bytes are ``pg_column_size(value)`` (as stored, compressed or not).
``store_vectors`` exists only where the pgvector extension was installed for an ``index`` config; an embedding's
size is read with ``pg_column_size``, which needs no extension.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterable, Iterator

import psycopg

from ..store.model import StoreError
from ..store.postgres.connect import PgTarget, not_utf8_named, one_line, open_pool, parse_pg_url, read_error
from .reading import Dialect, MemoryReader

POSTGRES = Dialect(
    mark="%s",
    size="pg_column_size",
    day="to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD')",
    expired="count(*) FILTER (WHERE s.expires_at < %s)",  # LangGraph's sweep: expires_at < NOW()
)

_TABLES = ("store", "store_vectors", "store_migrations", "vector_migrations")


class PostgresMemory(MemoryReader):
    """The memory tables of one PostgreSQL database (schema from the URL, as for the checkpoints)."""

    kind = "postgres"
    dialect = POSTGRES

    def __init__(self, url: str, statement_timeout_ms: int = 30_000, pool_size: int = 2) -> None:
        self.url = url
        self.target: PgTarget = parse_pg_url(url, statement_timeout_ms)
        self.where = self.target.where + (f" (schema {self.target.schema})" if self.target.schema else "")
        try:
            with psycopg.connect(self.target.conninfo, connect_timeout=10, **self.target.connect_kwargs()) as conn:
                self._read_layout(conn)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {self.target.where}: {one_line(exc, self.target)}") \
                from None
        self._pool = open_pool(self.target, pool_size) if self.present else None

    def _read_layout(self, conn: psycopg.Connection) -> None:
        found = conn.execute("SELECT " + ", ".join("to_regclass(%s) IS NOT NULL" for _ in _TABLES),
                             list(_TABLES)).fetchone()
        self.tables = frozenset(name for name, present in zip(_TABLES, found) if present)
        if "store" in self.tables:
            self.columns = frozenset(r[0] for r in conn.execute(
                "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass('store') AND attnum > 0 "
                "AND NOT attisdropped"))
        self.migration = self._newest(conn, "store_migrations")
        self.vector_migration = self._newest(conn, "vector_migrations")

    def _newest(self, conn: psycopg.Connection, table: str) -> int | None:
        if table not in self.tables:
            return None
        level = conn.execute(f"SELECT max(v) FROM {table}").fetchone()[0]  # noqa: S608 - a name of our own
        return int(level) if level is not None else None

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled read-only session."""
        if self._pool is None:
            raise StoreError(f"PostgreSQL at {self.where} holds no LangGraph memory store")
        with self._pool.connection() as conn:
            yield conn

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        params = list(params)
        try:
            with self.connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise read_error(exc, self.target) from None
        except UnicodeEncodeError:  # a text that is not UTF-8: no row can hold it
            raise not_utf8_named(params) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
