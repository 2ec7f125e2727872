"""A SQLite thread's checkpoints as the timeline lists them: keys, lengths and metadata, never state."""

from __future__ import annotations

from typing import Any, Iterable

from ..model import ERROR_CHANNEL, ERROR_READ_BYTES, TASKS_CHANNEL, CheckpointRow, Key, WriteKey
from ..records import full_row, keys_only_row, thread_not_found, write_keys_from
from ..sql_reading import SqlHistory
from .queries import OWN_BYTES, by_namespace, in_clause, metadata, metadata_equals

# the writes whose values ``write_keys`` reads: ``Send`` packets, and errors small enough to name their class
_VALUE_READ = "(channel = ? OR (channel = ? AND length(value) <= ?))"
_VALUE_PARAMS = (TASKS_CHANNEL, ERROR_CHANNEL, ERROR_READ_BYTES)

# The write channels (joined by char 31) and write bytes of checkpoint row ``c``: index lookups.
_WRITES_OF_C = """
    (SELECT group_concat(channel, char(31)) FROM writes w
     WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id),
    (SELECT sum(length(value)) FROM writes w
     WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id)"""


class SqliteTimeline(SqlHistory):
    """Timelines, filtered histories and pages of rows (a mixin of ``SqliteStore``: needs ``_query``)."""

    def _writes_summary(self, thread_id: str, where: str = "",
                        params: Iterable[Any] = ()) -> dict[Key, tuple[tuple[str, ...], int]]:
        """``(ns, checkpoint id) -> (channels written, bytes)`` for the thread's writes matching ``where``."""
        return {
            (ns, cid): (tuple(dict.fromkeys(channels.split("\x1f"))) if channels else (), size or 0)
            for ns, cid, channels, size in self._query(
                f"""SELECT checkpoint_ns, checkpoint_id, group_concat(channel, char(31)), sum(length(value))
                    FROM writes WHERE thread_id = ? {where} GROUP BY checkpoint_ns, checkpoint_id""",
                [thread_id, *params],
            )
        }

    def _writes_by_channel(self, thread_id: str, where: str = "",
                           params: Iterable[Any] = ()) -> dict[Key, dict[str, int]]:
        """``(ns, checkpoint id) -> {channel: bytes}`` of the thread's writes matching ``where``."""
        out: dict[Key, dict[str, int]] = {}
        for ns, cid, channel, size in self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, channel, sum(length(value))
                FROM writes WHERE thread_id = ? {where} GROUP BY checkpoint_ns, checkpoint_id, channel""",
            [thread_id, *params],
        ):
            out.setdefault((ns, cid), {})[str(channel)] = size or 0
        return out

    PAGE_COLUMNS = f"length(c.checkpoint), c.metadata, {_WRITES_OF_C}"

    def _metadata_equals(self, key: Any, value: Any) -> tuple[str, list[Any]]:
        return metadata_equals(key, value)

    def _all_history(self, thread_id: str, ns: str | None, conditions: str, params: list[Any]) -> list[CheckpointRow]:
        rows = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, length(checkpoint), metadata
                FROM checkpoints WHERE {conditions} ORDER BY checkpoint_id DESC, checkpoint_ns""",
            params,
        )
        writes = self._writes_summary(thread_id, *(("", []) if ns is None else ("AND checkpoint_ns = ?", [ns])))
        return [full_row(thread_id, row_ns, cid, parent, (size or 0) + len(raw_meta or b""),
                         writes.get((row_ns, cid), ((), 0)), metadata(raw_meta))
                for row_ns, cid, parent, size, raw_meta in rows]

    def _page_rows(self, thread_id: str, rows: list[tuple]) -> list[CheckpointRow]:
        return [full_row(thread_id, row_ns, cid, parent, (size or 0) + len(raw_meta or b""),
                         (tuple(dict.fromkeys(channels.split("\x1f"))) if channels else (), wbytes or 0),
                         metadata(raw_meta))
                for row_ns, cid, parent, size, raw_meta, channels, wbytes in rows]

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        where, params = ("AND checkpoint_id > ?", [after]) if after else ("", [])
        rows = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, {OWN_BYTES},
                       CASE WHEN checkpoint_ns <> '' AND parent_checkpoint_id IS NULL THEN metadata END
                FROM checkpoints WHERE thread_id = ? {where} ORDER BY checkpoint_id DESC, checkpoint_ns""",
            [thread_id, *params],
        )
        if not rows and (not after or not self._has_thread(thread_id)):
            raise thread_not_found(thread_id)
        writes = self._writes_summary(thread_id, where, params)
        return [keys_only_row(thread_id, ns, cid, parent, size, writes.get((ns, cid), ((), 0)),
                              metadata(meta).get("parents") if meta is not None else None)
                for ns, cid, parent, size, meta in rows]

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        out: list[CheckpointRow] = []
        for ns, ids in by_namespace(keys).items():
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                where = f"AND checkpoint_ns = ? AND checkpoint_id IN ({in_clause(chunk)})"
                writes = self._writes_summary(thread_id, where, [ns, *chunk])
                out += [
                    full_row(thread_id, ns, cid, parent, size, writes.get((ns, cid), ((), 0)), metadata(meta))
                    for cid, parent, size, meta in self._query(
                        f"""SELECT checkpoint_id, parent_checkpoint_id, {OWN_BYTES}, metadata FROM checkpoints
                            WHERE thread_id = ? {where}""",
                        [thread_id, ns, *chunk],
                    )
                ]
        return sorted(out, key=lambda r: (r.checkpoint_id, r.checkpoint_ns), reverse=True)

    def write_keys(self, thread_id: str, keys: Iterable[Key]) -> dict[Key, list[WriteKey]]:
        """See ``Store.write_keys``: index lookups on the writes' primary key; values read only for ``Send``s and
        small errors."""
        task_path = "task_path" if self._writes_have_task_path else "''"
        rows: list[tuple] = []
        for ns, ids in by_namespace(dict.fromkeys(keys)).items():
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                rows += self._query(
                    f"""SELECT checkpoint_ns, checkpoint_id, task_id, {task_path}, idx, channel, length(value),
                               CASE WHEN {_VALUE_READ} THEN type END, CASE WHEN {_VALUE_READ} THEN value END
                        FROM writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({in_clause(chunk)})
                        ORDER BY checkpoint_id, {task_path}, task_id, idx""",
                    [*_VALUE_PARAMS, *_VALUE_PARAMS, thread_id, ns, *chunk],
                )
        return write_keys_from(rows)
