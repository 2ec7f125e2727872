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

_BYTES = "pg_column_size(s.value)"
_COLUMNS = f"s.key, {_BYTES}, s.created_at, s.updated_at, {{expires}}, {{ttl}}, {{vectors}}"
_DAY = "to_char({} AT TIME ZONE 'UTC', 'YYYY-MM-DD')"

POSTGRES = Dialect(
    namespaces=f"SELECT s.prefix, count(*), sum({_BYTES}), {{with_ttl}}, {{expired}}, max(s.updated_at) "
               "FROM store s GROUP BY s.prefix",
    vectors_by_namespace="SELECT prefix, count(*), sum(pg_column_size(embedding)) FROM store_vectors GROUP BY prefix",
    items=f"SELECT {_COLUMNS} FROM store s WHERE s.prefix = %s ORDER BY {{order}} LIMIT %s OFFSET %s",
    item=f"SELECT {_COLUMNS}, s.value FROM store s WHERE s.prefix = %s AND s.key = %s",
    item_vectors="SELECT field_name, pg_column_size(embedding), created_at, updated_at FROM store_vectors "
                 "WHERE prefix = %s AND key = %s ORDER BY field_name",
    growth_created=f"SELECT {_DAY.format('s.created_at')}, count(*), sum({_BYTES}) FROM store s GROUP BY 1",
    growth_updated=f"SELECT {_DAY.format('updated_at')}, count(*) FROM store "
                   f"WHERE {_DAY.format('updated_at')} IS DISTINCT FROM {_DAY.format('created_at')} GROUP BY 1",
    count="SELECT count(*) FROM store",
    orders={"key": "s.key", "updated": "s.updated_at DESC NULLS LAST, s.key", "bytes": f"{_BYTES} DESC, s.key"},
    ttl={"expires": "s.expires_at", "ttl": "s.ttl_minutes", "with_ttl": "count(s.expires_at)",
         "expired": "count(*) FILTER (WHERE s.expires_at < %s)"},  # LangGraph's sweep: expires_at < NOW()
    no_ttl={"expires": "NULL", "ttl": "NULL", "with_ttl": "0", "expired": "0"},
    float32_dims=False,
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
