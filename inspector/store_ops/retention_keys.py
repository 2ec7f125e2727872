"""What a store hands out for planning retention: keys, parent ids and stored lengths, never values.

``Operations.retention_reader()`` returns a ``RetentionReader`` over one consistent
view of the store. It streams every thread (or the ones named) as
``ThreadKeys``: each checkpoint's keys, parent, stored bytes and *footprint*
(what deleting the row gives back to the store: for SQLite the pages its cell,
overflow chain and index entry take once VACUUM packs the file; for PostgreSQL
its stored lengths), with the writes stored against it summed up, and for
shared-blob stores the blob rows and which version each checkpoint references.
Metadata is read where it is cheap (PostgreSQL) or for the few checkpoints the
planner asks about (SQLite keeps it after the whole checkpoint blob).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator, Protocol, Sequence

from ..store.model import BranchThread, branch_of

Key = tuple[str, str]  # (checkpoint_ns, checkpoint_id)


@dataclass(frozen=True)
class CheckpointKeys:
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    stored_bytes: int
    footprint: float
    writes: int = 0
    writes_bytes: int = 0
    writes_footprint: float = 0.0
    interrupt: bool = False  # an ``__interrupt__`` write is stored against it
    metadata: dict[str, Any] | None = None  # None: not read here (ask ``RetentionReader.metadata``)
    blob_versions: dict[str, str] = field(default_factory=dict)  # shared-blob stores: channel -> version

    @property
    def key(self) -> Key:
        return (self.checkpoint_ns, self.checkpoint_id)


@dataclass(frozen=True)
class BlobKeys:
    """One ``checkpoint_blobs`` row (shared-blob stores): a channel's value at one version."""

    checkpoint_ns: str
    channel: str
    version: str
    stored_bytes: int


@dataclass(frozen=True)
class StrayWrites:
    """Writes of a namespace stored against a checkpoint id the store does not hold."""

    checkpoint_ns: str
    writes: int
    writes_bytes: int
    footprint: float


@dataclass
class ThreadKeys:
    thread_id: str
    checkpoints: list[CheckpointKeys]
    blobs: list[BlobKeys] = field(default_factory=list)
    stray_writes: list[StrayWrites] = field(default_factory=list)


@dataclass(frozen=True)
class StorageFacts:
    """How the store's space is accounted.

    ``free_bytes``: what reclaiming space returns even if nothing is deleted (SQLite:
    free pages, plus the slack of half-empty pages when it could be measured).
    """

    dialect: str  # "sqlite" or "postgres"
    file_bytes: int | None = None
    free_bytes: int = 0
    schema: str | None = None
    notes: tuple[str, ...] = ()
    # whether ``=`` on the id columns is byte equality (PostgreSQL: false when one has a nondeterministic
    # collation, so ``'a' = 'A'`` may hold); the printed statements then compare every id with ``COLLATE "C"``
    exact_ids: bool = True


class RetentionReader(Protocol):
    """One consistent, read-only view of a store for retention planning."""

    def facts(self) -> StorageFacts:
        """How space is accounted in this store."""
        ...

    def threads(self, thread_ids: Sequence[str] | None = None) -> Iterator[ThreadKeys]:
        """Every thread (or those named), one at a time, ordered by thread id."""
        ...

    def metadata(self, thread_id: str, keys: Sequence[Key]) -> dict[Key, dict[str, Any]]:
        """The metadata of the checkpoints ``keys`` of ``thread_id`` (missing or unreadable ones left out)."""
        ...

    def branch_links(self) -> list[BranchThread]:
        """Every DeerFlow branch thread in the store, with the checkpoint it was branched from."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> "RetentionReader": ...

    def __exit__(self, *exc: object) -> None: ...


def branch_link(thread_id: str, metadata: Any) -> BranchThread | None:
    """The branch a checkpoint's metadata records (DeerFlow's ``branch_parent_*`` keys), when it names the
    checkpoint it was branched from."""
    branch = branch_of(thread_id, metadata)
    return branch if branch is not None and branch.parent_checkpoint_id else None
