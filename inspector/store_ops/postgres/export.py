"""``Operations.export_thread`` for LangGraph's PostgreSQL schema: a thread's rows as stored.

One read-only ``REPEATABLE READ`` transaction, so the export is one snapshot.
Checkpoints and writes are read in (namespace, id) order, byte-wise (``COLLATE
"C"``) so both streams join the way Python compares strings; each blob row is
fetched once, with the first checkpoint that references it.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Any, Iterator

import psycopg

from ...store.not_utf8 import is_not_utf8
from ...store.postgres.connect import read_error
from ...store.records import thread_not_found
from ..export_rows import ExportCheckpoint, ExportWrite, with_writes

_CHECKPOINTS = """
    SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata
    FROM checkpoints WHERE thread_id = %s ORDER BY checkpoint_ns COLLATE "C", checkpoint_id COLLATE "C"
"""
_WRITES = """
    SELECT checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob
    FROM checkpoint_writes WHERE thread_id = %s
    ORDER BY checkpoint_ns COLLATE "C", checkpoint_id COLLATE "C", task_id, idx
"""
_BLOBS = """
    SELECT bl.channel, bl.version, bl.type, bl.blob
    FROM unnest(%s::text[], %s::text[]) AS v(channel, version)
    JOIN checkpoint_blobs bl
      ON bl.thread_id = %s AND bl.checkpoint_ns = %s AND bl.channel = v.channel AND bl.version = v.version
"""


def export_pg_thread(store: Any, thread_id: str) -> Iterator[ExportCheckpoint]:
    if is_not_utf8(thread_id):  # PostgreSQL text cannot hold it: no thread of this store has that id
        raise thread_not_found(thread_id)
    with ExitStack() as stack:
        try:
            conn = stack.enter_context(store.connection())
            stack.enter_context(conn.transaction())
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            checkpoints = conn.cursor(name="inspector_export_checkpoints")
            checkpoints.execute(_CHECKPOINTS, [thread_id])
            write_rows = conn.cursor(name="inspector_export_writes")
            write_rows.execute(_WRITES, [thread_id])
            writes = ((ns, cid, ExportWrite(task_id, task_path or "", idx, channel, type_tag, blob))
                      for ns, cid, task_id, task_path, idx, channel, type_tag, blob in write_rows)
            yield from with_writes(thread_id, _with_blobs(conn, thread_id, checkpoints), writes)
        except psycopg.Error as exc:
            raise read_error(exc, store.target) from None


def _with_blobs(conn: psycopg.Connection, thread_id: str, rows: Any) -> Iterator[ExportCheckpoint]:
    """Each checkpoint with the blob rows of its channel versions that no earlier one referenced."""
    seen: set[tuple[str, str, str]] = set()
    for ns, cid, parent, checkpoint, metadata in rows:
        header = checkpoint if isinstance(checkpoint, dict) else {}
        versions = {str(k): str(v) for k, v in (header.get("channel_versions") or {}).items()}
        wanted = [(ch, v) for ch, v in versions.items() if (ns, ch, v) not in seen]
        new_blobs: dict[tuple[str, str], tuple[str, bytes | None]] = {}
        if wanted:
            for channel, version, type_tag, blob in conn.execute(
                    _BLOBS, [[c for c, _ in wanted], [v for _, v in wanted], thread_id, ns]):
                new_blobs[(channel, version)] = (type_tag, blob)
            seen.update((ns, ch, v) for ch, v in wanted)
        yield ExportCheckpoint(ns, cid, parent, metadata, header=header, blob_versions=versions, new_blobs=new_blobs)


class PgExport:
    """``Operations.export_thread`` for ``PgOperations``."""

    def export_thread(self, thread_id: str) -> Iterator[ExportCheckpoint]:
        """Every checkpoint of ``thread_id`` (all namespaces) with its writes and blob rows, as stored."""
        return export_pg_thread(self.store, thread_id)
