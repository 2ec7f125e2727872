"""Plain data the stores return, and the ``Store`` protocol every backend implements."""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Iterator, Protocol, runtime_checkable

from .decode import Problem
from .measure import ChannelSize

if TYPE_CHECKING:
    from .export_rows import ExportCheckpoint
    from .retention_keys import RetentionReader

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


def checkpoint_step(checkpoint_id: str) -> int | None:
    """The step LangGraph encodes in a uuid6 checkpoint id's clock sequence (``-bfff-`` is step -1)."""
    u = _uuid6(checkpoint_id)
    if u is None:
        return None
    return -1 if u.clock_seq == 0x3FFF else u.clock_seq


def checkpoint_time(checkpoint_id: str) -> datetime | None:
    """The creation time encoded in a uuid6 checkpoint id, or None for other ids."""
    u = _uuid6(checkpoint_id)
    if u is None:
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

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState: ...

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Every checkpoint of ``ns`` (``None``: all namespaces), oldest first, each blob read once.

        The store's ``size_accounting`` attribute says how the bytes add up:
        ``PER_CHECKPOINT_COPY`` (every checkpoint stores every channel again) or
        ``SHARED_BLOBS`` (channels carry ``blob_key``; a key is stored once).
        """
        ...

    def retention_reader(self) -> "RetentionReader":
        """Keys and stored lengths of every thread, for retention planning (see ``retention_keys``).

        Raises ``StoreError`` on stores that cannot list their rows (a saver read through its API).
        """
        ...

    def export_thread(self, thread_id: str) -> Iterator["ExportCheckpoint"]:
        """Every checkpoint of a thread (all namespaces) with its writes, as stored (see ``export_rows``).

        Raises ``NotFound`` for an unknown thread and ``StoreError`` where rows cannot be read as stored.
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
