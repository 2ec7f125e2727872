"""The detection cache: each thread's chosen profile, remembered for ``CHOSEN_SECONDS`` per store and
operator's word, so a look at a thread chooses once."""

from __future__ import annotations

from typing import Any

from .choosing import choose, named_profile
from .facts import thread_facts
from .profile import Reading

_chosen: dict[tuple[Any, ...], tuple[float, Reading]] = {}
_CHOSEN_MAX = 256
CHOSEN_SECONDS = 60.0  # a thread's profile is read again after this long (a running thread may show more)


def reading_for(store: Any, thread_id: str, named: str | None = None, rows: list[Any] | None = None,
                cache: Any = None) -> Reading:
    """The profile ``thread_id`` is read with (remembered for ``CHOSEN_SECONDS``); ``rows``: the thread's
    checkpoint rows when the caller has read them; ``cache``: the analysis cache (see ``thread_facts``)."""
    import time

    named = named if named is not None else named_profile()
    key = (str(getattr(store, "identity", id(store))), thread_id, named)
    found = _chosen.get(key)
    now = time.monotonic()
    if found is None or now - found[0] > CHOSEN_SECONDS:
        found = (now, choose(thread_facts(store, thread_id, rows, cache), named))
        if len(_chosen) >= _CHOSEN_MAX:
            _chosen.clear()
        _chosen[key] = found
    return found[1]


def forget(store: Any, thread_id: str) -> None:
    """Choose ``thread_id``'s profile again on its next reading (after Refresh)."""
    identity = str(getattr(store, "identity", id(store)))
    for key in [k for k in _chosen if k[:2] == (identity, thread_id)]:
        _chosen.pop(key, None)
