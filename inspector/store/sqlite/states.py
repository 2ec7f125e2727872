"""Decoded states and writes of a SQLite thread, delta channels rebuilt from their ancestors."""

from __future__ import annotations

from typing import Any, Collection, Iterator

from .. import delta
from ..checkpoint_blob import DecodedCheckpoint, decode_checkpoint_blob
from ..decode import decode_typed
from ..model import CheckpointState
from ..records import (
    batches,
    checkpoint_not_found,
)
from ..sql_reading import SqlStates
from .queries import in_clause, metadata


class SqliteStates(SqlStates):
    """States, writes and delta histories (a mixin of ``SqliteStore``: needs ``_query``, ``_has_thread``,
    ``_writes_have_task_path`` and ``schema``)."""

    def _blob_rows(self, thread_id: str, ns: str, ids: list[str], columns: str) -> dict[str, tuple]:
        """``checkpoint id -> (columns...)`` for one batch of a namespace."""
        return {
            row[0]: row[1:]
            for row in self._query(
                f"""SELECT checkpoint_id, {columns} FROM checkpoints
                    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({in_clause(ids)})""",
                [thread_id, ns, *ids],
            )
        }

    def _checkpoint_row(self, thread_id: str, checkpoint_id: str | None, ns: str) -> tuple:
        if checkpoint_id is None:
            rows = self._query(
                """SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints
                   WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1""",
                [thread_id, ns],
            )
        else:
            rows = self._query(
                """SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints
                   WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?""",
                [thread_id, ns, checkpoint_id],
            )
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return rows[0]

    def _write_rows(self, thread_id: str, ns: str, ids: list[str]) -> dict[str, list[tuple]]:
        """``checkpoint id -> stored write rows`` in task order, for a batch of one namespace."""
        task_path = "task_path" if self._writes_have_task_path else "''"
        grouped: dict[str, list[tuple]] = {}
        for cid, *row in self._query(
            f"""SELECT checkpoint_id, task_id, {task_path}, idx, channel, type, value FROM writes
                WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({in_clause(ids)})
                ORDER BY checkpoint_id, {task_path}, task_id, idx""",
            [thread_id, ns, *ids],
        ):
            grouped.setdefault(cid, []).append(tuple(row))
        return grouped

    def _decoded(self, thread_id: str, ns: str, cid: str, parent: str | None, type_tag: str | None,
                 blob: bytes | None, raw_meta: Any, write_rows: list[tuple], channels: Collection[str] | None = None,
                 carried: tuple[CheckpointState, DecodedCheckpoint] | None = None) -> tuple[CheckpointState, DecodedCheckpoint]:
        """The state of one checkpoint row; ``carried``: its parent's state and blob, decoded just before."""
        parent_state, parent_blob = carried if carried is not None and carried[0].checkpoint_id == parent else (None, None)
        decoded = decode_checkpoint_blob(type_tag, blob, channels, parent_blob)
        state = self._state(thread_id, ns, (cid, parent), (decoded.header, decoded.channel_values, decoded.channel_bytes),
                            metadata(raw_meta), write_rows, decoded.problems, len(blob or b"") + len(raw_meta or b""),
                            channels, parent_state)
        return state, decoded

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        cid, parent, type_tag, blob, raw_meta = self._checkpoint_row(thread_id, checkpoint_id, ns)
        return self._decoded(thread_id, ns, cid, parent, type_tag, blob, raw_meta,
                             self._write_rows(thread_id, ns, [cid]).get(cid, []))[0]

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        listed = self._query(
            """SELECT checkpoint_id, parent_checkpoint_id, length(checkpoint) FROM checkpoints
               WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id""",
            [thread_id, ns],
        )
        if not listed:
            raise self._no_namespace(thread_id, ns)
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        order = [r for r in listed if wanted is None or r[0] in wanted]
        return self._stream_states(thread_id, ns, order, channels)

    def _stream_states(self, thread_id: str, ns: str, order: list[tuple],
                       channels: Collection[str] | None) -> Iterator[CheckpointState]:
        previous: tuple[CheckpointState, DecodedCheckpoint] | None = None
        for batch in batches(order, lambda r: r[2] or 0):
            ids = [r[0] for r in batch]
            fetched = self._blob_rows(thread_id, ns, ids, "type, checkpoint, metadata")
            writes = self._write_rows(thread_id, ns, ids)
            for cid, parent, _ in batch:
                if cid not in fetched:  # deleted while streaming
                    continue
                type_tag, blob, raw_meta = fetched.pop(cid)
                previous = self._decoded(thread_id, ns, cid, parent, type_tag, blob, raw_meta,
                                         writes.get(cid, []), channels, previous)
                yield previous[0]

    def _ancestors(self, thread_id: str, ns: str, parent: str | None, channels: list[str]) -> Iterator[delta.Ancestor]:
        """Checkpoints from ``parent`` upwards, each decoded only when the walk reaches it."""
        seen: set[str] = set()
        while parent and parent not in seen:
            seen.add(parent)
            rows = self._query(
                "SELECT parent_checkpoint_id, type, checkpoint FROM checkpoints "
                "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
                [thread_id, ns, parent],
            )
            if not rows:
                return
            next_parent, type_tag, blob = rows[0]
            decoded = decode_checkpoint_blob(type_tag, blob)
            stored, versions = decoded.channel_values, decoded.header.get("channel_versions")
            yield delta.Ancestor(parent, {k: stored[k] for k in channels if k in stored}, next_parent,
                                 frozenset(versions) if isinstance(versions, dict) else None)
            parent = next_parent

    def _channel_writes(self, thread_id: str, ns: str, cids: list[str], channels: list[str]) -> list[delta.ChannelWrite]:
        task_path = "task_path" if self._writes_have_task_path else "''"
        out: list[delta.ChannelWrite] = []
        for start in range(0, len(cids), 500):
            chunk = cids[start : start + 500]
            rows = self._query(
                f"""SELECT checkpoint_id, {task_path}, task_id, idx, channel, type, value FROM writes
                    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({in_clause(chunk)})
                    AND channel IN ({in_clause(channels)})""",
                [thread_id, ns, *chunk, *channels],
            )
            for cid, path, task_id, idx, channel, type_tag, value in rows:
                decoded = decode_typed(type_tag, value, channel).value
                out.append(delta.ChannelWrite(cid, path or "", task_id, idx, channel, decoded))
        return out
