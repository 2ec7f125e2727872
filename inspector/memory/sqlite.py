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

# A BLOB's length from its row header; a text's as bytes. SQLite's DESC puts a missing update last by itself.
SQLITE = Dialect(
    mark="?",
    size="length",
    value_bytes="(CASE WHEN typeof(s.value) = 'blob' THEN length(s.value) ELSE length(CAST(s.value AS BLOB)) END)",
    day="substr({}, 1, 10)",
    differs="IS NOT",
    newest_first="DESC",
    expired="sum(s.expires_at < ?)",  # LangGraph's own sweep: expires_at < CURRENT_TIMESTAMP, as text
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
