"""A PostgreSQL thread's checkpoints as the timeline lists them: keys, lengths and JSONB metadata."""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..model import ERROR_CHANNEL, ERROR_READ_BYTES, TASKS_CHANNEL, CheckpointRow, Key, StoreError, WriteKey
from ..not_utf8 import named
from ..records import full_row, thread_not_found, write_keys_from
from ..sql_reading import SqlHistory

# Per checkpoint row ``c``: the bytes of the blobs it references, its write channels and write
# bytes; index lookups (one per channel version, one range of writes).
_SIDE_SIZES_OF_C = """
    LEFT JOIN LATERAL (
        SELECT sum((SELECT octet_length(bl.blob) FROM checkpoint_blobs bl
                    WHERE bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
                      AND bl.channel = v.key AND bl.version = v.value)) AS bytes
        FROM jsonb_each_text(c.checkpoint -> 'channel_versions') AS v) blobs ON true
    LEFT JOIN LATERAL (
        SELECT array_agg(channel ORDER BY task_path, task_id, idx) AS channels, sum(octet_length(blob)) AS bytes
        FROM checkpoint_writes w
        WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id
    ) writes ON true"""

# the writes whose values ``write_keys`` reads: ``Send`` packets, and errors small enough to name their class
_VALUE_READ = "(w.channel = %s OR (w.channel = %s AND octet_length(w.blob) <= %s))"
_VALUE_PARAMS = (TASKS_CHANNEL, ERROR_CHANNEL, ERROR_READ_BYTES)


class PgTimeline(SqlHistory):
    """Timelines, filtered histories and pages of rows (a mixin of ``PostgresStore``: needs ``_query``)."""

    PAGE_COLUMNS = ("pg_column_size(c.checkpoint) + pg_column_size(c.metadata) + coalesce(blobs.bytes, 0), "
                    "c.metadata, writes.channels, writes.bytes")
    PAGE_JOINS = _SIDE_SIZES_OF_C

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        """Full rows: PostgreSQL keeps metadata as JSONB beside the keys, so reading it costs nothing extra."""
        if after is None:
            return self.timeline(thread_id)
        rows = self._rows_where(thread_id, "c.checkpoint_id > %s", [after])
        if not rows and not self._has_thread(thread_id):
            raise thread_not_found(thread_id)
        return rows

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        keys = list(keys)
        if not keys:
            return []
        condition = "(c.checkpoint_ns, c.checkpoint_id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))"
        return self._rows_where(thread_id, condition, [[ns for ns, _ in keys], [cid for _, cid in keys]])

    def write_keys(self, thread_id: str, keys: Iterable[Key]) -> dict[Key, list[WriteKey]]:
        """See ``Store.write_keys``: the writes' primary-key index; blobs read only for ``Send``s and small errors."""
        keys = list(dict.fromkeys(keys))
        if not keys:
            return {}
        return write_keys_from(self._query(
            f"""SELECT w.checkpoint_ns, w.checkpoint_id, w.task_id, w.task_path, w.idx, w.channel, octet_length(w.blob),
                      CASE WHEN {_VALUE_READ} THEN w.type END, CASE WHEN {_VALUE_READ} THEN w.blob END
               FROM checkpoint_writes w
               JOIN unnest(%s::text[], %s::text[]) AS k(ns, id) ON w.checkpoint_ns = k.ns AND w.checkpoint_id = k.id
               WHERE w.thread_id = %s
               ORDER BY w.checkpoint_ns, w.checkpoint_id, w.task_path, w.task_id, w.idx""",
            [*_VALUE_PARAMS, *_VALUE_PARAMS, [ns for ns, _ in keys], [cid for _, cid in keys], thread_id],
        ))

    def _rows_where(self, thread_id: str, condition: str, params: list[Any]) -> list[CheckpointRow]:
        """Timeline rows of a few checkpoints (a page, the newest ones), lengths looked up per row."""
        return self._page_rows(thread_id, self._query(
            f"""SELECT c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id,
                       pg_column_size(c.checkpoint) + pg_column_size(c.metadata) + coalesce(blobs.bytes, 0),
                       c.metadata, writes.channels, writes.bytes
                FROM checkpoints c {_SIDE_SIZES_OF_C}
                WHERE c.thread_id = %s AND {condition}
                ORDER BY c.checkpoint_id DESC, c.checkpoint_ns""",
            [thread_id, *params],
        ))

    def _metadata_equals(self, key: Any, value: Any) -> tuple[str, list[Any]]:
        """``metadata -> key = value``, the value as JSONB."""
        if not isinstance(key, str):
            raise StoreError(f"metadata filter key {named(key)} is not a plain name")
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            raise StoreError(f"metadata filter value for {named(key)} is not JSON") from None
        return "metadata -> %s::text = %s::jsonb", [key, text]

    def _all_history(self, thread_id: str, ns: str | None, conditions: str, params: list[Any]) -> list[CheckpointRow]:
        rows = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id,
                       pg_column_size(checkpoint) + pg_column_size(metadata), metadata,
                       checkpoint -> 'channel_versions'
                FROM checkpoints WHERE {conditions} ORDER BY checkpoint_id DESC, checkpoint_ns""",
            params,
        )
        return self._page_rows(thread_id, self._with_side_sizes(thread_id, ns, rows))

    def _page_rows(self, thread_id: str, rows: list[tuple]) -> list[CheckpointRow]:
        """``(ns, id, parent, bytes, metadata, write channels, write bytes)`` tuples as timeline rows."""
        return [full_row(thread_id, row_ns, cid, parent, int(size or 0), (tuple(dict.fromkeys(channels or ())), int(wbytes or 0)),
                         meta if isinstance(meta, dict) else {"value": meta})
                for row_ns, cid, parent, size, meta, channels, wbytes in rows]

    def _with_side_sizes(self, thread_id: str, ns: str | None, rows: list[tuple]) -> list[tuple]:
        """Checkpoint rows ``(ns, id, parent, own bytes, metadata, channel_versions)`` as
        ``(ns, id, parent, bytes with referenced blobs, metadata, write channels, write bytes)``,
        from one pass over the thread's (or namespace's) blob and write lengths."""
        ns_clause, params = ("", [thread_id]) if ns is None else ("AND checkpoint_ns = %s", [thread_id, ns])
        blob_sizes = {
            (row_ns, channel, version): int(size or 0)
            for row_ns, channel, version, size in self._query(
                f"""SELECT checkpoint_ns, channel, version, octet_length(blob) FROM checkpoint_blobs
                    WHERE thread_id = %s {ns_clause}""",
                params,
            )
        }
        writes = {
            (row_ns, cid): (channels, size)
            for row_ns, cid, channels, size in self._query(
                f"""
                SELECT checkpoint_ns, checkpoint_id, array_agg(channel ORDER BY task_path, task_id, idx),
                       sum(octet_length(blob))
                FROM checkpoint_writes WHERE thread_id = %s {ns_clause} GROUP BY checkpoint_ns, checkpoint_id
                """,
                params,
            )
        }
        return [
            (row_ns, cid, parent,
             (size or 0) + sum(blob_sizes.get((row_ns, ch, str(v)), 0) for ch, v in (versions or {}).items()),
             meta, *writes.get((row_ns, cid), ((), 0)))
            for row_ns, cid, parent, size, meta, versions in rows
        ]
