"""Operating a SQLite checkpoint store: growth over time (``growth``), retention keys and page footprints
(``retention``, ``pages``), orphaned rows (``orphans``), file facts (``files``) and rows as stored for a
support bundle (``export``), on the store's read-only connection or one of their own.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable

from ...store.bundle import BundleStore
from ...store.sqlite import SqliteStore
from ...store.sqlite.connect import ReadOnlySqlite
from ..file_facts import FileFacts
from .export import SqliteExport
from .files import SqliteFiles
from .growth import SqliteGrowth
from .orphans import SqliteOrphans
from .retention import SqliteRetention


class SqliteOperations(SqliteGrowth, SqliteOrphans, SqliteFiles, SqliteRetention, SqliteExport):
    """Growth, retention keys, orphans, file facts and export of one ``SqliteStore``, read through its connection."""

    def __init__(self, store: SqliteStore) -> None:
        self.store = store
        self.path: Path = store.path

    @property
    def _conn(self) -> sqlite3.Connection:
        return self.store._conn

    @property
    def _db(self) -> ReadOnlySqlite:
        return self.store._db

    @property
    def _writes_have_task_path(self) -> bool:  # type: ignore[override]
        return self.store._writes_have_task_path

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        return self.store._query(sql, params)


class BundleOperations(SqliteOperations):
    """A support bundle's: those of the SQLite copy it unpacked."""

    store: BundleStore

    def file_facts(self, per_table: bool = True) -> FileFacts:
        """The facts of the private copy this bundle unpacked (one thread's rows), said to be that: not the
        files of the store the bundle was made from, whose size, free pages and WAL it does not record."""
        facts = super().file_facts(per_table)
        source = self.store.manifest.get("source")
        made_from = f" ({source})" if isinstance(source, str) and source else ""
        facts.problems.insert(0, "a support bundle: these are the files of the private copy of its thread's rows "
                                 f"the inspector unpacked, not of the store it was made from{made_from}")
        return facts
