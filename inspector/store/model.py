"""Plain data the stores return (threads, checkpoints, states, sizes, branches), the errors they raise,
and what a checkpoint id encodes. The ``Store`` protocol is in ``protocol``."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from .decode import Problem
from .measure import ChannelSize

INTERNAL_PREFIXES = ("__", "branch:", "start:", "join:")


def is_internal_channel(name: str) -> bool:
    """LangGraph's own plumbing (``__start__``, ``branch:to:node``, ``__pregel_tasks`` ...)."""
    return name.startswith(INTERNAL_PREFIXES)


_GREGORIAN_OFFSET_100NS = 0x01B21DD213814000


def _uuid6(checkpoint_id: str) -> uuid.UUID | None:
    try:
        u = uuid.UUID(checkpoint_id)
    except (ValueError, TypeError, AttributeError):
        return None
    return u if u.version == 6 else None


def checkpoint_time(checkpoint_id: str) -> datetime | None:
    """The creation time encoded in a uuid6 checkpoint id, or None for other ids."""
    u = _uuid6(checkpoint_id)
    if u is None:
        return None
    ticks = (u.int >> 64) & 0xFFFFFFFFFFFFFFFF
    timestamp = ((ticks >> 16) << 12) | (ticks & 0x0FFF)
    micros = (timestamp - _GREGORIAN_OFFSET_100NS) // 10
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=micros)


_STEP_BITS = 0x3FFF


def checkpoint_step(checkpoint_id: str) -> int | None:
    """The step LangGraph encodes in a uuid6 checkpoint id (its clock sequence), or None for other ids.

    Read from the id alone, so a history can be laid out without reading metadata;
    the metadata's ``step`` stays the authority for what is shown.
    """
    u = _uuid6(checkpoint_id)
    if u is None:
        return None
    seq = (u.int >> 48) & _STEP_BITS
    return seq - _STEP_BITS - 1 if seq >= _STEP_BITS - 1 else seq  # 0x3fff = -1, 0x3ffe = -2


THREAD_SORTS = ("newest", "stored", "checkpoints")


@dataclass(frozen=True)
class ThreadSummary:
    """One thread as the thread list shows it. ``title``: the store's, replaced by the thread list with the
    title in the state (``history.thread_titles``); ``status`` and ``hit`` are filled by the thread list
    (``history.thread_status``: idle, busy, interrupted, error; ``search``: where a search found the thread)."""

    thread_id: str
    checkpoints: int
    newest_checkpoint_id: str | None
    updated_at: datetime | None
    stored_bytes: int
    title: str | None = None
    namespaces: int = 1
    status: Any = None
    hit: Any = None


@dataclass(frozen=True)
class ThreadHeads:
    """Where the store's threads stand, read from keys alone in one statement: each thread's newest checkpoint id
    (any namespace) and its checkpoint rows, for the threads holding an id greater than a cut (or every thread),
    with the store's greatest checkpoint id and its count of checkpoint rows."""

    threads: dict[str, tuple[str, int]]
    cut: str | None
    rows: int


@dataclass(frozen=True)
class StoreTotals:
    """The whole store in three numbers, from one aggregate over keys and lengths."""

    threads: int
    checkpoints: int
    stored_bytes: int


@dataclass(frozen=True)
class CheckpointHead:
    """What every per-checkpoint record starts with: its keys, its parent, and its step and source."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None


@dataclass(frozen=True)
class CheckpointRow(CheckpointHead):
    """One checkpoint as the timeline lists it: keys and metadata, never the state."""

    created_at: datetime | None
    stored_bytes: int
    writes_bytes: int = 0
    write_channels: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    keys_only: bool = False  # read by ``timeline_keys``: step from the id, no source, metadata only ``parents``
    problems: tuple[str, ...] = ()  # what in the row itself could not be read as LangGraph writes it (a step)


Key = tuple[str, str]  # (checkpoint_ns, checkpoint_id)


BRANCH_PARENT_KEY = "branch_parent_thread_id"


@dataclass(frozen=True)
class BranchThread:
    """A thread branched from another one, as DeerFlow records it in the branch's checkpoint metadata
    (``branch_parent_thread_id``, ``branch_parent_checkpoint_id``, ``branch_parent_message_id``,
    ``branch_created_at``)."""

    thread_id: str
    parent_thread_id: str
    parent_checkpoint_id: str | None = None
    parent_message_id: str | None = None
    created_at: str | None = None


def branch_of(thread_id: str, metadata: Any) -> BranchThread | None:
    """The branch record a checkpoint's metadata carries, or None when it names no parent thread."""
    if not isinstance(metadata, dict) or not isinstance(metadata.get(BRANCH_PARENT_KEY), str):
        return None

    def text(key: str) -> str | None:
        value = metadata.get(key)
        return value if isinstance(value, str) and value else None

    return BranchThread(thread_id, metadata[BRANCH_PARENT_KEY], text("branch_parent_checkpoint_id"),
                        text("branch_parent_message_id"), text("branch_created_at"))


def sorted_branches(branches: Any) -> list[BranchThread]:
    """Branch records, oldest first (by their creation time, then thread id)."""
    return sorted(branches, key=lambda b: (b.created_at or "", b.thread_id))


@dataclass(frozen=True)
class WriteRecord:
    """One value a task wrote on top of a checkpoint, before reducers."""

    task_id: str
    task_path: str
    idx: int
    channel: str
    value: Any
    type: str | None
    size: int


TASKS_CHANNEL = "__pregel_tasks"  # where LangGraph keeps the ``Send`` packets a step pushes to the next
ERROR_CHANNEL = "__error__"  # where LangGraph keeps a failed task's error (``repr`` of the exception)
CANCELLED = "CancelledError"  # the error LangGraph stores for a task it stopped because a sibling failed
# an error write's value is read (for the exception's class) up to this many stored bytes
ERROR_READ_BYTES = 512


@dataclass(frozen=True)
class WriteKey:
    """One write stored against a checkpoint, by its keys only (no value): which task wrote which channel.

    ``task_path`` is ``""`` where the backend does not keep it (a saver read through its API).
    ``send_to`` names the node a ``Send`` packet written to ``__pregel_tasks`` starts, so a pushed task can be
    named by its node; ``error`` the exception class an ``__error__`` write names (``RuntimeError``;
    ``CancelledError`` for a task LangGraph cancelled because a sibling failed), read where the value is at most
    ``ERROR_READ_BYTES``. These are the only values read.
    """

    task_id: str
    task_path: str
    idx: int
    channel: str
    size: int
    send_to: str | None = None
    error: str | None = None


@dataclass
class CheckpointState:
    """The decoded state at one checkpoint."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    values: dict[str, Any]
    internal: dict[str, Any]
    metadata: dict[str, Any]
    writes: list[WriteRecord]
    problems: list[Problem]
    header: dict[str, Any] = field(default_factory=dict)
    channel_bytes: dict[str, int] = field(default_factory=dict)
    stored_bytes: int = 0
    rebuilt_channels: tuple[str, ...] = ()
    # each delta channel's source here: ``snapshot stored at this checkpoint``, ``seed: snapshot at step 7 + 3
    # replayed write(s)``, ``cannot be rebuilt: no seed (...)`` ... (``store.delta``)
    delta_sources: dict[str, str] = field(default_factory=dict)
    # what each rebuilt delta channel was rebuilt from (``delta.DeltaHistory``), so a child read next extends it
    delta_history: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def problems_for(self, field_name: str | None) -> list[Problem]:
        return [p for p in self.problems if p.field == field_name]


PER_CHECKPOINT_COPY = "per-checkpoint-copy"
SHARED_BLOBS = "shared-blobs"


@dataclass(frozen=True)
class CheckpointSizes(CheckpointHead):
    """What one checkpoint costs in the store, per channel, read without decoding values.

    ``stored_bytes`` is the checkpoint row itself (for SQLite: the blob holding every
    channel, plus metadata); ``writes_bytes`` its pending writes. ``channels`` maps
    every channel (internal ones included) to its stored size and content hash.
    """

    stored_bytes: int
    writes_bytes: int
    channels: dict[str, ChannelSize]
    problems: tuple[Problem, ...] = ()
    written: dict[str, int] = field(default_factory=dict)  # bytes of the writes stored against it, per channel


class StoreError(Exception):
    """A store that cannot be opened or read; the message says what is wrong, in one line."""


def not_supported(kind: str) -> None:
    """Raise the one-line answer for a store whose rows and lengths cannot be listed."""
    raise StoreError(f"{kind} needs direct access to the store's tables (SQLite or PostgreSQL); "
                     "a saver read through its API cannot list stored rows and lengths")


class NotFound(StoreError):
    """A thread or checkpoint that is not in the store."""
