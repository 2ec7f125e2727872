"""``Store.export_thread`` for LangGraph's SQLite schema: a thread's rows as stored, streamed.

Checkpoints and writes are read in primary-key order on two cursors and joined
by (namespace, checkpoint id) as they go, so memory holds one checkpoint at a
time; the reading connection is the exporter's own, read-only.
"""

from __future__ import annotations

import sqlite3
import urllib.parse
from itertools import groupby
from pathlib import Path
from typing import Iterator

from .export_rows import ExportCheckpoint, ExportWrite
from .model import NotFound, StoreError

_CHECKPOINTS = """
    SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
    FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id
"""
_WRITES = """
    SELECT checkpoint_ns, checkpoint_id, task_id, {task_path}, idx, channel, type, value
    FROM writes WHERE thread_id = ? ORDER BY checkpoint_ns, checkpoint_id, task_id, idx
"""


def export_sqlite_thread(path: Path, thread_id: str, writes_have_task_path: bool = True) -> Iterator[ExportCheckpoint]:
    conn = sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?mode=ro", uri=True, check_same_thread=False)
    try:
        conn.execute("PRAGMA query_only = ON")
        conn.execute("BEGIN")
        checkpoints = conn.execute(_CHECKPOINTS, [thread_id])
        writes = groupby(conn.execute(_WRITES.format(task_path="task_path" if writes_have_task_path else "''"),
                                      [thread_id]), key=lambda r: (r[0], r[1]))
        pending = next(writes, None)
        found = False
        for ns, cid, parent, type_tag, blob, metadata in checkpoints:
            found = True
            while pending is not None and pending[0] < (ns, cid):
                yield _stray(pending)
                pending = next(writes, None)
            own: list[ExportWrite] = []
            if pending is not None and pending[0] == (ns, cid):
                own = [_write(r) for r in pending[1]]
                pending = next(writes, None)
            yield ExportCheckpoint(ns, cid, parent, metadata, own, type_tag, blob)
        while pending is not None:
            yield _stray(pending)
            pending = next(writes, None)
        if not found:
            raise NotFound(f"no thread {thread_id!r} in this store")
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"reading {path} failed: {exc}") from None
    finally:
        conn.close()


def _write(row: tuple) -> ExportWrite:
    _, _, task_id, task_path, idx, channel, type_tag, value = row
    return ExportWrite(task_id, task_path or "", idx, channel, type_tag, value)


def _stray(group: tuple) -> ExportCheckpoint:
    (ns, cid), rows = group
    return ExportCheckpoint(ns, cid, None, None, [_write(r) for r in rows], missing=True)


class SqliteExport:
    """``Store.export_thread`` for ``SqliteStore``."""

    path: Path
    _writes_have_task_path: bool

    def export_thread(self, thread_id: str) -> Iterator[ExportCheckpoint]:
        """Every checkpoint of ``thread_id`` (all namespaces) with its writes, as stored; see ``export_rows``."""
        return export_sqlite_thread(self.path, thread_id, self._writes_have_task_path)
