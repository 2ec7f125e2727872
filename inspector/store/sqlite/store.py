"""Read-only access to LangGraph's SQLite checkpoint schema (``SqliteSaver``'s tables).

The file is opened through a ``file:...?mode=ro`` URI with ``query_only`` on, so no
statement can write; a WAL database stays readable while an agent writes to it.
Listing threads and timelines reads keys, lengths and metadata, never state blobs.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable

from ..delta import SchemaSource
from ..model import PER_CHECKPOINT_COPY
from .connect import ReadOnlySqlite, bound
from .export import SqliteExport
from .files import SqliteFiles
from .growth import SqliteGrowth
from .orphans import SqliteOrphans
from .retention import SqliteRetention
from .shapes import SqliteShapes
from .sizes import SqliteSizes
from .states import SqliteStates
from .threads import SqliteThreads
from .timeline import SqliteTimeline


class SqliteStore(
    SqliteThreads, SqliteOrphans, SqliteFiles, SqliteGrowth, SqliteTimeline, SqliteStates, SqliteSizes,
    SqliteShapes, SqliteRetention, SqliteExport,
):
    """A LangGraph SQLite checkpoint database, opened read-only."""

    kind = "sqlite"
    read_only = True
    size_accounting = PER_CHECKPOINT_COPY

    def __init__(self, path: str | Path, url: str | None = None, schema: SchemaSource | None = None) -> None:
        self.path = Path(path).expanduser()
        self.schema = schema
        self.url = url or f"sqlite:///{self.path}"
        self.identity = f"sqlite:{self.path.resolve()}"
        self._db = ReadOnlySqlite(self.path)

    @property
    def _conn(self) -> sqlite3.Connection:
        """The read-only connection to the file now at ``path`` (see ``connect``)."""
        return self._db.connection()

    @property
    def _writes_have_task_path(self) -> bool:
        return self._db.writes_have_task_path

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "SqliteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        try:
            return self._conn.execute(*bound(sql, params)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None
