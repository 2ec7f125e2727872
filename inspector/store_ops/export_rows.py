"""What a store hands out to export one thread: its rows as stored, serialized values untouched.

``Operations.export_thread(thread_id)`` yields every checkpoint of the thread (every
namespace, ordered by namespace and id) with the writes stored against it. A
whole-checkpoint store (SQLite) gives the serialized checkpoint as it is; a
shared-blob store (PostgreSQL) gives the checkpoint's JSONB, the blob version of
each channel, and the blob rows this export has not handed out yet (a blob
shared by many checkpoints is read once). Writes stored against a checkpoint
the store does not hold come as an entry with ``missing=True``. Nothing is
decoded here: the exporter decides what to do with each value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, Iterable, Iterator

from ..store.model import NotFound
from ..store.not_utf8 import order_key, quoted


@dataclass(frozen=True)
class ExportWrite:
    task_id: str
    task_path: str
    idx: int
    channel: str
    type: str | None
    value: bytes | None


@dataclass
class ExportCheckpoint:
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    metadata: Any  # bytes of JSON (SQLite) or the decoded JSONB (PostgreSQL)
    writes: list[ExportWrite] = field(default_factory=list)
    type: str | None = None  # whole-checkpoint stores: the serialized checkpoint's type tag ...
    checkpoint: bytes | None = None  # ... and its bytes
    header: dict[str, Any] | None = None  # shared-blob stores: the checkpoint JSONB (primitive values inline),
    blob_versions: dict[str, str] = field(default_factory=dict)  # the version of each channel with a blob row,
    new_blobs: dict[tuple[str, str], tuple[str, bytes | None]] = field(default_factory=dict)  # rows not yet given
    missing: bool = False  # only writes: their checkpoint is not in the store


def with_writes(thread_id: str, checkpoints: Iterable[ExportCheckpoint],
                writes: Iterable[tuple[str, str, ExportWrite]]) -> Iterator[ExportCheckpoint]:
    """Each checkpoint with the writes stored against it; both streams in (namespace, checkpoint id) order,
    compared as their UTF-8 bytes (the order of code points; an id that is not UTF-8 by its stored bytes).
    Writes whose checkpoint is not there come as ``missing`` entries.

    Raises ``NotFound`` when the thread has no checkpoint.
    """
    groups = groupby(writes, key=lambda w: (w[0], w[1]))
    pending = next(groups, None)
    found = False
    for checkpoint in checkpoints:
        found = True
        key = (checkpoint.checkpoint_ns, checkpoint.checkpoint_id)
        while pending is not None and _order(pending[0]) < _order(key):
            yield _stray(pending)
            pending = next(groups, None)
        if pending is not None and pending[0] == key:
            checkpoint.writes = [w for _, _, w in pending[1]]
            pending = next(groups, None)
        yield checkpoint
    while pending is not None:
        yield _stray(pending)
        pending = next(groups, None)
    if not found:
        raise NotFound(f"no thread {quoted(thread_id)} in this store")


def _order(key: tuple[str, str]) -> tuple[tuple[int, bytes], tuple[int, bytes]]:
    return order_key(key[0]), order_key(key[1])  # as SQLite orders them: text by its bytes, then BLOBs


def _stray(group: tuple) -> ExportCheckpoint:
    (ns, cid), rows = group
    return ExportCheckpoint(ns, cid, None, None, [w for _, _, w in rows], missing=True)
