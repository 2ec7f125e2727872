"""A saver's checkpoints as the timeline lists them, through ``list`` with the saver's own filters."""

from __future__ import annotations

from typing import Any, Iterable

from langgraph.checkpoint.base import CheckpointTuple

from ..model import CheckpointRow, Key, WriteKey, checkpoint_time
from ..records import HistoryTimeline, is_step, key_values, reads_value, thread_not_found
from .serialize import checkpoint_bytes, cid, dumps, ns_of, parent_of, plain, writes_bytes


class SaverTimeline(HistoryTimeline):
    """Timelines, filtered histories and rows (a mixin of ``SaverStore``: needs ``_list``)."""

    def _thread(self, thread_id: str) -> list[CheckpointTuple]:
        tuples = self._list({"configurable": {"thread_id": thread_id}})
        if not tuples:
            raise thread_not_found(thread_id)
        return tuples

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        """Full rows: the saver returns whole checkpoints, metadata included, either way."""
        return [r for r in self.timeline(thread_id) if after is None or r.checkpoint_id > after]

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        wanted = set(keys)
        tuples = self._list({"configurable": {"thread_id": thread_id}})
        return self._rows(thread_id, [t for t in tuples if (ns_of(t), cid(t)) in wanted])

    def write_keys(self, thread_id: str, keys: Iterable[Key]) -> dict[Key, list[WriteKey]]:
        """See ``Store.write_keys``. The saver API hands pending writes back whole and without task paths:
        ``task_path`` is empty, a write's index is its place among the checkpoint's writes."""
        wanted = set(keys)
        found: dict[Key, list[WriteKey]] = {}
        for tup in self._list({"configurable": {"thread_id": thread_id}}):
            key = (ns_of(tup), cid(tup))
            if key not in wanted or not tup.pending_writes:
                continue
            found[key] = [_write_key(str(task_id), idx, channel, value)
                          for idx, (task_id, channel, value) in enumerate(tup.pending_writes)]
        return found

    def history(self, thread_id: str, ns: str | None = "", *, before: str | None = None, limit: int | None = None,
                filter: dict[str, Any] | None = None) -> list[CheckpointRow]:
        """See ``Store.history``: the filters are handed to the saver's ``list``."""
        config = {"configurable": {"thread_id": thread_id, **({} if ns is None else {"checkpoint_ns": ns})}}
        options: dict[str, Any] = {"filter": filter or None, "limit": limit}
        if before is not None:
            options["before"] = {"configurable": {**config["configurable"], "checkpoint_id": before}}
        return self._rows(thread_id, self._list(config, **options))

    def _rows(self, thread_id: str, tuples: list[CheckpointTuple]) -> list[CheckpointRow]:
        tuples.sort(key=ns_of)
        tuples.sort(key=cid, reverse=True)
        rows = []
        for tup in tuples:
            meta = plain(dict(tup.metadata or {})).value
            meta = meta if isinstance(meta, dict) else {}
            step = meta.get("step")
            rows.append(
                CheckpointRow(
                    thread_id=thread_id,
                    checkpoint_ns=ns_of(tup),
                    checkpoint_id=cid(tup),
                    parent_checkpoint_id=parent_of(tup),
                    step=step if is_step(step) else None,
                    source=meta.get("source"),
                    created_at=checkpoint_time(cid(tup)),
                    stored_bytes=checkpoint_bytes(tup),
                    writes_bytes=writes_bytes(tup),
                    write_channels=tuple(dict.fromkeys(ch for _, ch, _ in tup.pending_writes or [])),
                    metadata=meta,
                )
            )
        return rows


def _write_key(task_id: str, idx: int, channel: str, value: Any) -> WriteKey:
    """A pending write's key as the SQL backends read it: its stored size, and where ``records.reads_value``, a
    ``Send``'s target or an error's class (``records.key_values``)."""
    size = len(dumps(value)[1])
    send_to, error = key_values(channel, plain(value, channel).value) if reads_value(channel, size) else (None, None)
    return WriteKey(task_id, "", idx, channel, size, send_to, error)
