"""Plain data the stores return, and the ``Store`` protocol every backend implements."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Protocol, runtime_checkable

from .decode import Problem
from .measure import ChannelSize

INTERNAL_PREFIXES = ("__", "branch:", "start:", "join:")


def is_internal_channel(name: str) -> bool:
    """LangGraph's own plumbing (``__start__``, ``branch:to:node``, ``__pregel_tasks`` ...)."""
    return name.startswith(INTERNAL_PREFIXES)


_GREGORIAN_OFFSET_100NS = 0x01B21DD213814000


def checkpoint_time(checkpoint_id: str) -> datetime | None:
    """The creation time encoded in a uuid6 checkpoint id, or None for other ids."""
    try:
        u = uuid.UUID(checkpoint_id)
    except (ValueError, TypeError, AttributeError):
        return None
    if u.version != 6:
        return None
    ticks = (u.int >> 64) & 0xFFFFFFFFFFFFFFFF
    timestamp = ((ticks >> 16) << 12) | (ticks & 0x0FFF)
    micros = (timestamp - _GREGORIAN_OFFSET_100NS) // 10
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(microseconds=micros)


@dataclass(frozen=True)
class ThreadSummary:
    thread_id: str
    checkpoints: int
    newest_checkpoint_id: str | None
    updated_at: datetime | None
    stored_bytes: int
    title: str | None = None
    namespaces: int = 1


@dataclass(frozen=True)
class CheckpointRow:
    """One checkpoint as the timeline lists it: keys and metadata, never the state."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None
    created_at: datetime | None
    stored_bytes: int
    writes_bytes: int = 0
    write_channels: tuple[str, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)


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

    def problems_for(self, field_name: str | None) -> list[Problem]:
        return [p for p in self.problems if p.field == field_name]


PER_CHECKPOINT_COPY = "per-checkpoint-copy"
SHARED_BLOBS = "shared-blobs"


@dataclass(frozen=True)
class CheckpointSizes:
    """What one checkpoint costs in the store, per channel, read without decoding values.

    ``stored_bytes`` is the checkpoint row itself (for SQLite: the blob holding every
    channel, plus metadata); ``writes_bytes`` its pending writes. ``channels`` maps
    every channel (internal ones included) to its stored size and content hash.
    """

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None
    stored_bytes: int
    writes_bytes: int
    channels: dict[str, ChannelSize]
    problems: tuple[Problem, ...] = ()


class StoreError(Exception):
    """A store that cannot be opened or read; the message says what is wrong, in one line."""


class NotFound(StoreError):
    """A thread or checkpoint that is not in the store."""


@runtime_checkable
class Store(Protocol):
    """Read-only access to one checkpoint store."""

    url: str
    kind: str
    read_only: bool
    size_accounting: str

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0) -> list[ThreadSummary]: ...

    def count_threads(self, search: str | None = None) -> int: ...

    def timeline(self, thread_id: str) -> list[CheckpointRow]: ...

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        """The threads branched from ``thread_id`` (their first checkpoint's ``branch_parent_thread_id``
        names it), oldest first; found with one query over checkpoint keys and metadata, no state decoded."""
        ...

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState: ...

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Every checkpoint of ``ns`` (``None``: all namespaces), oldest first, each blob read once.

        The store's ``size_accounting`` attribute says how the bytes add up:
        ``PER_CHECKPOINT_COPY`` (every checkpoint stores every channel again) or
        ``SHARED_BLOBS`` (channels carry ``blob_key``; a key is stored once).
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> "Store": ...

    def __exit__(self, *exc: object) -> None: ...


def as_plain(obj: Any) -> Any:
    """Dataclasses from this package as plain dicts (for JSON output)."""
    if hasattr(obj, "__dataclass_fields__"):
        return asdict(obj)
    return obj
