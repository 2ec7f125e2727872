"""``SqliteStore``'s tables (``store``, ``store_vectors``, ``store_migrations``), read through the inspector's read-only
SQLite connection (``file:...?mode=ro``, ``query_only``; reopened when the file is replaced).

The value column holds JSON: bytes (a BLOB, as ``SqliteStore`` binds orjson's output), or text where something
else wrote it. A BLOB's length is read from its row header, without reading the value (``typeof``, ``length``);
a text's bytes are ``length(CAST(value AS BLOB))``. Times are text as the store wrote
them (``CURRENT_TIMESTAMP``, or a Python datetime); an item counts as expired where LangGraph's TTL sweep would
delete it (``expires_at < CURRENT_TIMESTAMP``, compared as text).
An embedding is a BLOB of float32 values (sqlite-vec's ``serialize_float32``): no extension is needed to read it.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from ..store.model import StoreError
from ..store.sqlite.connect import ReadOnlySqlite, bound
from .reading import Dialect, MemoryReader

_BYTES = "(CASE WHEN typeof(s.value) = 'blob' THEN length(s.value) ELSE length(CAST(s.value AS BLOB)) END)"
_COLUMNS = f"s.key, {_BYTES}, s.created_at, s.updated_at, {{expires}}, {{ttl}}, {{vectors}}"

SQLITE = Dialect(
    namespaces=f"SELECT s.prefix, count(*), sum({_BYTES}), {{with_ttl}}, {{expired}}, max(s.updated_at) "
               "FROM store s GROUP BY s.prefix",
    vectors_by_namespace="SELECT prefix, count(*), sum(length(embedding)) FROM store_vectors GROUP BY prefix",
    items=f"SELECT {_COLUMNS} FROM store s WHERE s.prefix = ? ORDER BY {{order}} LIMIT ? OFFSET ?",
    item=f"SELECT {_COLUMNS}, s.value FROM store s WHERE s.prefix = ? AND s.key = ?",
    item_vectors="SELECT field_name, length(embedding), created_at, updated_at FROM store_vectors "
                 "WHERE prefix = ? AND key = ? ORDER BY field_name",
    growth_created=f"SELECT substr(s.created_at, 1, 10), count(*), sum({_BYTES}) FROM store s GROUP BY 1",
    growth_updated="SELECT substr(updated_at, 1, 10), count(*) FROM store "
                   "WHERE substr(updated_at, 1, 10) IS NOT substr(created_at, 1, 10) GROUP BY 1",
    count="SELECT count(*) FROM store",
    orders={"key": "s.key", "updated": "s.updated_at DESC, s.key", "bytes": f"{_BYTES} DESC, s.key"},
    ttl={"expires": "s.expires_at", "ttl": "s.ttl_minutes", "with_ttl": "count(s.expires_at)",
         "expired": "sum(s.expires_at < ?)"},  # LangGraph's own sweep: expires_at < CURRENT_TIMESTAMP, as text
    no_ttl={"expires": "NULL", "ttl": "NULL", "with_ttl": "0", "expired": "0"},
    float32_dims=True,
)


class _Connection(ReadOnlySqlite):
    """The read-only connection, accepting any SQLite file: it notes which memory tables are there."""

    tables: frozenset[str] = frozenset()
    columns: frozenset[str] = frozenset()
    migration: int | None = None
    vector_migration: int | None = None

    def check_tables(self, conn: sqlite3.Connection, tables: set[str]) -> None:
        self.tables = frozenset(tables)
        self.columns = frozenset(r[1] for r in conn.execute("PRAGMA table_info(store)")) if "store" in tables \
            else frozenset()
        self.migration = _newest(conn, "store_migrations", tables)
        self.vector_migration = _newest(conn, "vector_migrations", tables)


def _newest(conn: sqlite3.Connection, table: str, tables: set[str]) -> int | None:
    if table not in tables:
        return None
    try:
        level = conn.execute(f"SELECT max(v) FROM {table}").fetchone()[0]  # noqa: S608 - a name of our own
    except sqlite3.DatabaseError:
        return None
    return level if isinstance(level, int) else None


class SqliteMemory(MemoryReader):
    """The memory tables of one SQLite file (beside a checkpoint database's tables, or alone)."""

    kind = "sqlite"
    dialect = SQLITE

    def __init__(self, path: str | Path, url: str | None = None) -> None:
        self.path = Path(path)
        self.url = url or str(path)
        self.where = str(self.path)
        self._db = _Connection(self.path)

    def _connection(self) -> sqlite3.Connection:
        return self._db.connection()  # reopened (tables read again) when the file was replaced

    @property
    def tables(self) -> frozenset[str]:  # type: ignore[override]
        return self._db.tables

    @property
    def columns(self) -> frozenset[str]:  # type: ignore[override]
        return self._db.columns

    @property
    def migration(self) -> int | None:  # type: ignore[override]
        return self._db.migration

    @property
    def vector_migration(self) -> int | None:  # type: ignore[override]
        return self._db.vector_migration

    def _now_param(self, now: datetime) -> Any:
        return now.strftime("%Y-%m-%d %H:%M:%S")  # CURRENT_TIMESTAMP's form

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        conn = self._connection()
        try:
            return conn.execute(*bound(sql, params)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None
        except (OverflowError, ValueError) as exc:  # a parameter SQLite cannot bind
            raise StoreError(f"reading {self.path} failed: {exc}") from None

    def close(self) -> None:
        self._db.close()
