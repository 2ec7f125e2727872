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
from ..model import PER_CHECKPOINT_COPY, StoreError
from ..sql_reading import Closing
from .connect import ReadOnlySqlite, bound, read_ids
from .shapes import SqliteShapes
from .sizes import SqliteSizes
from .states import SqliteStates
from .threads import SqliteThreads
from .timeline import SqliteTimeline


class SqliteStore(SqliteThreads, SqliteTimeline, SqliteStates, SqliteSizes, SqliteShapes, Closing):
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

    def fact_identity(self) -> str:
        """``identity`` and the file now at the path: device, inode and birth time (see ``connect``); a file
        replaced at the same path is another store, one rewritten in place (WAL checkpoints) is the same.
        While the path holds no readable file, the file last read (what the facts known of this store are)."""
        try:
            self._conn  # noqa: B018  (follows a replaced file)
        except (StoreError, sqlite3.DatabaseError):
            if self._db.file_identity is None:
                raise
        device, inode, born = self._db.file_identity  # type: ignore[misc]
        return f"{self.identity}#{device:x}.{inode:x}.{born:x}"

    @property
    def _conn(self) -> sqlite3.Connection:
        """The read-only connection to the file now at ``path`` (see ``connect``)."""
        return self._db.connection()

    @property
    def _writes_have_task_path(self) -> bool:
        return self._db.writes_have_task_path

    def close(self) -> None:
        self._db.close()

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        try:
            return read_ids(self._conn.execute(*bound(sql, params)))
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None
