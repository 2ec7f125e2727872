"""One field's value along a checkpoint's lineage, decoding only the checkpoints where it can change.

A loop checkpoint's value differs from its parent's only when a task wrote the
channel on top of the parent (the parent row's ``write_channels``). Input, update
and fork checkpoints may carry values no write explains, so they are always
decoded. Everything else reuses the previous value: a 300-checkpoint thread is a
handful of decodes, each of the one channel (``Store.iter_states(channels=...)``),
read as a stream in bounded batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import CheckpointRow, NotFound, Store
from ..store.not_utf8 import quoted


@dataclass(frozen=True)
class FieldPoint:
    """The field's value at one checkpoint of the lineage (oldest first)."""

    row: CheckpointRow
    value: Any
    decoded: bool  # False when the value was carried over from the parent


def lineage(rows: list[CheckpointRow], checkpoint_id: str | None = None, ns: str = "") -> list[CheckpointRow]:
    """The checkpoints from the first one to ``checkpoint_id`` (default: the newest), by parent links, oldest first."""
    same_ns = [r for r in rows if r.checkpoint_ns == ns]
    by_id = {r.checkpoint_id: r for r in same_ns}
    if checkpoint_id is None:
        if not same_ns:
            return []
        checkpoint_id = max(same_ns, key=lambda r: r.checkpoint_id).checkpoint_id
    if checkpoint_id not in by_id:
        raise NotFound(f"checkpoint {quoted(checkpoint_id)} is not in this thread")
    chain: list[CheckpointRow] = []
    seen: set[str] = set()
    current: CheckpointRow | None = by_id[checkpoint_id]
    while current is not None and current.checkpoint_id not in seen:
        seen.add(current.checkpoint_id)
        chain.append(current)
        current = by_id.get(current.parent_checkpoint_id or "")
    return chain[::-1]


def _may_change(row: CheckpointRow, parent: CheckpointRow | None, field: str) -> bool:
    """False only when the parent's recorded writes show nobody wrote ``field`` (no writes recorded: decode)."""
    if parent is None or row.source != "loop" or not parent.write_channels:
        return True
    return field in parent.write_channels


def changing_ids(chain: list[CheckpointRow], field: str) -> set[str]:
    """The checkpoints of ``chain`` (a lineage, oldest first) where ``field``'s value may differ from the parent's."""
    return {row.checkpoint_id for row, parent in zip(chain, [None, *chain]) if _may_change(row, parent, field)}


def field_history(store: Store, thread_id: str, field: str, checkpoint_id: str | None = None,
                  ns: str = "", rows: list[CheckpointRow] | None = None) -> list[FieldPoint]:
    """``field``'s value at every checkpoint of the lineage ending at ``checkpoint_id``, oldest first."""
    chain = lineage(rows if rows is not None else store.timeline(thread_id), checkpoint_id, ns)
    decoded = changing_ids(chain, field)
    values = {state.checkpoint_id: state.values.get(field)
              for state in store.iter_states(thread_id, ns, checkpoint_ids=decoded, channels=[field])} if decoded else {}
    points: list[FieldPoint] = []
    value: Any = None
    for row in chain:
        if row.checkpoint_id in decoded:
            value = values.get(row.checkpoint_id)
        points.append(FieldPoint(row, value, row.checkpoint_id in decoded))
    return points
