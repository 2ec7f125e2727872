"""Bringing a store's search index up to date, reading only the threads written since it last was.

The index notes, per store, the greatest checkpoint id and the count of checkpoint rows the store held when it
was last brought up to date (the cut), and per thread its newest checkpoint id and rows. A search first reads
from the store's keys, in one statement, the threads holding an id past the cut and the store's count of rows
(``Store.thread_heads``). Those threads' growth plus the rows held at the cut must make the store's count:
then nothing else changed, and only they are read. Otherwise (a thread pruned or deleted, rows copied in with
older ids) every thread's head is compared with what the index holds: threads gone are dropped from it, threads
changed are read again.

A thread is read as its profile names its fields (``profiles.searched``): the writes stored against its root
checkpoints since it was last read (what each step wrote: a text appears in the checkpoint its step made, the
child of the one the write is stored against; the newest checkpoint's own writes are pending and wait for the
next time), then the state of its newest root checkpoint, for what no write holds (``update_state``, imports and
copies store few writes) and for its title; those are placed at the newest checkpoint. Each text is kept once
per thread, at the first step it was read at. Values a thread stores encrypted (``EncryptedSerializer``) are never
kept in the index, decrypted or not: such a thread is found by its ids and metadata alone.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cache.search import Indexed, IndexRow
from ..profiles import reading_for
from ..profiles.searched import decoded_fields, searched_fields
from ..store import Store, StoreError, is_internal_channel
from ..store.encryption import encrypted_met
from .texts import Found, digest, field_texts, index_mask, masked, metadata_text, values_texts

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Refreshed:
    """What bringing the index up to date read: the threads read, those left to read (stopped at the time
    budget: the next search goes on), how many threads the store holds, and whether every thread's head had to
    be compared (``whole``)."""

    read: int
    left: int
    threads: int
    whole: bool
    seconds: float

    @property
    def done(self) -> bool:
        return self.left == 0


def changed_threads(store: Store, cache: Any, identity: str) -> tuple[dict[str, tuple[str, int]], dict[str, Indexed],
                                                                       list[str], Any, bool]:
    """``(threads to read with their head and rows, what the index holds of them, threads gone, the store's
    heads, whole)``: see the module's docstring."""
    held = cache.search_cut(identity)
    if held is not None:
        cut, rows = held
        heads = store.thread_heads(cut) if cut is not None else store.thread_heads(None)
        indexed = cache.indexed_threads(identity, list(heads.threads))
        grown = sum(n - (indexed[t].rows if t in indexed else 0) for t, (_, n) in heads.threads.items())
        if cut is not None and rows + grown == heads.rows:
            changed = {t: h for t, h in heads.threads.items()
                       if t not in indexed or (indexed[t].head, indexed[t].rows) != h}
            return changed, indexed, [], heads, False
    heads = store.thread_heads(None)
    indexed = cache.indexed_threads(identity)
    gone = [t for t in indexed if t not in heads.threads]
    changed = {t: h for t, h in heads.threads.items() if t not in indexed or (indexed[t].head, indexed[t].rows) != h}
    return changed, indexed, gone, heads, True


def bring_up_to_date(store: Store, cache: Any, progress: Progress | None = None,
                     budget_seconds: float | None = None) -> Refreshed:
    """Read the threads written since the index was last brought up to date (see the module's docstring);
    ``budget_seconds``: stop after about that long (``done`` False; what was read is kept)."""
    started = time.monotonic()
    identity = store.fact_identity()
    changed, indexed, gone, heads, whole = changed_threads(store, cache, identity)
    cache.forget_threads(identity, gone)
    mask = index_mask()
    order = sorted(changed, key=lambda t: changed[t][0], reverse=True)  # the newest first: what a person looks for
    added = 0
    for done, thread in enumerate(order):
        if budget_seconds is not None and time.monotonic() - started > budget_seconds:
            cache.bound(identity, added)
            return Refreshed(done, len(order) - done, len(heads.threads), whole, time.monotonic() - started)
        if progress is not None:
            progress(done, len(order))
        head, rows = changed[thread]
        added += index_thread(store, cache, identity, thread, indexed.get(thread), head, rows, mask)
    if order or gone or whole or cache.search_cut(identity) is None:
        cache.set_search_cut(identity, heads.cut, heads.rows)
    if order:
        cache.bound(identity, added)
    if progress is not None and order:
        progress(len(order), len(order))
    return Refreshed(len(order), 0, len(heads.threads), whole, time.monotonic() - started)


def _channels_of_interest(fields: dict[str, str], strings: bool) -> Callable[[str], bool]:
    return lambda channel: channel in fields or (strings and not is_internal_channel(channel))


def index_thread(store: Store, cache: Any, identity: str, thread: str, before: Indexed | None, head: str, rows: int,
                 mask: Any) -> int:
    """Read one thread's new checkpoints' metadata, its new writes and its newest root state into the index (see
    the module's docstring); a thread the store cannot read is noted as read, holding nothing. Returns about how
    many bytes the index grew by."""
    try:
        keys = store.timeline_keys(thread)
    except StoreError:
        return cache.index_thread(identity, thread, Indexed(head, rows, None), [], [])
    root = {r.checkpoint_id: r for r in keys if r.checkpoint_ns == ""}
    if not root:
        return cache.index_thread(identity, thread, Indexed(head, rows, None), [], [])
    newest = max(root)
    profile = reading_for(store, thread, rows=keys, cache=cache).profile
    fields, strings = searched_fields(profile), profile.searches_strings
    wanted = _channels_of_interest(fields, strings)
    child: dict[str, str] = {}
    for cid in sorted(root):
        parent = root[cid].parent_checkpoint_id
        if parent is not None and parent not in child:
            child[parent] = cid
    upto = before.upto if before is not None else None
    read_from = [cid for cid, row in sorted(root.items()) if cid != newest and cid in child
                 and (upto is None or cid >= upto) and any(wanted(c) for c in row.write_channels)]
    seen = cache.written_digests(identity, thread) if before is not None else set()
    written: list[IndexRow] = []
    state: list[IndexRow] = []
    plain, met = 0, encrypted_met()
    try:
        for row in _with_metadata(store, thread, [r for cid, r in sorted(root.items()) if upto is None or cid >= upto]):
            text = metadata_text(row.metadata, mask)
            if text is not None:
                _add(written, seen, [Found("metadata", "metadata", text)], row.checkpoint_id, row.step, "write", mask)
        plain, met = len(written), encrypted_met()  # metadata is never encrypted; values may be
        for cid, records in store.iter_writes(thread, "", read_from) if read_from else ():
            at = child[cid]
            for record in records:
                if wanted(record.channel):
                    value = mask({record.channel: record.value}).get(record.channel)  # under a secret's name: masked
                    _add(written, seen, field_texts(record.channel, fields.get(record.channel), value, strings),
                         at, root[at].step, "write", mask)
        found = next(iter(store.iter_states(thread, "", [newest], channels=decoded_fields(profile))), None)
        if found is not None:
            _add(state, set(seen), values_texts(mask(found.values), fields, strings), newest, root[newest].step, "state",
                 mask)
    except StoreError:
        pass
    if encrypted_met() != met:  # values stored encrypted: their text (decrypted or not) is never kept in the index
        written, state = written[:plain], []
    return cache.index_thread(identity, thread, Indexed(head, rows, newest), written, state)


def _with_metadata(store: Store, thread: str, rows: list[Any]) -> list[Any]:
    """``rows`` with their metadata (read for those a backend listed by their keys only), oldest first."""
    keyed = [(r.checkpoint_ns, r.checkpoint_id) for r in rows if r.keys_only]
    if not keyed:
        return rows
    full = {r.checkpoint_id: r for r in store.checkpoint_rows(thread, keyed)}
    return [full.get(r.checkpoint_id, r) if r.keys_only else r for r in rows]


def _add(rows: list[IndexRow], seen: set[str], texts: list[Found], checkpoint: str, step: int | None, origin: str,
         mask: Any) -> None:
    for text in texts:
        shown = masked(text.text, mask)
        key = digest(text.kind, shown)
        if key in seen:
            continue
        seen.add(key)
        rows.append(IndexRow(checkpoint, step, text.field, text.kind, origin, key, shown))
