"""Thread titles as the thread list shows them: the title in the state of each thread's newest root checkpoint
(the thread's main branch, where its next run goes on), read from the field its profile names
(``profiles.searched.title_field``; a thread whose profile names none has no title).

Only that field of that checkpoint is decoded, once: the title and the profile that read it are kept in the
analysis cache under the checkpoint (checkpoints never change), so a page of the list reads one row of the
cache per thread. A title the mask would change is not kept (``FactCache.put``), and read again next time.
"""

from __future__ import annotations

import contextlib
from typing import Any

from ..cache.facts import cache_errors
from ..profiles import named_profile, reading_for
from ..profiles.searched import title_field
from ..store import Store, StoreError, ThreadSummary
from ..store.decode import overwritten

TITLE_KIND = "title/1"


def _title_in(values: dict[str, Any], field: str) -> str | None:
    value = values.get(field)
    wrapped, inner = overwritten(value)
    value = inner if wrapped else value
    return value if isinstance(value, str) and value else None


def read_title(store: Store, thread_id: str, checkpoint_id: str, cache: Any = None) -> tuple[str, str | None]:
    """``(the profile that reads the thread, the title in the root state at checkpoint_id)``."""
    profile = reading_for(store, thread_id, cache=cache).profile
    field = title_field(profile)
    if field is None:
        return profile.name, None
    try:
        state = next(iter(store.iter_states(thread_id, "", [checkpoint_id], channels=[field])), None)
    except StoreError:
        return profile.name, None
    return profile.name, None if state is None else _title_in(state.values, field)


def state_titles(store: Store, rows: list[ThreadSummary], cache: Any = None) -> dict[str, str | None]:
    """Each listed thread's title in the state of its newest root checkpoint (see the module's docstring)."""
    return titles_at(store, {t.thread_id: t.newest_checkpoint_id for t in rows if t.newest_checkpoint_id}, cache)


def titles_at(store: Store, newest: dict[str, str], cache: Any = None) -> dict[str, str | None]:
    """``state_titles`` of threads given by their newest root checkpoint id."""
    wanted = {thread: ("", checkpoint_id) for thread, checkpoint_id in newest.items()}
    identity = None
    held: dict[str, Any] = {}
    if cache is not None and wanted:
        try:
            identity = store.fact_identity()
            held = cache.get_many(identity, TITLE_KIND, wanted)
        except cache_errors():  # a cache that cannot be read now: the titles are read from the store
            identity, held = None, {}
    named = named_profile()
    titles: dict[str, str | None] = {}
    for thread, (_, checkpoint_id) in wanted.items():
        fact = held.get(thread)
        if isinstance(fact, dict) and isinstance(fact.get("profile"), str) and named in (None, fact["profile"]) and (
                fact.get("title") is None or isinstance(fact.get("title"), str)):
            titles[thread] = fact.get("title")
            continue
        profile, title = read_title(store, thread, checkpoint_id, cache)
        titles[thread] = title
        if identity is not None and named is None:
            with contextlib.suppress(*cache_errors()):  # kept next time
                cache.put(identity, thread, TITLE_KIND, {("", checkpoint_id): {"profile": profile, "title": title}},
                          replacing=[("", checkpoint_id)] if fact is not None else [])
    return titles
