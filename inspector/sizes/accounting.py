"""Size accounting: what each field of a thread's state costs in the store.

Everything here works on ``CheckpointSizes`` (stored sizes and content hashes
read by ``Store.field_sizes`` without decoding values), so measuring a thread
never decodes a checkpoint. Two ways the bytes add up:

- ``per-checkpoint-copy`` (SQLite): every checkpoint stores every channel again;
- ``shared-blobs`` (PostgreSQL): unchanged channels share one stored row per
  channel version (``ChannelSize.blob_key``), counted once.

Repeats are payloads stored more than once, found by content hash: a whole
channel value, or one item of it (a message, a ``viewed_images`` entry). Base64
image data inside messages is counted from the same rows (a byte search).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Iterable

from ..cache import AnalysisCache
from ..profiles import pieces, reads_thread
from ..profiles.active import current_knows
from ..store import (
    PER_CHECKPOINT_COPY,
    SHARED_BLOBS,
    CheckpointSizes,
    Store,
    is_internal_channel,
)
from ..store.decode import CORRUPT_BLOB
from ..store.measure import ENCRYPTED_BLOB, ChannelSize
from .cached import Progress, sizes_stream

VIEWED_IMAGES = "viewed_images"
REMEMBERED_CHECKPOINTS = 512  # checkpoints whose value sizes are kept for their children (forks reach back)


@dataclass(frozen=True)
class CheckpointSize:
    """One checkpoint's state size, per field: a point of the size chart."""

    checkpoint_id: str
    checkpoint_ns: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None
    total_bytes: int
    stored_bytes: int
    writes_bytes: int
    fields: dict[str, int]
    rebuilt: tuple[str, ...] = ()  # delta channels: not in the blob, their size estimated from writes


@dataclass(frozen=True)
class FieldTotal:
    """One field across checkpoints: bytes stored, bytes of distinct payloads, bytes spent on repeats."""

    field: str
    stored_bytes: int
    unique_bytes: int
    repeated_bytes: int
    newest_bytes: int
    internal: bool
    written_bytes: int = 0  # bytes of the writes to it (a delta channel is stored this way)
    rebuilt: bool = False  # a delta channel: its newest value is rebuilt from writes, its size estimated


@dataclass(frozen=True)
class WhatIf:
    """Estimated bytes saved by keeping fewer checkpoints, and bytes spent re-storing images.

    ``viewed_images_repeated_bytes``: ``viewed_images`` copied into later checkpoints (DeerFlow's main
    branch keeps metadata-only entries for the thread's life, so this is small unless entries hold
    base64). ``base64_in_messages_bytes``: base64 image data stored inside messages, every copy counted
    (DeerFlow's transient image-context message); None where the store cannot tell (PostgreSQL blobs).
    """

    keep_newest: int
    keep_newest_saved_bytes: int
    viewed_images_repeated_bytes: int
    base64_in_messages_bytes: int | None = 0
    images_profile: bool | None = None  # DeerFlow's profile read the thread(s) (None: ask the profile in force)


@dataclass(frozen=True)
class ThreadSizes:
    thread_id: str
    accounting: str
    checkpoints: list[CheckpointSize]
    fields: list[FieldTotal]
    stored_bytes: int
    writes_bytes: int
    first_total_bytes: int
    last_total_bytes: int
    growth_bytes: int
    repeated_bytes: int
    what_if: WhatIf
    namespaces: int = 1
    problems: list[str] = field(default_factory=list)

    def field(self, name: str) -> FieldTotal | None:
        return next((f for f in self.fields if f.field == name), None)


def stored_total(rows: Iterable[CheckpointSizes], accounting: str = PER_CHECKPOINT_COPY) -> int:
    """Bytes the store holds for ``rows``: checkpoint rows and writes, plus shared blobs counted once."""
    total, blobs = 0, {}
    for row in rows:
        total += row.stored_bytes + row.writes_bytes
        if accounting == SHARED_BLOBS:
            blobs.update(_blob_bytes(row))
    return total + sum(blobs.values())


def _blob_bytes(row: CheckpointSizes) -> dict[str, int]:
    return {c.blob_key: c.bytes for c in row.channels.values() if c.blob_key is not None}


def checkpoint_size(row: CheckpointSizes, rebuilt: dict[str, int] | None = None) -> CheckpointSize:
    """A point of the size chart: the channels the blob holds, and ``rebuilt`` delta channels' estimated sizes."""
    fields = {name: channel.bytes for name, channel in row.channels.items()}
    fields.update(rebuilt or {})
    total = sum(fields.values())
    if not fields and any(p.field is None and p.message.startswith(ENCRYPTED_BLOB) for p in row.problems):
        total = row.stored_bytes  # one encrypted value holds the whole state: its size is the state's, as stored
    return CheckpointSize(
        checkpoint_id=row.checkpoint_id,
        checkpoint_ns=row.checkpoint_ns,
        parent_checkpoint_id=row.parent_checkpoint_id,
        step=row.step,
        source=row.source,
        total_bytes=total,
        stored_bytes=row.stored_bytes,
        writes_bytes=row.writes_bytes,
        fields=fields,
        rebuilt=tuple(rebuilt or ()),
    )


def keep_newest_saved(rows: list[CheckpointSizes], keep: int, accounting: str = PER_CHECKPOINT_COPY) -> int:
    """Bytes saved if only the newest ``keep`` checkpoints of each namespace were kept."""
    by_ns: dict[str, list[CheckpointSizes]] = {}
    for row in sorted(rows, key=lambda r: r.checkpoint_id):
        by_ns.setdefault(row.checkpoint_ns, []).append(row)
    kept = [row for ns_rows in by_ns.values() for row in ns_rows[-keep:]] if keep > 0 else []
    return stored_total(rows, accounting) - stored_total(kept, accounting)


def holds_messages(channel: str) -> bool:
    """True when the active schema folds messages into ``channel``; the default schema is read from its
    source, so finding base64 does not load LangGraph's graph package."""
    from ..schema.default import active_names

    return active_names().holds_messages(channel)


def base64_in_messages(rows: Iterable[CheckpointSizes]) -> int | None:
    """Bytes of base64 image data stored inside message channels, every stored copy counted; None when a
    store flags base64 in a value without measuring its items."""
    total = 0
    for row in rows:
        for name, channel in row.channels.items():
            if not channel.holds_base64 or not holds_messages(name):
                continue
            if not channel.items:
                return None
            total += sum(item.base64_bytes for item in channel.items)
    return total


class _Field:
    """One field's running totals: stored bytes, distinct payloads, the newest root value."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.stored = 0
        self.blobs: dict[str, int] = {}
        self.items: dict[str, int] = {}  # item digest -> bytes, each distinct item once
        self.framing: dict[str, int] = {}  # value digest -> bytes that are not items
        self.newest = 0
        self.written = 0
        self.rebuilt = False
        # namespace -> (items, their bytes, their base64 bytes) of the last value seen
        self.last: dict[str, tuple[tuple, int, int]] = {}

    def add(self, ns: str, channel: ChannelSize, accounting: str) -> int:
        """Count one stored value; returns the base64 image bytes its items hold."""
        if accounting == SHARED_BLOBS and channel.blob_key is not None:
            self.blobs[channel.blob_key] = channel.bytes
        else:
            self.stored += channel.bytes
        items, items_bytes, items_base64 = channel.items, 0, 0
        seen, seen_bytes, seen_base64 = self.last.get(ns, ((), 0, 0))
        if seen and items[: len(seen)] == seen:  # an append: only the new items are new payloads
            new, items_bytes, items_base64 = items[len(seen):], seen_bytes, seen_base64
        else:
            new = items
        for item in new:
            self.items[item.digest] = item.bytes
            items_bytes += item.bytes
            items_base64 += item.base64_bytes
        self.framing[channel.digest] = channel.bytes - items_bytes
        self.last[ns] = (items, items_bytes, items_base64)
        return items_base64

    def total(self, internal: bool) -> FieldTotal:
        stored = self.stored + sum(self.blobs.values())
        unique = min(sum(self.items.values()) + sum(self.framing.values()), stored)
        return FieldTotal(self.name, stored, unique, stored - unique, self.newest, internal, self.written, self.rebuilt)


class SizeAccumulator:
    """A thread's size accounting built one checkpoint at a time (oldest first), holding totals, not rows.

    ``add`` each ``CheckpointSizes`` in (checkpoint id, namespace) order; ``result`` gives the
    ``ThreadSizes``. Memory grows with the distinct payloads and the chart's points, never with
    the items each checkpoint stores again.
    """

    def __init__(self, thread_id: str, accounting: str = PER_CHECKPOINT_COPY, keep_newest: int = 10) -> None:
        self.thread_id, self.accounting, self.keep_newest = thread_id, accounting, keep_newest
        self.fields: dict[str, _Field] = {}
        self.points: list[CheckpointSize] = []
        self.total = self.writes = 0
        self.blobs: dict[str, int] = {}
        self.newest: dict[str, deque] = {}  # namespace -> its newest ``keep_newest`` rows (bytes, blob bytes)
        self.namespaces: set[str] = set()
        self.problems: dict[str, None] = {}
        self.newest_any: CheckpointSizes | None = None
        self.newest_rebuilt: dict[str, int] = {}
        self.base64_in_messages: int | None = 0
        # per recent checkpoint: its channels' value sizes (delta channels estimated) and its writes per channel
        self.value_sizes: dict[tuple[str, str], dict[str, int]] = {}
        self.written_at: dict[tuple[str, str], dict[str, int]] = {}
        self.recent: deque = deque()

    def add(self, row: CheckpointSizes) -> None:
        self.namespaces.add(row.checkpoint_ns)
        self.total += row.stored_bytes + row.writes_bytes
        self.writes += row.writes_bytes
        blob_bytes = _blob_bytes(row) if self.accounting == SHARED_BLOBS else {}
        self.blobs.update(blob_bytes)
        newest = self.newest.setdefault(row.checkpoint_ns, deque(maxlen=max(self.keep_newest, 0)))
        if self.keep_newest > 0:
            newest.append((row.stored_bytes + row.writes_bytes, blob_bytes))
        for name, channel in row.channels.items():
            field_ = self._field(name)
            base64 = field_.add(row.checkpoint_ns, channel, self.accounting)
            if channel.holds_base64 and self.base64_in_messages is not None and holds_messages(name):
                self.base64_in_messages = self.base64_in_messages + base64 if channel.items else None
        for name, n in row.written.items():
            self._field(name).written += n
        rebuilt = self._rebuilt(row)
        if row.checkpoint_ns == "":
            self.points.append(checkpoint_size(row, rebuilt))
        if row.checkpoint_ns == "" or not self.points:
            self.newest_any, self.newest_rebuilt = row, rebuilt
        self.problems.update(dict.fromkeys(p.message for p in row.problems))

    def _field(self, name: str) -> _Field:
        field_ = self.fields.get(name)
        if field_ is None:
            field_ = self.fields[name] = _Field(name)
        return field_

    def _rebuilt(self, row: CheckpointSizes) -> dict[str, int]:
        """The app's channels this checkpoint's blob does not hold though they have a value (delta channels),
        with their size estimated: the parent's value and the writes stored against the parent."""
        parent = (row.checkpoint_ns, row.parent_checkpoint_id or "")
        sizes = dict(self.value_sizes.get(parent, {}))
        for name, n in self.written_at.get(parent, {}).items():
            if not is_internal_channel(name):
                sizes[name] = sizes.get(name, 0) + n
        for name, channel in row.channels.items():
            if not is_internal_channel(name):
                sizes[name] = channel.bytes
        key = (row.checkpoint_ns, row.checkpoint_id)
        self.value_sizes[key], self.written_at[key] = sizes, dict(row.written)
        self.recent.append(key)
        if len(self.recent) > REMEMBERED_CHECKPOINTS:
            old = self.recent.popleft()
            self.value_sizes.pop(old, None)
            self.written_at.pop(old, None)
        if any(p.field is None and p.message.startswith((CORRUPT_BLOB, ENCRYPTED_BLOB)) for p in row.problems):
            return {}  # the channels after the cut (or inside the ciphertext) are unread, not delta channels
        return {name: n for name, n in sizes.items() if name not in row.channels and n}

    def result(self) -> ThreadSizes:
        newest = self.newest_any.channels if self.newest_any is not None else {}
        for name, field_ in self.fields.items():
            field_.newest = newest[name].bytes if name in newest else self.newest_rebuilt.get(name, 0)
            field_.rebuilt = name in self.newest_rebuilt
        fields = sorted((f.total(is_internal_channel(f.name)) for f in self.fields.values()),
                        key=lambda t: (-(t.stored_bytes + t.written_bytes), t.field))
        stored = self.total + sum(self.blobs.values())
        kept_blobs: dict[str, int] = {}
        kept = 0
        for rows in self.newest.values():
            for row_bytes, blob_bytes in rows:
                kept += row_bytes
                kept_blobs.update(blob_bytes)
        viewed = next((f for f in fields if f.field == VIEWED_IMAGES), None)
        root = self.points
        return ThreadSizes(
            thread_id=self.thread_id,
            accounting=self.accounting,
            checkpoints=root,
            fields=fields,
            stored_bytes=stored,
            writes_bytes=self.writes,
            first_total_bytes=root[0].total_bytes if root else 0,
            last_total_bytes=root[-1].total_bytes if root else 0,
            growth_bytes=(root[-1].total_bytes - root[0].total_bytes) if root else 0,
            repeated_bytes=sum(f.repeated_bytes for f in fields),
            what_if=WhatIf(self.keep_newest, stored - kept - sum(kept_blobs.values()),
                           viewed.repeated_bytes if viewed else 0, self.base64_in_messages,
                           current_knows(pieces.VIEWED_IMAGES, None)),
            namespaces=len(self.namespaces),
            problems=list(self.problems),
        )


def thread_sizes(thread_id: str, rows: list[CheckpointSizes], accounting: str = PER_CHECKPOINT_COPY,
                 keep_newest: int = 10) -> ThreadSizes:
    """Size accounting for one thread from its ``field_sizes`` rows (every namespace; chart: the root graph)."""
    accumulator = SizeAccumulator(thread_id, accounting, keep_newest)
    for row in sorted(rows, key=lambda r: (r.checkpoint_id, r.checkpoint_ns)):
        accumulator.add(row)
    return accumulator.result()


@reads_thread
def measure_thread(store: Store, thread_id: str, keep_newest: int = 10, cache: AnalysisCache | None = None,
                   progress: Progress | None = None) -> ThreadSizes:
    """Read a thread's stored sizes (each checkpoint blob once, nothing decoded; measured checkpoints
    from ``cache``) and account for them."""
    accumulator = SizeAccumulator(thread_id, store.size_accounting, keep_newest)
    for row in sizes_stream(store, thread_id, cache, progress):
        accumulator.add(row)
    return accumulator.result()
