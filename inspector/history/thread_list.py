"""The thread list: one page of the store's threads with the count of all that match, and its rows as
plain records (what the Threads page and the ``threads`` command show; ``threads --json`` prints the
``ThreadList`` itself).

A search matches a thread's id and its checkpoints' metadata *as the views show it*: the store's own
search (a substring of the stored text) only proposes candidates, and each is kept when the search text
is in its id or in one checkpoint's metadata after masking (``mask``, the views' redactor). So nobody
learns a masked secret by searching for its prefixes; with reveal (``mask=None``) the stored text is
searched. A masked search looks at the first ``SEARCH_BOUND`` candidates in the chosen order and
decodes at most about ``SEARCH_ROWS`` metadata rows beyond each candidate's newest matching one;
``ThreadList.looked_at`` says when it stopped there.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..store import Store, ThreadSummary

SEARCH_BOUND = 1000  # candidate threads a masked search looks at
SEARCH_ROWS = 20_000  # metadata rows it decodes for candidates whose newest matching row did not confirm them
_CHUNK = 50  # candidates per metadata query

Mask = Callable[[Any], Any]


@dataclass(frozen=True)
class ThreadList:
    total: int  # threads matching the search, over every page
    threads: list[ThreadSummary]
    looked_at: int | None = None  # a search that stopped early: the candidate threads it looked at


class ThreadPages:
    """The threads matching ``search`` in ``sort`` order: ``total`` first (a pager needs it), then pages.

    ``mask``: the views' redactor, so a search matches only what they show; ``None`` (reveal) searches the
    stored text. Without a search, or with reveal, the store counts and pages; a masked search keeps the
    confirmed threads (at most ``SEARCH_BOUND``) and pages them.
    """

    def __init__(self, store: Store, search: str | None, sort: str = "newest", *, mask: Mask | None) -> None:
        self.store, self.search, self.sort = store, search or None, sort
        self._found: list[ThreadSummary] | None = None
        self.looked_at: int | None = None
        if self.search and mask is not None:
            self._found, self.looked_at = _confirmed(store, self.search, sort, mask)
            self.total = len(self._found)
        else:
            self.total = store.count_threads(search=self.search)

    def page(self, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        if self._found is not None:
            return self._found[offset : offset + limit]
        return self.store.threads(search=self.search, limit=limit, offset=offset, sort=self.sort)


def thread_list(store: Store, search: str | None = None, limit: int = 50, offset: int = 0, sort: str = "newest",
                *, mask: Mask | None) -> ThreadList:
    """One page of threads in ``sort`` order (over every matching thread, not one page); see ``ThreadPages``."""
    pages = ThreadPages(store, search, sort, mask=mask)
    return ThreadList(pages.total, pages.page(limit, offset), pages.looked_at)


def _confirmed(store: Store, search: str, sort: str, mask: Mask) -> tuple[list[ThreadSummary], int | None]:
    """The candidates the store's search finds whose id or masked metadata holds ``search``, in order."""
    candidates = store.threads(search=search, limit=SEARCH_BOUND + 1, sort=sort)
    looked_at = SEARCH_BOUND if len(candidates) > SEARCH_BOUND else None
    candidates = candidates[:SEARCH_BOUND]
    needle = search.lower()
    kept = {t.thread_id for t in candidates if needle in t.thread_id.lower()}
    # most threads are confirmed by their newest matching checkpoint; the others have every matching one read
    rest = [t.thread_id for t in candidates if t.thread_id not in kept]
    kept |= _shown_in(store.search_metadata(rest, search, newest_only=True), needle, mask)
    rest = [tid for tid in rest if tid not in kept]
    read = 0
    for start in range(0, len(rest), _CHUNK):
        if read >= SEARCH_ROWS:  # the threads left are not looked at
            undecided = set(rest[start:])
            candidates = [t for t in candidates if t.thread_id not in undecided]
            looked_at = len(candidates)
            break
        rows = store.search_metadata(rest[start : start + _CHUNK], search)
        read += len(rows)
        kept |= _shown_in(rows, needle, mask)
    return [t for t in candidates if t.thread_id in kept], looked_at


def _shown_in(rows: Sequence[tuple[str, dict[str, Any]]], needle: str, mask: Mask) -> set[str]:
    """The threads one of whose metadata holds ``needle`` (lower-cased) once masked."""
    return {tid for tid, meta in rows
            if needle in json.dumps(mask(meta), ensure_ascii=False, default=str).lower()}


def thread_records(rows: list[ThreadSummary]) -> list[dict[str, Any]]:
    return [
        {
            "thread": t.thread_id,
            "title": t.title or "",
            "checkpoints": t.checkpoints,
            "namespaces": t.namespaces,
            "last update": t.updated_at,
            "stored bytes": t.stored_bytes,
        }
        for t in rows
    ]
