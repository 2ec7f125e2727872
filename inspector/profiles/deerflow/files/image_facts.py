"""A lineage's image spans, from entry facts kept in the analysis cache where known and decoded otherwise.

``cached_image_spans`` returns what ``image_spans(field_history(..., "viewed_images"))``
returns, but a checkpoint whose ``viewed_images`` was read before is not decoded
again: its entries' facts (path, content fingerprint, base64 chars, whether it is
a file reference) come from the cache. Only checkpoints where the channel may
change are looked at (``changing_ids``); the rest carry their parent's entries.

A fact never holds an entry's base64 or any other value, only its fingerprint
(sealed by the cache: ``fact_fingerprints``). A path is the one text kept; a checkpoint
with a path the redaction rules would mask, or with an entry the mask touches (a small
entry whose masked rendering differs, an entry named like a secret), is not stored,
and is decoded again on every look. A cached fact of another shape is a miss.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ....analysis_cache import AnalysisCache
from ....fact_fingerprints import Fingerprint
from ....history.field_history import changing_ids, lineage
from ....safety.redaction import redactor_for
from ....safety.secret_names import is_secret_key
from ....store import CheckpointRow, Store
from ....store.measure import INSPECT_MAX_BYTES
from ....store.model import Key
from .image_history import EntryFact, ImageSpan, entry_facts, spans_from_facts

KIND = "images/1"  # a new name when what ``entry_facts`` or ``fingerprint`` compute changes
FIELD = "viewed_images"
FLUSH_EVERY = 256


def _storable(entries: list[EntryFact], value: Any, redactor: Any) -> bool:
    """True when no path holds text the redaction rules would mask and the mask touches no entry (one named like
    a secret, or a small one whose masked rendering differs: its fingerprint could be checked against guesses)."""
    if not all(redactor.text(path) == path for path, *_ in entries):
        return False
    if not isinstance(value, dict):
        return True
    chars = {path: n for path, _, n, _ in entries}
    return not any(_masked(path, entry, chars.get(str(path), 0), redactor) for path, entry in value.items())


def _masked(path: Any, entry: Any, base64_chars: int, redactor: Any) -> bool:
    if is_secret_key(path):
        return True
    if base64_chars > INSPECT_MAX_BYTES:  # an image's data: too long for its fingerprint to be guessed
        return False
    try:
        small = len(json.dumps(entry, default=str)) <= INSPECT_MAX_BYTES
    except (TypeError, ValueError, RecursionError):
        return True
    return small and redactor(entry) != entry


def _valid(fact: Any) -> bool:
    """Whether a cached fact has the shape ``_encoded`` writes."""
    return type(fact) is list and all(
        type(e) is list and len(e) == 4 and type(e[0]) is str and type(e[1]) is str and type(e[2]) is int
        and type(e[3]) is bool for e in fact)


def _encoded(entries: list[EntryFact]) -> list[Any]:
    return [[path, Fingerprint(digest), chars, reference] for path, digest, chars, reference in entries]


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
    identity = store.fact_identity() if cache is not None else ""
    known: dict[Key, Any] = cache.get(identity, thread_id, KIND, keys) if cache is not None else {}
    facts = {cid: _compact(fact) for (_, cid), fact in known.items() if _valid(fact)}
    wrong = [key for key, fact in known.items() if key[1] not in facts]  # replaced by what is decoded again
    missing = {cid for _, cid in keys if cid not in facts}
    if missing:
        redactor = redactor_for()
        new: dict[Key, list[Any]] = {}
        for state in store.iter_states(thread_id, ns, checkpoint_ids=missing, channels=[FIELD]):
            value = state.values.get(FIELD)
            entries = _compact(entry_facts(value))
            facts[state.checkpoint_id] = entries
            if cache is not None and _storable(entries, value, redactor):
                new[(ns, state.checkpoint_id)] = _encoded(entries)
                if len(new) >= FLUSH_EVERY:
                    cache.put(identity, thread_id, KIND, new, replacing=wrong)
                    new = {}
        if cache is not None:
            cache.put(identity, thread_id, KIND, new, replacing=wrong)
    # a changing checkpoint gone from the store since the timeline was read holds no entry, as field_history says
    return spans_from_facts((row, facts.get(row.checkpoint_id, []) if row.checkpoint_id in changing else None)
                            for row in chain)
