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

from dataclasses import dataclass, field
from typing import Iterable

from . import schema as schemas
from .store import PER_CHECKPOINT_COPY, SHARED_BLOBS, CheckpointSizes, Store, is_internal_channel
from .units import human_bytes

VIEWED_IMAGES = "viewed_images"


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


@dataclass(frozen=True)
class FieldTotal:
    """One field across checkpoints: bytes stored, bytes of distinct payloads, bytes spent on repeats."""

    field: str
    stored_bytes: int
    unique_bytes: int
    repeated_bytes: int
    newest_bytes: int
    internal: bool


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
            blobs.update({c.blob_key: c.bytes for c in row.channels.values() if c.blob_key is not None})
    return total + sum(blobs.values())


def field_stored_bytes(rows: Iterable[CheckpointSizes], name: str, accounting: str = PER_CHECKPOINT_COPY) -> int:
    """Bytes the store holds for one field across ``rows``."""
    total, blobs = 0, {}
    for row in rows:
        channel = row.channels.get(name)
        if channel is None:
            continue
        if accounting == SHARED_BLOBS and channel.blob_key is not None:
            blobs[channel.blob_key] = channel.bytes
        else:
            total += channel.bytes
    return total + sum(blobs.values())


def field_unique_bytes(rows: Iterable[CheckpointSizes], name: str) -> int:
    """Bytes of distinct payloads of a field: each item (message, image entry) and each value's framing once."""
    items: dict[str, int] = {}
    framing: dict[str, int] = {}
    for row in rows:
        channel = row.channels.get(name)
        if channel is None:
            continue
        items.update({item.digest: item.bytes for item in channel.items})
        framing[channel.digest] = channel.bytes - sum(item.bytes for item in channel.items)
    return sum(items.values()) + sum(framing.values())


def _field_totals(rows: list[CheckpointSizes], accounting: str) -> list[FieldTotal]:
    names = dict.fromkeys(name for row in rows for name in row.channels)
    root = [row for row in rows if row.checkpoint_ns == ""] or rows
    newest = root[-1].channels if root else {}
    totals = []
    for name in names:
        stored = field_stored_bytes(rows, name, accounting)
        unique = min(field_unique_bytes(rows, name), stored)
        newest_bytes = newest[name].bytes if name in newest else 0
        totals.append(FieldTotal(name, stored, unique, stored - unique, newest_bytes, is_internal_channel(name)))
    return sorted(totals, key=lambda t: (-t.stored_bytes, t.field))


def checkpoint_size(row: CheckpointSizes) -> CheckpointSize:
    fields = {name: channel.bytes for name, channel in row.channels.items()}
    return CheckpointSize(
        checkpoint_id=row.checkpoint_id,
        checkpoint_ns=row.checkpoint_ns,
        parent_checkpoint_id=row.parent_checkpoint_id,
        step=row.step,
        source=row.source,
        total_bytes=sum(fields.values()),
        stored_bytes=row.stored_bytes,
        writes_bytes=row.writes_bytes,
        fields=fields,
    )


def keep_newest_saved(rows: list[CheckpointSizes], keep: int, accounting: str = PER_CHECKPOINT_COPY) -> int:
    """Bytes saved if only the newest ``keep`` checkpoints of each namespace were kept."""
    by_ns: dict[str, list[CheckpointSizes]] = {}
    for row in sorted(rows, key=lambda r: r.checkpoint_id):
        by_ns.setdefault(row.checkpoint_ns, []).append(row)
    kept = [row for ns_rows in by_ns.values() for row in ns_rows[-keep:]] if keep > 0 else []
    return stored_total(rows, accounting) - stored_total(kept, accounting)


def base64_in_messages(rows: Iterable[CheckpointSizes]) -> int | None:
    """Bytes of base64 image data stored inside message channels, every stored copy counted; None when a
    store flags base64 in a value without measuring its items."""
    schema = schemas.active()
    total = 0
    for row in rows:
        for name, channel in row.channels.items():
            if not channel.holds_base64 or not schema.holds_messages(name):
                continue
            if not channel.items:
                return None
            total += sum(item.base64_bytes for item in channel.items)
    return total


def what_if_lines(keep: int, keep_saved: int, images_repeated: int, base64_in_messages: int | None) -> list[str]:
    """The what-ifs in words, for the CLI and the pages."""
    return [
        f"keeping only the newest {keep} checkpoints per namespace would save {human_bytes(keep_saved)}",
        f"viewed_images copied into later checkpoints: {human_bytes(images_repeated)} (DeerFlow's main branch keeps "
        "metadata-only entries for the thread's life; only entries holding base64 make this large)",
        "base64 images stored inside messages: "
        + (f"{human_bytes(base64_in_messages)}, every checkpoint's copy counted (DeerFlow's transient image-context "
           "message; keeping image bytes out of checkpointed messages would save this)"
           if base64_in_messages is not None else "not measured on this store (values are not read item by item)"),
    ]


def thread_sizes(thread_id: str, rows: list[CheckpointSizes], accounting: str = PER_CHECKPOINT_COPY,
                 keep_newest: int = 10) -> ThreadSizes:
    """Size accounting for one thread from its ``field_sizes`` rows (every namespace; chart: the root graph)."""
    rows = sorted(rows, key=lambda r: (r.checkpoint_id, r.checkpoint_ns))
    root = [checkpoint_size(r) for r in rows if r.checkpoint_ns == ""]
    fields = _field_totals(rows, accounting)
    viewed = next((f for f in fields if f.field == VIEWED_IMAGES), None)
    return ThreadSizes(
        thread_id=thread_id,
        accounting=accounting,
        checkpoints=root,
        fields=fields,
        stored_bytes=stored_total(rows, accounting),
        writes_bytes=sum(r.writes_bytes for r in rows),
        first_total_bytes=root[0].total_bytes if root else 0,
        last_total_bytes=root[-1].total_bytes if root else 0,
        growth_bytes=(root[-1].total_bytes - root[0].total_bytes) if root else 0,
        repeated_bytes=sum(f.repeated_bytes for f in fields),
        what_if=WhatIf(keep_newest, keep_newest_saved(rows, keep_newest, accounting),
                       viewed.repeated_bytes if viewed else 0, base64_in_messages(rows)),
        namespaces=len({r.checkpoint_ns for r in rows}),
        problems=list(dict.fromkeys(p.message for r in rows for p in r.problems)),
    )


def measure_thread(store: Store, thread_id: str, keep_newest: int = 10) -> ThreadSizes:
    """Read a thread's stored sizes (each checkpoint blob once, nothing decoded) and account for them."""
    return thread_sizes(thread_id, store.field_sizes(thread_id, None), store.size_accounting, keep_newest)


@dataclass(frozen=True)
class StoreSizes:
    """The whole store: threads ranked by stored bytes, and the bytes each field accounts for."""

    accounting: str
    threads: list[ThreadSizes]
    fields: dict[str, int]
    stored_bytes: int
    repeated_bytes: int
    keep_newest_saved_bytes: int
    viewed_images_repeated_bytes: int
    base64_in_messages_bytes: int | None


def store_sizes(reports: Iterable[ThreadSizes], accounting: str = PER_CHECKPOINT_COPY) -> StoreSizes:
    ranked = sorted(reports, key=lambda r: (-r.stored_bytes, r.thread_id))
    fields: dict[str, int] = {}
    for report in ranked:
        for total in report.fields:
            fields[total.field] = fields.get(total.field, 0) + total.stored_bytes
    return StoreSizes(
        accounting=accounting,
        threads=ranked,
        fields=dict(sorted(fields.items(), key=lambda kv: (-kv[1], kv[0]))),
        stored_bytes=sum(r.stored_bytes for r in ranked),
        repeated_bytes=sum(r.repeated_bytes for r in ranked),
        keep_newest_saved_bytes=sum(r.what_if.keep_newest_saved_bytes for r in ranked),
        viewed_images_repeated_bytes=sum(r.what_if.viewed_images_repeated_bytes for r in ranked),
        base64_in_messages_bytes=None if any(r.what_if.base64_in_messages_bytes is None for r in ranked)
        else sum(r.what_if.base64_in_messages_bytes for r in ranked),
    )


def all_thread_ids(store: Store, page: int = 500) -> list[str]:
    ids: list[str] = []
    while True:
        batch = store.threads(limit=page, offset=len(ids))
        ids.extend(t.thread_id for t in batch)
        if len(batch) < page:
            return ids


def measure_store(store: Store, keep_newest: int = 10, thread_ids: list[str] | None = None) -> StoreSizes:
    """Measure every thread (or ``thread_ids``); reads each checkpoint blob once."""
    ids = all_thread_ids(store) if thread_ids is None else thread_ids
    return store_sizes([measure_thread(store, tid, keep_newest) for tid in ids], store.size_accounting)
