"""Operating a PostgreSQL checkpoint store: growth over time computed by the server (``growth``), retention
keys on one snapshot (``retention``), orphaned rows and blob rows (``orphans``), file facts from the
server's statistics (``files``) and rows as stored for a support bundle (``export``), through the store's
read-only sessions.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from ...store.postgres import PostgresStore
from ...store.postgres.connect import PgTarget
from .export import PgExport
from .files import PgFiles
from .growth import PgGrowth
from .orphans import PgOrphans
from .retention import PgRetention


class PgOperations(PgGrowth, PgOrphans, PgFiles, PgRetention, PgExport):
    """Growth, retention keys, orphans, file facts and export of one ``PostgresStore``, read through its sessions."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self.target: PgTarget = store.target

    def connection(self) -> AbstractContextManager[Any]:
        return self.store.connection()

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        return self.store._query(sql, params)
