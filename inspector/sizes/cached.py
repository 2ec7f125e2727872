"""A thread's per-checkpoint sizes, read from the analysis cache where known and from the store otherwise.

``sizes_stream`` yields the same ``CheckpointSizes`` as ``Store.iter_field_sizes``
(every namespace, ordered by checkpoint id), but a checkpoint measured before is
read from the cache, so a second look at a thread reads no blob, and a look after
ten new checkpoints reads ten.

A cached fact holds only numbers, hashes and labels (list positions, map keys
such as image paths, problem texts the inspector wrote). A checkpoint with a map
key the redaction rules would mask is not stored, and is measured again on every
look, so no secret reaches the cache. Items a checkpoint
shares with its parent (an append-only conversation) are stored as a count, so
a fact is a few hundred bytes however long the conversation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..analysis_cache import AnalysisCache
from ..profiles import keys_read
from ..safety.redaction import redactor_for
from ..store import CheckpointSizes, Problem, Store
from ..store.measure import ChannelSize, ItemSize
from ..store.model import Key

KIND = "sizes/3"
WINDOW = 64  # a fact may name items of a parent up to this many checkpoints back
FLUSH_EVERY = 256

Progress = Callable[[int, int], None]


def _shared(items: tuple[ItemSize, ...], before: tuple[ItemSize, ...]) -> int:
    """How many leading items ``items`` shares with ``before``."""
    if before and items[: len(before)] == before:
        return len(before)
    count = 0
    for mine, theirs in zip(items, before):
        if mine != theirs:
            break
        count += 1
    return count


def encode(row: CheckpointSizes, parent: CheckpointSizes | None) -> list[Any]:
    """A checkpoint's sizes as plain data; items shared with ``parent``'s are stored as their count."""
    channels = {}
    for name, channel in row.channels.items():
        before = parent.channels.get(name) if parent is not None else None
        shared = _shared(channel.items, before.items) if before is not None else 0
        items = [[None if item.label == str(shared + i) else item.label, item.bytes, item.digest, item.base64_bytes]
                 for i, item in enumerate(channel.items[shared:])]
        channels[name] = [channel.bytes, channel.digest, channel.blob_key, shared, items, channel.holds_base64]
    problems = [[p.message, p.field, p.kind] for p in row.problems]
    return [row.parent_checkpoint_id, row.step, row.source, row.stored_bytes, row.writes_bytes, channels, problems,
            row.written]


def storable(row: CheckpointSizes, redactor: Any) -> bool:
    """True when no label of the row (map keys such as image paths) holds text the redaction rules would mask."""
    return all(item.label.isdigit() or redactor.text(item.label) == item.label
               for channel in row.channels.values() for item in channel.items)


def _needs_parent(fact: list[Any]) -> bool:
    return any(channel[3] for channel in fact[5].values())


def decode(thread_id: str, key: Key, fact: list[Any], parent: CheckpointSizes | None) -> CheckpointSizes:
    parent_id, step, source, stored, writes, channels, problems, written = fact
    out = {}
    for name, (size, digest, blob_key, shared, items, holds_base64) in channels.items():
        before = parent.channels[name].items[:shared] if shared else ()
        new = tuple(ItemSize(str(shared + i) if label is None else label, n, d, b64)
                    for i, (label, n, d, b64) in enumerate(items))
        out[name] = ChannelSize(size, digest, before + new, blob_key, holds_base64)
    return CheckpointSizes(
        thread_id=thread_id, checkpoint_ns=key[0], checkpoint_id=key[1], parent_checkpoint_id=parent_id,
        step=step, source=source, stored_bytes=stored, writes_bytes=writes, channels=out,
        problems=tuple(Problem(*p) for p in problems), written=dict(written),
    )


def _usable(order: list[Key], facts: dict[Key, list[Any]]) -> set[Key]:
    """Cached facts that can be read back: self-contained, or whose parent is readable and near."""
    position = {key: i for i, key in enumerate(order)}
    usable: set[Key] = set()
    for i, key in enumerate(order):
        fact = facts.get(key)
        if fact is None:
            continue
        parent = (key[0], fact[0])
        if not _needs_parent(fact) or (parent in usable and i - position[parent] <= WINDOW):
            usable.add(key)
    return usable


def sizes_stream(store: Store, thread_id: str, cache: AnalysisCache | None = None,
                 progress: Progress | None = None) -> Iterator[CheckpointSizes]:
    """Every checkpoint's sizes, oldest first; measured ones come from ``cache``, new ones are stored in it.
    The thread's keys are those its profile reading read, when it read them (``profiles.keys_read``)."""
    keys = keys_read(store, thread_id)
    if keys is None:
        keys = store.timeline_keys(thread_id)
    order = sorted(((r.checkpoint_ns, r.checkpoint_id) for r in keys), key=lambda k: (k[1], k[0]))
    facts = cache.get(store.identity, thread_id, KIND, order) if cache is not None else {}
    usable = _usable(order, facts)
    missing = [key for key in order if key not in usable]
    fresh = store.iter_field_sizes(thread_id, None, keys=missing) if missing else iter(())
    recent: dict[Key, CheckpointSizes] = {}
    new: dict[Key, list[Any]] = {}
    redactor = redactor_for() if cache is not None and missing else None
    for done, key in enumerate(order, start=1):
        fact = facts.pop(key, None)
        parent = (key[0], fact[0]) if fact is not None else None
        if key in usable and (parent in recent or not _needs_parent(fact)):
            row = decode(thread_id, key, fact, recent.get(parent))
        elif key in usable:  # its parent went missing from the store since the keys were read
            row = next(store.iter_field_sizes(thread_id, None, keys=[key]), None)
            if row is None:
                continue
        else:
            row = next(fresh, None)
            if row is None or (row.checkpoint_ns, row.checkpoint_id) != key:
                continue  # gone from the store since the keys were read
            if redactor is not None and storable(row, redactor):
                new[key] = encode(row, recent.get((key[0], row.parent_checkpoint_id)))
        recent[key] = row
        if len(recent) > WINDOW + 1:
            del recent[next(iter(recent))]
        if cache is not None and len(new) >= FLUSH_EVERY:
            cache.put(store.identity, thread_id, KIND, new)
            new = {}
        if progress is not None:
            progress(done, len(order))
        yield row
    if cache is not None:
        cache.put(store.identity, thread_id, KIND, new)
