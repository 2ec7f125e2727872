"""Decoded states and writes of a PostgreSQL thread: checkpoint JSONB plus the blob rows it references,
delta channels rebuilt from their ancestors."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from .. import delta
from ..carried import Carried, decode_value
from ..decode import Decoded, Problem, decode_typed
from ..model import CheckpointState
from ..records import (
    batches,
    checkpoint_not_found,
)
from ..sql_reading import SqlStates

# Blob rows at channel versions: every row's length, its contents only for the channels asked for (NULL: all).
_BLOBS_AT_VERSIONS = """
    SELECT bl.channel, bl.version, bl.type, octet_length(bl.blob),
           CASE WHEN %(channels)s::text[] IS NULL OR bl.channel = ANY(%(channels)s::text[]) THEN bl.blob END
    FROM unnest(%(names)s::text[], %(versions)s::text[]) AS v(channel, version)
    JOIN checkpoint_blobs bl
      ON bl.thread_id = %(thread)s AND bl.checkpoint_ns = %(ns)s AND bl.channel = v.channel AND bl.version = v.version
"""


@dataclass(frozen=True)
class _Blob:
    """One blob row: its type, stored length and decoded value (None for ``empty`` or when not fetched)."""

    type: str | None
    size: int
    decoded: Decoded | None


def _refs(checkpoint: Any) -> set[tuple[str, str]]:
    """The ``(channel, version)`` blob rows a checkpoint's JSONB references."""
    versions = (checkpoint or {}).get("channel_versions") if isinstance(checkpoint, dict) else None
    return {(str(name), str(version)) for name, version in (versions or {}).items()}


class PgStates(SqlStates):
    """States, writes and delta histories (a mixin of ``PostgresStore``: needs ``_query`` and ``schema``)."""

    _CHECKPOINT_COLUMNS = ("checkpoint_id, parent_checkpoint_id, checkpoint, metadata, "
                           "pg_column_size(checkpoint) + pg_column_size(metadata)")

    def _checkpoint_row(self, thread_id: str, checkpoint_id: str | None, ns: str) -> tuple:
        select = f"SELECT {self._CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s"
        if checkpoint_id is None:
            rows = self._query(select + " ORDER BY checkpoint_id DESC LIMIT 1", [thread_id, ns])
        else:
            rows = self._query(select + " AND checkpoint_id = %s", [thread_id, ns, checkpoint_id])
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return rows[0]

    def _write_rows(self, thread_id: str, ns: str, ids: list[str]) -> dict[str, list[tuple]]:
        grouped: dict[str, list[tuple]] = {}
        for cid, *row in self._query(
            """SELECT checkpoint_id, task_id, task_path, idx, channel, type, blob FROM checkpoint_writes
               WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)
               ORDER BY checkpoint_id, task_path, task_id, idx""",
            [thread_id, ns, ids],
        ):
            grouped.setdefault(cid, []).append(tuple(row))
        return grouped

    def _blobs(self, thread_id: str, ns: str, refs: set[tuple[str, str]], channels: Collection[str] | None,
               known: dict[tuple[str, str], _Blob], carry: dict[str, Carried] | None = None) -> dict[tuple[str, str], _Blob]:
        """The blob rows ``refs`` names, decoded once each (those in ``known`` are not read again);
        channels outside ``channels`` are measured, not fetched. ``carry``: each channel's last decoded
        version, whose items a newer version that stores them again reuses (updated in place)."""
        wanted = [ref for ref in refs if ref not in known]
        found = {ref: known[ref] for ref in refs if ref in known}
        if wanted:
            rows = self._query(_BLOBS_AT_VERSIONS, {
                "channels": None if channels is None else list(channels), "names": [c for c, _ in wanted],
                "versions": [v for _, v in wanted], "thread": thread_id, "ns": ns,
            })
            for name, version, type_tag, size, blob in sorted(rows, key=lambda r: (r[0], r[1])):
                if type_tag == "empty" or blob is None:
                    decoded = None
                elif type_tag == "msgpack" and carry is not None:
                    decoded, carry[name] = decode_value(bytes(blob), 0, len(blob), name, carry.get(name))
                else:
                    decoded = decode_typed(type_tag, blob, name)
                found[(name, version)] = _Blob(type_tag, int(size or 0), decoded)
        return found

    def _assemble(self, thread_id: str, ns: str, row: tuple, blobs: dict[tuple[str, str], _Blob],
                  write_rows: list[tuple], channels: Collection[str] | None = None,
                  carried: CheckpointState | None = None) -> CheckpointState:
        cid, parent, checkpoint, metadata, own_bytes = row
        checkpoint = checkpoint if isinstance(checkpoint, dict) else {}
        metadata = metadata if isinstance(metadata, dict) else {"value": metadata}
        header = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        channel_values: dict[str, Any] = {}
        channel_bytes: dict[str, int] = {}
        problems: list[Problem] = []
        for name, value in (checkpoint.get("channel_values") or {}).items():
            if channels is None or name in channels:
                channel_values[name] = value
                channel_bytes[name] = len(json.dumps(value))
        blob_bytes = 0
        for name, version in (header.get("channel_versions") or {}).items():
            blob = blobs.get((name, str(version)))
            if blob is None:
                continue
            blob_bytes += blob.size
            if blob.decoded is None:
                continue
            channel_values[name] = blob.decoded.value
            channel_bytes[name] = blob.size
            problems.extend(blob.decoded.problems)
        return self._state(thread_id, ns, (cid, parent), (header, channel_values, channel_bytes), metadata, write_rows,
                           problems, int(own_bytes or 0) + blob_bytes, channels, carried)

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        row = self._checkpoint_row(thread_id, checkpoint_id, ns)
        blobs = self._blobs(thread_id, ns, _refs(row[2]), None, {})
        return self._assemble(thread_id, ns, row, blobs, self._write_rows(thread_id, ns, [row[0]]).get(row[0], []))

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        listed = self._query(
            """SELECT checkpoint_id, pg_column_size(checkpoint) FROM checkpoints
               WHERE thread_id = %s AND checkpoint_ns = %s ORDER BY checkpoint_id""",
            [thread_id, ns],
        )
        if not listed:
            raise self._no_namespace(thread_id, ns)
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        order = [cid for cid, _ in listed if wanted is None or cid in wanted]
        return self._stream_states(thread_id, ns, order, channels)

    def _stream_states(self, thread_id: str, ns: str, order: list[str],
                       channels: Collection[str] | None) -> Iterator[CheckpointState]:
        """Batches of checkpoints; a blob row shared with the checkpoint before is decoded once."""
        previous: CheckpointState | None = None
        known: dict[tuple[str, str], _Blob] = {}
        carry: dict[str, Carried] = {}
        for batch in batches(order, lambda _: 1):
            rows = self._query(
                f"""SELECT {self._CHECKPOINT_COLUMNS} FROM checkpoints
                    WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s) ORDER BY checkpoint_id""",
                [thread_id, ns, batch],
            )
            refs = set().union(*(_refs(row[2]) for row in rows)) if rows else set()
            blobs = self._blobs(thread_id, ns, refs, channels, known, carry)
            writes = self._write_rows(thread_id, ns, batch)
            for row in rows:
                previous = self._assemble(thread_id, ns, row, blobs, writes.get(row[0], []), channels, previous)
                yield previous
            last = _refs(rows[-1][2]) if rows else set()
            known = {ref: blob for ref, blob in blobs.items() if ref in last}

    def _ancestors(self, thread_id: str, ns: str, parent: str | None, channels: list[str]) -> Iterator[delta.Ancestor]:
        """Checkpoints from ``parent`` upwards, with the stored values of ``channels``: non-empty blobs,
        else primitives kept inline in the checkpoint row (a snapshot leaves only a ``true`` marker there)."""
        seen: set[str] = set()
        while parent and parent not in seen:
            seen.add(parent)
            rows = self._query(
                """
                SELECT c.parent_checkpoint_id, bl.channel, bl.type, bl.blob,
                       (SELECT jsonb_object_agg(v.key, v.value) FROM jsonb_each(c.checkpoint -> 'channel_values') v
                        WHERE v.key = ANY(%s)),
                       c.checkpoint -> 'channel_versions'
                FROM checkpoints c
                LEFT JOIN checkpoint_blobs bl
                  ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
                 AND bl.channel = ANY(%s) AND bl.type <> 'empty'
                 AND bl.version = c.checkpoint -> 'channel_versions' ->> bl.channel
                WHERE c.thread_id = %s AND c.checkpoint_ns = %s AND c.checkpoint_id = %s
                """,
                [channels, channels, thread_id, ns, parent],
            )
            if not rows:
                return
            stored = dict(rows[0][4] or {})
            stored.update(
                (name, decode_typed(type_tag, blob, name).value) for _, name, type_tag, blob, *_ in rows if name is not None
            )
            versions = rows[0][5]
            yield delta.Ancestor(parent, stored, rows[0][0], frozenset(versions) if isinstance(versions, dict) else None)
            parent = rows[0][0]

    def _channel_writes(self, thread_id: str, ns: str, cids: list[str], channels: list[str]) -> list[delta.ChannelWrite]:
        rows = self._query(
            """SELECT checkpoint_id, task_path, task_id, idx, channel, type, blob FROM checkpoint_writes
               WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s) AND channel = ANY(%s)""",
            [thread_id, ns, cids, channels],
        )
        return [
            delta.ChannelWrite(cid, path or "", task_id, idx, channel, decode_typed(type_tag, blob, channel).value)
            for cid, path, task_id, idx, channel, type_tag, blob in rows
        ]
