"""The detection cache: each thread's chosen profile, remembered for ``CHOSEN_SECONDS`` per store and
operator's word, so a look at a thread chooses once; the store's tally of its newest threads' own choices
(``store_tally``), for a thread that shows no app of its own; and the choices of a page of the thread list
(``listed_readings``), from the analysis cache where it holds each thread's facts."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from .choosing import choose, named_profile
from .facts import ThreadFacts, facts_of, newest_holdings, thread_facts
from .profile import Reading, profiles
from .store_context import SAMPLE, StoreTally

_chosen: dict[tuple[Any, ...], tuple[float, Reading]] = {}
_own: dict[tuple[Any, ...], Reading] = {}  # (store, thread, newest root checkpoint) -> its own evidence's choice
_tallies: dict[str, tuple[float, StoreTally | None]] = {}
_CHOSEN_MAX = 4096
_OWN_MAX = 20_000
CHOSEN_SECONDS = 60.0  # a thread's profile is read again after this long (a running thread may show more)


def _identity(store: Any) -> str:
    return str(getattr(store, "identity", id(store)))


def _remember(found: dict, key: tuple[Any, ...], value: Any, limit: int) -> None:
    if len(found) >= limit:
        found.clear()
    found[key] = value


def reading_for(store: Any, thread_id: str, named: str | None = None, rows: list[Any] | None = None,
                cache: Any = None) -> Reading:
    """The profile ``thread_id`` is read with (remembered for ``CHOSEN_SECONDS``); ``rows``: the thread's
    checkpoint rows when the caller has read them; ``cache``: the analysis cache (see ``thread_facts``).
    A thread whose own evidence shows no app is read like the store's other threads when they agree and
    nothing in it contradicts them (``store_tally``)."""
    named = named if named is not None else named_profile()
    key = (_identity(store), thread_id, named)
    found = _chosen.get(key)
    now = time.monotonic()
    if found is None or now - found[0] > CHOSEN_SECONDS:
        facts = thread_facts(store, thread_id, rows, cache)
        chosen = choose(facts, named)
        if not named and not chosen.is_app():
            tally = store_tally(store, cache)
            if tally is not None:
                chosen = choose(facts, named, tally)
        found = (now, chosen)
        _remember(_chosen, key, found, _CHOSEN_MAX)
    return found[1]


def own_reading(store: Any, thread_id: str, newest: str | None, cache: Any = None) -> Reading:
    """The profile ``thread_id``'s own evidence shows (no operator's word, no store context), from what its
    newest root checkpoint ``newest`` holds; remembered per checkpoint."""
    return _own_choices(store, [(thread_id, newest)], cache)[thread_id][1]


def _own_choices(store: Any, keys: list[tuple[str, str | None]],
                 cache: Any) -> dict[str, tuple[ThreadFacts, Reading]]:
    """Each thread's facts and own choice, for ``(thread id, newest root checkpoint id)`` pairs: remembered,
    else read together (``newest_holdings``: the analysis cache, then one store read for the rest)."""
    identity = _identity(store)
    out: dict[str, tuple[ThreadFacts, Reading]] = {}
    missing = []
    for thread_id, newest in keys:
        found = _own.get((identity, thread_id, newest)) if newest else None
        if found is not None:
            out[thread_id] = found
        elif newest:
            missing.append((thread_id, newest))
        else:  # no root checkpoint listed: the thread's own keys say what it has
            facts = thread_facts(store, thread_id, cache=cache)
            out[thread_id] = (facts, choose(facts, named=""))
    held = newest_holdings(store, missing, cache) if missing else {}
    for thread_id, newest in missing:
        facts = facts_of(store, thread_id, held.get(thread_id))
        out[thread_id] = (facts, choose(facts, named=""))
        if thread_id in held:
            _remember(_own, (identity, thread_id, newest), out[thread_id], _OWN_MAX)
    return out


def store_tally(store: Any, cache: Any = None) -> StoreTally | None:
    """How the store's ``SAMPLE`` newest threads are read by their own evidence (remembered for
    ``CHOSEN_SECONDS``); None when the store cannot list its threads."""
    from ..store import StoreError

    identity = _identity(store)
    found = _tallies.get(identity)
    now = time.monotonic()
    if found is not None and now - found[0] <= CHOSEN_SECONDS:
        return found[1]
    try:
        listed = store.threads(limit=SAMPLE, sort="newest")
        choices = _own_choices(store, [(s.thread_id, s.newest_checkpoint_id) for s in listed], cache)
        counts: dict[str, int] = {}
        for _, chosen in choices.values():
            counts[chosen.name] = counts.get(chosen.name, 0) + 1
        tally = StoreTally(len(listed), counts, {p.name: p.title for p in profiles()})
    except StoreError:
        tally = None
    _remember(_tallies, identity, (now, tally), _CHOSEN_MAX)
    return tally


def listed_readings(store: Any, summaries: Iterable[Any], cache: Any = None) -> dict[str, Reading]:
    """``thread id -> Reading`` for a page of the thread list (``ThreadSummary`` rows), as each thread's own
    evidence shows it (what its newest root checkpoint holds: from the analysis cache where it holds it, the
    rest in one read), the store's tally for those showing none, the operator's word over all. A page that
    cannot be read raises ``StoreError``."""
    named = named_profile()
    identity = _identity(store)
    now = time.monotonic()
    out: dict[str, Reading] = {}
    keys = []
    for summary in summaries:
        remembered = _chosen.get((identity, summary.thread_id, named))
        if remembered is not None and now - remembered[0] <= CHOSEN_SECONDS:
            out[summary.thread_id] = remembered[1]
        else:
            keys.append((summary.thread_id, summary.newest_checkpoint_id))
    choices = _own_choices(store, keys, cache) if keys else {}
    weak = [thread_id for thread_id, (_, chosen) in choices.items() if not named and not chosen.is_app()]
    tally = store_tally(store, cache) if weak else None
    for thread_id, (facts, chosen) in choices.items():
        if named:
            chosen = choose(facts, named)
        elif thread_id in weak and tally is not None:
            chosen = choose(facts, "", tally)
        out[thread_id] = chosen
        _remember(_chosen, (identity, thread_id, named), (now, chosen), _CHOSEN_MAX)
    return out


def forget(store: Any, thread_id: str) -> None:
    """Choose ``thread_id``'s profile again on its next reading (after Refresh)."""
    identity = _identity(store)
    for key in [k for k in _chosen if k[:2] == (identity, thread_id)]:
        _chosen.pop(key, None)
    _tallies.pop(identity, None)
