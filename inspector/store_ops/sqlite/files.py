"""File facts of a SQLite store: file sizes, pages, free pages and bytes per table and index.

``PRAGMA page_size / page_count / freelist_count`` are read from the header (cheap). Bytes per table
and index come from ``dbstat`` (which visits every page once) when this SQLite build has it;
otherwise they are estimated from stored lengths (payload only: no page overhead), and said so.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ...store.model import StoreError
from ..file_facts import LANGGRAPH_TABLES, FileFacts, FileSize, RelationFacts

DBSTAT = "SELECT name, sum(pgsize), sum(payload) FROM dbstat GROUP BY name"
# Estimates without dbstat: the payload of each LangGraph table's rows and of its primary key's index.
ESTIMATES = {
    "checkpoints": ("length(CAST(thread_id AS BLOB)) + length(CAST(checkpoint_ns AS BLOB)) + "
                    "length(CAST(checkpoint_id AS BLOB))",
                    "coalesce(length(CAST(parent_checkpoint_id AS BLOB)), 0) + coalesce(length(CAST(type AS BLOB)), 0) + "
                    "coalesce(length(checkpoint), 0) + coalesce(length(metadata), 0)"),
    "writes": ("length(CAST(thread_id AS BLOB)) + length(CAST(checkpoint_ns AS BLOB)) + "
               "length(CAST(checkpoint_id AS BLOB)) + length(CAST(task_id AS BLOB)) + 8",
               "coalesce(length(CAST(channel AS BLOB)), 0) + coalesce(length(CAST(type AS BLOB)), 0) + "
               "coalesce(length(value), 0)"),
}


def _size(path: Path) -> int | None:
    try:
        return os.stat(path).st_size
    except OSError:
        return None


class SqliteFiles:
    """``file_facts`` (a mixin of ``SqliteOperations``: needs ``_query`` and ``path``)."""

    def file_facts(self, per_table: bool = True) -> FileFacts:
        """Args: per_table: bytes per table and index too (dbstat reads every page once)."""
        path = Path(self.path)
        files = [FileSize(str(path), _size(path)), FileSize(f"{path}-wal", _size(Path(f"{path}-wal"))),
                 FileSize(f"{path}-shm", _size(Path(f"{path}-shm")))]
        page_size = self._query("PRAGMA page_size")[0][0]
        page_count = self._query("PRAGMA page_count")[0][0]
        free_pages = self._query("PRAGMA freelist_count")[0][0]
        objects = {name: (kind, table) for kind, name, table in self._query(
            "SELECT type, name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")}
        problems: list[str] = []
        basis = "estimated from stored lengths (dbstat not read: it visits every page): row and key payload only"
        relations = self._estimated(objects) if not per_table else []
        if per_table:
            try:
                rows = self._conn.execute(DBSTAT).fetchall()
                basis = "dbstat: the pages each table and index takes, read from the file"
            except sqlite3.OperationalError:
                rows, basis = None, ("estimated from stored lengths (this SQLite build has no dbstat): row and "
                                     "key payload only, without page overhead")
            except sqlite3.DatabaseError as exc:
                raise self._db.read_error(exc) from None
            relations = self._from_dbstat(rows, objects, page_size) if rows is not None else self._estimated(objects)
        total = sum(f.bytes or 0 for f in files)
        return FileFacts("sqlite", files, total, relations, basis, page_size, page_count, free_pages,
                         free_pages * page_size, None, problems)

    @staticmethod
    def _from_dbstat(rows, objects, page_size) -> list[RelationFacts]:
        ours = set(LANGGRAPH_TABLES["sqlite"])
        out = []
        for name, pages_bytes, payload in rows:
            kind, table = objects.get(name, ("table" if name == "sqlite_schema" else "index", name))
            out.append(RelationFacts(name, kind, table, int(pages_bytes or 0), payload_bytes=int(payload or 0),
                                     langgraph=table in ours))
        return sorted(out, key=lambda r: (-r.bytes, r.name))

    def _estimated(self, objects) -> list[RelationFacts]:
        out = []
        for table, (key, rest) in ESTIMATES.items():
            try:
                keys, others = self._query(f"SELECT coalesce(sum({key}), 0), coalesce(sum({rest}), 0) FROM {table}")[0]
            except StoreError:
                continue
            out.append(RelationFacts(table, "table", table, int(keys + others), payload_bytes=int(keys + others),
                                     langgraph=True))
            for name, (kind, owner) in objects.items():
                if kind == "index" and owner == table:
                    out.append(RelationFacts(name, "index", table, int(keys), payload_bytes=int(keys), langgraph=True))
        return sorted(out, key=lambda r: (-r.bytes, r.name))
