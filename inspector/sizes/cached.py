"""A thread's per-checkpoint sizes, read from the analysis cache where known and from the store otherwise.

``sizes_stream`` yields the same ``CheckpointSizes`` as ``Store.iter_field_sizes``
(every namespace, ordered by checkpoint id; with a cache, a value the mask touches
fingerprinted by a mark: ``size_facts.hide``), but a checkpoint measured before is
read from the cache, so a second look at a thread reads no blob, and a look after
ten new checkpoints reads ten.

The facts (``size_facts``) hold only numbers, sealed fingerprints and labels (list positions, map keys such as
image paths, problem texts the inspector wrote). A checkpoint with a map key the redaction rules would mask
is not stored, and is measured again on every look, so no secret reaches the cache; a value the mask touches
keeps no fingerprint. Facts are those of the store as it is now (``Store.fact_identity``) and of each
checkpoint at its current stored length; a fact of another shape, or one that does not fit its parent, is
measured again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ..analysis_cache import AnalysisCache
from ..profiles import keys_read
from ..safety.redaction import redactor_for
from ..store import CheckpointSizes, Store
from ..store.model import Key
from .size_facts import MaskedValues, decode, encode, hide, needs_parent, storable, valid

KIND = "sizes/4"
WINDOW = 64  # a fact may name items of a parent up to this many checkpoints back
FLUSH_EVERY = 256

Progress = Callable[[int, int], None]


def _usable(order: list[Key], facts: dict[Key, Any], lengths: dict[Key, int]) -> set[Key]:
    """Cached facts that can be read back: of the right shape and length, self-contained or whose parent is
    readable and near."""
    position = {key: i for i, key in enumerate(order)}
    usable: set[Key] = set()
    for i, key in enumerate(order):
        fact = facts.get(key)
        if fact is None or not valid(fact) or fact[8] != lengths.get(key):
            continue
        parent = (key[0], fact[0])
        if not needs_parent(fact) or (parent in usable and i - position[parent] <= WINDOW):
            usable.add(key)
    return usable


def _decoded(thread_id: str, key: Key, fact: list[Any], parent: CheckpointSizes | None) -> CheckpointSizes | None:
    try:
        return decode(thread_id, key, fact, parent)
    except (KeyError, IndexError, ValueError, TypeError, AttributeError):  # a fact that does not fit its parent
        return None


def sizes_stream(store: Store, thread_id: str, cache: AnalysisCache | None = None,
                 progress: Progress | None = None) -> Iterator[CheckpointSizes]:
    """Every checkpoint's sizes, oldest first; measured ones come from ``cache``, new ones are stored in it.
    The thread's keys are those its profile reading read, when it read them (``profiles.keys_read``)."""
    keys = keys_read(store, thread_id)
    if keys is None:
        keys = store.timeline_keys(thread_id)
    lengths = {(r.checkpoint_ns, r.checkpoint_id): r.stored_bytes for r in keys}
    order = sorted(lengths, key=lambda k: (k[1], k[0]))
    identity = store.fact_identity() if cache is not None else ""
    facts = cache.get(identity, thread_id, KIND, order) if cache is not None else {}
    usable = _usable(order, facts, lengths)
    held = set(facts)  # facts measured again replace what was held (the wrong shape, another length)
    missing = [key for key in order if key not in usable]
    masked = MaskedValues(redactor_for) if cache is not None else None
    measure = {"inspect": masked} if masked is not None else {}
    fresh = store.iter_field_sizes(thread_id, None, keys=missing, **measure) if missing else iter(())
    recent: dict[Key, CheckpointSizes] = {}
    new: dict[Key, list[Any]] = {}
    for done, key in enumerate(order, start=1):
        fact = facts.pop(key, None)
        row = None
        if key in usable:
            parent = (key[0], fact[0])  # type: ignore[index]
            if parent in recent or not needs_parent(fact):  # type: ignore[arg-type]
                row = _decoded(thread_id, key, fact, recent.get(parent))  # type: ignore[arg-type]
            if row is None:  # its parent went missing from the store since the keys were read, or it does not fit it
                row = next(store.iter_field_sizes(thread_id, None, keys=[key], **measure), None)
                if row is None:
                    continue
                fresh_row = True
            else:
                fresh_row = False
        else:
            row = next(fresh, None)
            if row is None or (row.checkpoint_ns, row.checkpoint_id) != key:
                continue  # gone from the store since the keys were read
            fresh_row = True
        if fresh_row and masked is not None:
            row = hide(row, masked.touched)
            if storable(row, masked.redactor):
                new[key] = encode(row, recent.get((key[0], row.parent_checkpoint_id)), lengths[key])
        recent[key] = row
        if len(recent) > WINDOW + 1:
            del recent[next(iter(recent))]
        if cache is not None and len(new) >= FLUSH_EVERY:
            cache.put(identity, thread_id, KIND, new, replacing=held.intersection(new))
            new = {}
        if progress is not None:
            progress(done, len(order))
        yield row
    if cache is not None:
        cache.put(identity, thread_id, KIND, new, replacing=held.intersection(new))
