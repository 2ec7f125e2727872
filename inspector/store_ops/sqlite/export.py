"""``Operations.export_thread`` for LangGraph's SQLite schema: a thread's rows as stored, streamed.

Checkpoints and writes are read in primary-key order on two cursors and joined
by (namespace, checkpoint id) as they go, so memory holds one checkpoint at a
time; the reading connection is the exporter's own, read-only. Ids are compared
and ordered by their bytes (``COLLATE BINARY``), as the join compares them, even
where a table declares its id columns ``NOCASE``.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from pathlib import Path
from typing import Iterator

from ...store.model import StoreError
from ...store.sqlite.connect import bound, iter_ids, read_text
from ..export_rows import ExportCheckpoint, ExportWrite, with_writes

_CHECKPOINTS = """
    SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
    FROM checkpoints WHERE thread_id COLLATE BINARY = ?
    ORDER BY checkpoint_ns COLLATE BINARY, checkpoint_id COLLATE BINARY
"""
_WRITES = """
    SELECT checkpoint_ns, checkpoint_id, task_id, {task_path}, idx, channel, type, value
    FROM writes WHERE thread_id COLLATE BINARY = ?
    ORDER BY checkpoint_ns COLLATE BINARY, checkpoint_id COLLATE BINARY, task_id, idx
"""


def export_sqlite_thread(path: Path, thread_id: str, writes_have_task_path: bool = True) -> Iterator[ExportCheckpoint]:
    conn = sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?mode=ro", uri=True, check_same_thread=False)
    try:
        conn.text_factory = read_text
        conn.execute("PRAGMA query_only = ON")
        conn.execute("BEGIN")
        checkpoints = (ExportCheckpoint(ns, cid, parent, metadata, [], type_tag, blob)
                       for ns, cid, parent, type_tag, blob, metadata in iter_ids(conn.execute(*bound(_CHECKPOINTS,
                                                                                                   [thread_id]))))
        writes = ((ns, cid, ExportWrite(task_id, task_path or "", idx, channel, type_tag, value))
                  for ns, cid, task_id, task_path, idx, channel, type_tag, value in iter_ids(conn.execute(*bound(
                      _WRITES.format(task_path="task_path" if writes_have_task_path else "''"), [thread_id]))))
        yield from with_writes(thread_id, checkpoints, writes)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"reading {path} failed: {exc}") from None
    finally:
        conn.close()


class SqliteExport:
    """``Operations.export_thread`` for ``SqliteOperations``."""

    path: Path
    _writes_have_task_path: bool

    def export_thread(self, thread_id: str) -> Iterator[ExportCheckpoint]:
        """Every checkpoint of ``thread_id`` (all namespaces) with its writes, as stored; see ``export_rows``."""
        return export_sqlite_thread(self.path, thread_id, self._writes_have_task_path)
