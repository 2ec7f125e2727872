"""Plain data the stores return, and the ``Store`` protocol every backend implements."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Collection, Iterable, Iterator, Protocol, Sequence, runtime_checkable

from .decode import Problem
from .measure import ChannelSize

if TYPE_CHECKING:
    from .delta import DeltaHistory
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
    thread_id: str
    checkpoints: int
    newest_checkpoint_id: str | None
    updated_at: datetime | None
    stored_bytes: int
    title: str | None = None
    namespaces: int = 1


@dataclass(frozen=True)
class StoreTotals:
    """The whole store in three numbers, from one aggregate over keys and lengths."""

    threads: int
    checkpoints: int
    stored_bytes: int


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
    keys_only: bool = False  # read by ``timeline_keys``: step from the id, no source, metadata only ``parents``


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
    """Read-only access to one checkpoint store.

    Threads: ``threads`` (ordered over every thread by the database), ``count_threads``,
    ``totals``. One thread's checkpoints: ``timeline`` (all of them), ``timeline_keys`` (all of
    them, keys and lengths only), ``checkpoint_rows`` (a page, in full), ``history`` (filtered
    and paged, as LangGraph's ``BaseCheckpointSaver.list``). One checkpoint: ``state``
    (decoded, delta channels rebuilt), ``delta_history`` (what a delta channel was rebuilt
    from). Streams over a history in bounded batches: ``iter_states``, ``iter_field_sizes``.
    Sizes: ``field_sizes``. Operating the store: ``retention_reader`` (keys and lengths for a
    retention preview), ``export_thread`` (rows as stored, for a support bundle).

    ``identity`` names the store without secrets (a file path, a server and database), so
    facts about its checkpoints can be kept in the analysis cache.
    """

    url: str
    kind: str
    read_only: bool
    size_accounting: str
    identity: str

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest") -> list[ThreadSummary]:
        """One page of threads matching ``search`` (thread id or metadata, a plain substring).

        Args:
            sort: ``newest`` (last update first), ``stored`` (stored bytes, largest first) or
                ``checkpoints`` (most first); the order is over every matching thread, computed
                by the database from keys and lengths, never from blob contents.
        Returns:
            At most ``limit`` summaries starting at ``offset`` in that order.
        """
        ...

    def count_threads(self, search: str | None = None) -> int: ...

    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        """Every checkpoint of the thread, every namespace, newest first; ``NotFound`` for an unknown thread."""
        ...

    def totals(self) -> StoreTotals:
        """Threads, checkpoints and stored bytes (checkpoints, blobs and writes) of the whole store,
        computed by the database from lengths."""
        ...

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        """Every checkpoint's keys, parent, stored lengths and written channels, newest first: enough
        to lay out a history, read without metadata where the backend stores it behind the state.

        SQLite's rows are marked ``keys_only``: ``step`` comes from the checkpoint id, ``source`` is
        None and ``metadata`` holds only ``parents`` (a subgraph's first checkpoint needs it); other
        backends read metadata at no extra cost and return full rows. ``after`` keeps only
        checkpoints whose id is greater (following a running thread). Raises ``NotFound`` for an
        unknown thread.
        """
        ...

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        """Full timeline rows (metadata included) for the ``(ns, checkpoint id)`` keys given, newest
        first; keys not in the store are left out. Reads only those rows: a page of a history."""
        ...

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        """The threads branched from ``thread_id``, as DeerFlow's "branch" records them.

        Found with one query over checkpoint keys and metadata (no state decoded): each
        thread's first root checkpoint whose ``branch_parent_thread_id`` names ``thread_id``.

        Args:
            thread_id: The thread the branches were taken from.

        Returns:
            ``BranchThread`` records (the branch, the parent checkpoint and message it came
            from, when it was made), oldest first; an empty list when there is none.
        """
        ...

    def history(
        self,
        thread_id: str,
        ns: str | None = "",
        *,
        before: str | None = None,
        limit: int | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[CheckpointRow]:
        """A thread's checkpoints that match, newest first, read without decoding any state.

        Args:
            thread_id: The thread to read.
            ns: Only checkpoints of this namespace (``""``: the root graph); ``None``: every namespace.
            before: Only checkpoints whose id sorts before this checkpoint id (a page cursor).
            limit: At most this many checkpoints, the newest that match; ``None``: all of them.
            filter: Only checkpoints whose metadata holds each of these top-level keys with
                an equal JSON value.

        Returns:
            ``CheckpointRow``s ordered by checkpoint id, newest first (then by namespace);
            an empty list when nothing matches, an unknown thread included.
        """
        ...

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        """The decoded state at ``checkpoint_id`` (``None``: the newest of ``ns``); ``NotFound`` if absent."""
        ...

    def delta_history(
        self, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str = ""
    ) -> dict[str, DeltaHistory]:
        """What delta channels (LangGraph's ``DeltaChannel``) at a checkpoint are rebuilt from.

        Walks the parent chain up from the checkpoint's parent (only on-path ancestors
        count in a forked thread), per channel up to the nearest ancestor that stores a
        value for it, as LangGraph's ``get_delta_channel_history`` does.

        Args:
            thread_id: The checkpoint's thread.
            checkpoint_id: The checkpoint whose channels are asked about.
            channels: Channel names; an empty sequence gives an empty mapping.
            ns: The checkpoint's namespace.

        Returns:
            For every name in ``channels``, a ``DeltaHistory``: the seed value (if any
            ancestor stores one) and the ordered writes since, the checkpoint's own
            pending writes excluded. Backends that read through a saver's API cannot
            tell which checkpoint or task path a write came from and leave those empty.

        Raises:
            NotFound: The checkpoint is not in the store.
        """
        ...

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        """Decoded states of one namespace (or only ``checkpoint_ids``), oldest first, read in bounded
        batches so a history is never held in memory.

        Args:
            channels: decode only these channels (others are left out of ``values``); None: all.
        Returns:
            The states ``state()`` would return, each decoded once; a checkpoint whose parent was
            yielded just before rebuilds its delta channels from it instead of walking the history.
        """
        ...

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        """``(checkpoint id, its decoded writes in task order)`` for the checkpoints of one namespace (or
        ``checkpoint_ids``) that have writes, oldest first, in bounded batches; no state is read."""
        ...

    def iter_field_sizes(self, thread_id: str, ns: str | None = None,
                         keys: Collection[Key] | None = None) -> Iterator[CheckpointSizes]:
        """``field_sizes`` as a stream in bounded batches (ordered by checkpoint id, then namespace);
        ``keys`` restricts it to those ``(ns, checkpoint id)`` pairs. Raises ``NotFound`` for an
        unknown thread."""
        ...

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Every checkpoint of ``ns`` (``None``: all namespaces), oldest first, each blob read once.

        The store's ``size_accounting`` attribute says how the bytes add up:
        ``PER_CHECKPOINT_COPY`` (every checkpoint stores every channel again) or
        ``SHARED_BLOBS`` (channels carry ``blob_key``; a key is stored once).
        """
        ...

    def retention_reader(self) -> "RetentionReader":
        """A reader of keys, parent ids and stored lengths, for retention planning (see ``retention_keys``).

        Returns:
            A ``RetentionReader`` (a context manager) over one consistent view of the store; it
            streams threads without decoding any value.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def export_thread(self, thread_id: str) -> Iterator["ExportCheckpoint"]:
        """The rows of one thread as stored, for a support bundle (see ``export_rows``).

        Args:
            thread_id: The thread to export.

        Returns:
            Every checkpoint of every namespace, ordered by namespace and id, with the writes
            stored against it, serialized values untouched.

        Raises:
            NotFound: The thread is not in the store.
            StoreError: The store cannot hand out its rows as stored (a saver read through its API).
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> "Store": ...

    def __exit__(self, *exc: object) -> None: ...

