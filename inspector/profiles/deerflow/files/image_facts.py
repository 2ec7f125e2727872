"""A lineage's image spans, from entry facts kept in the analysis cache where known and decoded otherwise.

``cached_image_spans`` returns what ``image_spans(field_history(..., "viewed_images"))``
returns, but a checkpoint whose ``viewed_images`` was read before is not decoded
again: its entries' facts (path, content fingerprint, base64 chars, whether it is
a file reference) come from the cache. Only checkpoints where the channel may
change are looked at (``changing_ids``); the rest carry their parent's entries.

A fact never holds an entry's base64 or any other value, only its fingerprint.
A path is the one text kept; a checkpoint with a path the redaction rules would
mask is not stored, and is decoded again on every look.
"""

from __future__ import annotations

import sys
from typing import Any

from ....analysis_cache import AnalysisCache
from ....history.field_history import changing_ids, lineage
from ....safety.redaction import redactor_for
from ....store import CheckpointRow, Store
from ....store.model import Key
from .image_history import EntryFact, ImageSpan, entry_facts, spans_from_facts

KIND = "images/1"  # a new name when what ``entry_facts`` or ``fingerprint`` compute changes
FIELD = "viewed_images"
FLUSH_EVERY = 256


def _storable(entries: list[EntryFact], redactor: Any) -> bool:
    """True when no path holds text the redaction rules would mask."""
    return all(redactor.text(path) == path for path, *_ in entries)


def _compact(entries: list[Any]) -> list[EntryFact]:
    """Entries as tuples whose paths and fingerprints are shared between checkpoints (an entry is
    often carried for a thread's whole life): memory grows with the images, not their repetitions."""
    return [(sys.intern(path), sys.intern(digest), chars, reference) for path, digest, chars, reference in entries]


def cached_image_spans(store: Store, thread_id: str, checkpoint_id: str | None = None, ns: str = "",
                       rows: list[CheckpointRow] | None = None,
                       cache: AnalysisCache | None = None) -> list[ImageSpan]:
    """Every image's span along the lineage ending at ``checkpoint_id``; facts not in ``cache`` are
    decoded (the one channel, streamed) and stored in it."""
    chain = lineage(rows if rows is not None else store.timeline(thread_id), checkpoint_id, ns)
    changing = changing_ids(chain, FIELD)
    keys: list[Key] = [(ns, row.checkpoint_id) for row in chain if row.checkpoint_id in changing]
    known: dict[Key, Any] = cache.get(store.identity, thread_id, KIND, keys) if cache is not None else {}
    facts = {cid: _compact(fact) for (_, cid), fact in known.items()}
    missing = {cid for _, cid in keys if cid not in facts}
    if missing:
        redactor = redactor_for()
        new: dict[Key, list[EntryFact]] = {}
        for state in store.iter_states(thread_id, ns, checkpoint_ids=missing, channels=[FIELD]):
            entries = _compact(entry_facts(state.values.get(FIELD)))
            facts[state.checkpoint_id] = entries
            if cache is not None and _storable(entries, redactor):
                new[(ns, state.checkpoint_id)] = entries
                if len(new) >= FLUSH_EVERY:
                    cache.put(store.identity, thread_id, KIND, new)
                    new = {}
        if cache is not None:
            cache.put(store.identity, thread_id, KIND, new)
    # a changing checkpoint gone from the store since the timeline was read holds no entry, as field_history says
    return spans_from_facts((row, facts.get(row.checkpoint_id, []) if row.checkpoint_id in changing else None)
                            for row in chain)
