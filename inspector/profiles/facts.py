"""What a thread shows of the app that wrote it, read from the store without decoding any value:
``ThreadFacts`` and ``thread_facts``, the evidence profiles are chosen by.

Whatever wrote a thread (a graph run, ``update_state``, an import, a copy, a saver's ``put``, an old
saver), its newest checkpoint holds its channels: their names, the channels LangGraph versioned, and the
shapes of their values (``store.shapes``), read by their headers with a bound (``Store.checkpoint_shapes``,
one small read). Those, the channels its stored writes name and the metadata of its first and newest root
checkpoints are a thread's facts. What a checkpoint holds never changes, so it is kept in the analysis cache
under the checkpoint (``EVIDENCE_KIND``), never a value's text: names, shapes and the metadata markers
profiles read. The thread list reads a page of threads' newest checkpoints at once (``newest_holdings``).
"""

from __future__ import annotations

import contextlib
import weakref
from typing import Any

from ..store.shapes import CheckpointShapes
from .fact_model import ThreadFacts

# The timeline keys ``thread_facts`` read for a choice, handed to the ``reading`` that asked for it (and
# through it to the analyses inside: ``keys_read``), so a look at a thread reads its keys once.
keys_read_for_choice: dict[tuple[str, str], list[Any]] = {}

EVIDENCE_KIND = "holdings/1"  # analysis-cache facts: what a checkpoint holds (names, shapes, metadata markers)
CHANNELS_KIND = EVIDENCE_KIND  # the name this kind had when it held the channel names alone
_MARKER_CHARS = 64  # a metadata marker's text value kept in the cache up to this length


def _identity(store: Any) -> str:
    return str(getattr(store, "identity", id(store)))


def _marker_keys() -> frozenset[str]:
    from .profile import profiles

    return frozenset(key for profile in profiles() for key in profile.evidence.markers)


def _markers(meta: Any, keys: frozenset[str]) -> dict[str, Any]:
    """The metadata keys profiles read, with a value only where it is a short scalar (else True)."""
    if not isinstance(meta, dict):
        return {}
    kept: dict[str, Any] = {}
    for key in keys & {k for k in meta if isinstance(k, str)}:
        value = meta[key]
        if value is None:
            continue
        short = isinstance(value, (bool, int, float)) or (isinstance(value, str) and len(value) <= _MARKER_CHARS)
        kept[key] = value if short else True
    return kept


def _as_fact(found: CheckpointShapes) -> dict[str, Any]:
    return {**found.as_data(), "metadata": _markers(found.metadata, _marker_keys())}


def _from_fact(data: Any) -> CheckpointShapes | None:
    found = CheckpointShapes.from_data(data)
    if found is None:
        return None
    meta = data.get("metadata")
    return CheckpointShapes(found.held, found.versioned, found.shapes, meta if isinstance(meta, dict) else {},
                            found.problem)


def newest_holdings(store: Any, keys: list[tuple[str, str]], cache: Any = None) -> dict[str, CheckpointShapes]:
    """``thread id -> what its newest root checkpoint holds`` for ``(thread id, newest root checkpoint id)``
    pairs: from the analysis ``cache`` where it holds them, the others in one ``Store.checkpoint_shapes`` read,
    then kept in ``cache`` (names, shapes and the metadata markers profiles read: no value's text). A
    checkpoint the store cannot read is left out. Raises ``StoreError`` when the store cannot be read."""
    # facts are keyed by what the store itself holds (a file replaced at the same path is another store)
    identity = str(store.fact_identity()) if cache is not None and hasattr(store, "fact_identity") else _identity(store)
    found: dict[str, CheckpointShapes] = {}
    if cache is not None:
        if hasattr(cache, "get_threads"):
            facts = cache.get_threads(identity, EVIDENCE_KIND, [(t, "", newest) for t, newest in keys])
        else:
            facts = {(t, "", n): f for t, n in keys for f in cache.get(identity, t, EVIDENCE_KIND, [("", n)]).values()}
        for (thread_id, _, _), fact in facts.items():
            held = _from_fact(fact)
            if held is not None:
                found[thread_id] = held
    missing = [(thread_id, "", newest) for thread_id, newest in keys if thread_id not in found]
    if not missing:
        return found
    read = store.checkpoint_shapes(missing)
    for (thread_id, _, _), held in read.items():
        found[thread_id] = held
    if cache is not None and read:
        facts = {key: _as_fact(held) for key, held in read.items()}
        if hasattr(cache, "put_threads"):
            cache.put_threads(identity, EVIDENCE_KIND, facts)
        else:
            for (thread_id, ns, newest), fact in facts.items():
                cache.put(identity, thread_id, EVIDENCE_KIND, {(ns, newest): fact})
    return found


def _store_names(store: Any) -> tuple[str, str]:
    """The store's URL and file name (SQLite), read once per store object."""
    try:
        found = _names.get(store)
    except TypeError:  # a store that cannot be weakly referenced
        found = None
    if found is None:
        from pathlib import Path

        path = getattr(store, "path", None)
        found = (str(getattr(store, "url", "") or ""), Path(path).name if path else "")
        with contextlib.suppress(TypeError):
            _names[store] = found
    return found


_names: weakref.WeakKeyDictionary[Any, tuple[str, str]] = weakref.WeakKeyDictionary()


def facts_of(store: Any, thread_id: str, held: CheckpointShapes | None, written: set[str] | None = None,
             metadata: tuple[dict[str, Any], ...] = ()) -> ThreadFacts:
    """A thread's facts from what its newest root checkpoint holds (``held``), the channels its writes name
    and the metadata read besides (its first root checkpoint's)."""
    url, store_file = _store_names(store)
    channels = frozenset(written or ())
    if held is None:
        return ThreadFacts(thread_id, url, store_file, channels, metadata)
    meta = (held.metadata,) if held.metadata else ()
    return ThreadFacts(thread_id, url, store_file, channels | held.channels, meta + metadata, dict(held.shapes),
                       frozenset(held.held), held.problem)


def thread_facts(store: Any, thread_id: str, rows: list[Any] | None = None, cache: Any = None,
                 newest: str | None = None) -> ThreadFacts:
    """A thread's facts: what its newest root checkpoint holds (``newest_holdings``: channels, shapes and
    metadata, from the analysis ``cache`` when it holds them), the channels its checkpoints' writes name and
    the metadata of its first root checkpoint, from ``rows`` (``Store.timeline_keys`` or fuller rows) when
    the caller has read them, else read. Without ``rows``, ``newest`` (the newest root checkpoint's id, as the
    thread list has it) is enough: the facts are then those of that checkpoint alone."""
    from ..store import StoreError

    try:
        if rows is None and newest is not None:
            return facts_of(store, thread_id, newest_holdings(store, [(thread_id, newest)], cache).get(thread_id))
        if rows is not None:
            rows = list(rows)
        else:
            rows = store.timeline_keys(thread_id)
            keys_read_for_choice[(_identity(store), thread_id)] = rows
    except StoreError:
        return facts_of(store, thread_id, None)
    root = sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id, reverse=True)
    written = {channel for row in root for channel in row.write_channels}
    if not root:
        return facts_of(store, thread_id, None, written)
    newest_row, oldest_row = root[0], root[-1]
    metadata: tuple[dict[str, Any], ...] = ()
    held = None
    try:
        held = newest_holdings(store, [(thread_id, newest_row.checkpoint_id)], cache).get(thread_id)
        if oldest_row is not newest_row:
            if getattr(oldest_row, "keys_only", False):
                metadata = tuple(r.metadata for r in store.checkpoint_rows(thread_id, [("", oldest_row.checkpoint_id)]))
            else:
                metadata = (oldest_row.metadata,)
    except StoreError:
        pass
    if held is not None and not getattr(newest_row, "keys_only", False) and newest_row.metadata:
        held = CheckpointShapes(held.held, held.versioned, held.shapes, newest_row.metadata, held.problem)
    return facts_of(store, thread_id, held, written, metadata)
