"""The thread list as the Threads page and the ``threads`` command show it: pages of threads, a search (through
the analysis cache's index where there is a cache: ``search``), a filter by status, and each listed thread's
title in its state (``thread_titles``), status (``thread_status``) and hit.

With a search and a cache, the threads whose id or a checkpoint id holds the search (a substring of the keys,
``Store.id_threads``) come first, in the list's order; then the threads the index finds in their texts, titles and
masked metadata, best first; each with its hit. Without a cache, or searching the stored text unmasked
(reveal), the search is ``thread_list.ThreadPages``: ids, titles and metadata as the store holds them.

A status filter reads every thread's status from keys in one statement (``thread_status.store_statuses``: only
threads that are not idle are listed there): ``interrupted``, ``error`` or ``busy`` lists those threads;
``idle`` every other one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from ..cache.facts import cache_errors
from ..search.hits import BY_ID, Hit, IndexSearch, hits_for, index_search
from ..store import Store, ThreadSummary
from .thread_list import Mask, ThreadList, ThreadPages, check_search
from .thread_status import STATUSES, listed_statuses, store_statuses
from .thread_titles import state_titles

CHUNK = 500  # threads read at a time while filtering an order
ONLY_MAX = 10_000  # threads a store is asked for by id at once (``Store.threads(only=...)``)

PageSource = Callable[[int, int], list[ThreadSummary]]


class StatusError(ValueError):
    """A status that is not one of ``STATUSES``."""


def check_status(status: str | None) -> None:
    if status is not None and status not in STATUSES:
        raise StatusError(f"unknown status {status!r}: use one of {', '.join(STATUSES)}")


class SearchPages:
    """A search through the index, and by ids (see the module's docstring)."""

    def __init__(self, store: Store, search: str, sort: str, *, cache: Any, progress: Any = None,
                 budget_seconds: float | None = None) -> None:
        check_search(search)
        self.store, self.sort, self.cache = store, sort, cache
        self.found: IndexSearch = index_search(store, cache, search, progress, budget_seconds)
        self.named = store.id_threads(search)
        self.ranked = [tid for tid in self.found.ranked if tid not in self.named]
        self.total = len(self.named) + len(self.ranked)

    def ids(self) -> list[str]:
        """Every thread found: those named by the search (no order), then the index's, best first."""
        return [*sorted(self.named), *self.ranked]

    def page(self, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        shown = self._named(limit, offset) if offset < len(self.named) else []
        start = max(0, offset - len(self.named))
        shown += _in_order(self.store, self.ranked[start : start + limit - len(shown)])
        hits = hits_for(self.cache, self.found, [t.thread_id for t in shown])
        return [dataclasses.replace(t, hit=hits.get(t.thread_id, BY_ID)) for t in shown]

    def _named(self, limit: int, offset: int) -> list[ThreadSummary]:
        if len(self.named) <= ONLY_MAX:
            return self.store.threads(limit=limit, offset=offset, sort=self.sort, only=sorted(self.named))
        return filtered_page(lambda n, start: self.store.threads(limit=n, offset=start, sort=self.sort),
                             self.named.__contains__, limit, offset)


def _in_order(store: Store, ids: list[str]) -> list[ThreadSummary]:
    """The summaries of ``ids``, in that order."""
    if not ids:
        return []
    found = {t.thread_id: t for t in store.threads(limit=len(ids), only=ids)}
    return [found[tid] for tid in ids if tid in found]


def filtered_page(source: PageSource, keep: Callable[[str], bool], limit: int, offset: int) -> list[ThreadSummary]:
    """One page of the threads ``source`` lists (``source(limit, offset)``) that ``keep`` keeps, in its order."""
    shown: list[ThreadSummary] = []
    start = 0
    while len(shown) < offset + limit:
        batch = source(CHUNK, start)
        shown += [t for t in batch if keep(t.thread_id)]
        if len(batch) < CHUNK:
            break
        start += CHUNK
    return shown[offset : offset + limit]


class StatusPages:
    """The threads of ``source`` whose status is ``status`` (see the module's docstring)."""

    def __init__(self, store: Store, source: Any, sort: str, status: str) -> None:
        self.store, self.source, self.sort, self.status = store, source, sort, status
        busy = store_statuses(store)
        if status == "idle":
            self.keep: Callable[[str], bool] = lambda tid: tid not in busy
        else:
            wanted = {tid for tid, state in busy.items() if state == status}
            self.keep = wanted.__contains__
        self.wanted = None if status == "idle" else sorted(tid for tid, state in busy.items() if state == status)
        if isinstance(source, SearchPages):
            self.total = sum(1 for tid in source.ids() if self.keep(tid))
        elif source.search is None and self.wanted is not None and len(self.wanted) <= ONLY_MAX:
            self.total = store.count_threads(only=self.wanted)
        elif source.search is None:
            self.total = store.count_threads() - len(busy) if status == "idle" else len(self.wanted or ())
        else:
            self.total = len(filtered_page(source.page, self.keep, 10**9, 0))

    def page(self, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        source = self.source
        if not isinstance(source, SearchPages) and source.search is None and self.wanted is not None \
                and len(self.wanted) <= ONLY_MAX:
            return self.store.threads(limit=limit, offset=offset, sort=self.sort, only=self.wanted)
        return filtered_page(source.page, self.keep, limit, offset)


class Listing:
    """Pages of the thread list, each listed thread with its title in the state and its status."""

    def __init__(self, store: Store, pages: Any, cache: Any) -> None:
        self.store, self.pages, self.cache = store, pages, cache
        self.total = pages.total
        self.found: IndexSearch | None = getattr(pages, "found", None) or getattr(getattr(pages, "source", None),
                                                                               "found", None)

    def page(self, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        return described(self.store, self.pages.page(limit, offset), self.cache)


def described(store: Store, rows: list[ThreadSummary], cache: Any = None) -> list[ThreadSummary]:
    """``rows`` with each thread's title in its state and its status."""
    if not rows:
        return rows
    titles = state_titles(store, rows, cache)
    found = listed_statuses(store, [t.thread_id for t in rows], cache)
    return [dataclasses.replace(t, title=titles.get(t.thread_id), status=found.get(t.thread_id)) for t in rows]


def thread_pages(store: Store, search: str | None, sort: str = "newest", *, mask: Mask | None, cache: Any = None,
                 status: str | None = None, progress: Any = None, budget_seconds: float | None = None) -> Listing:
    """The thread list (see the module's docstring): ``total``, then ``page(limit, offset)``. A search through the
    index first brings it up to date, reporting ``progress(done, total)``, for about ``budget_seconds`` at most
    (None: until done; ``Listing.found.refreshed`` says what is left)."""
    check_status(status)
    check_search(search)
    pages: Any = None
    if search and cache is not None and mask is not None:
        try:
            pages = SearchPages(store, search, sort, cache=cache, progress=progress, budget_seconds=budget_seconds)
        except cache_errors():  # a cache that cannot be read or written now (locked, its server gone)
            pages = None
    if pages is None:
        pages = ThreadPages(store, search, sort, mask=mask)
    if status is not None:
        pages = StatusPages(store, pages, sort, status)
    return Listing(store, pages, cache)


__all__ = ["Hit", "Listing", "StatusError", "check_status", "described", "thread_pages"]


def thread_list(store: Store, search: str | None = None, limit: int = 50, offset: int = 0, sort: str = "newest",
                *, mask: Mask | None, cache: Any = None, status: str | None = None, progress: Any = None) -> ThreadList:
    """One page of threads in ``sort`` order (over every matching thread, not one page), or best match first for
    a search through the analysis ``cache``'s index; with their titles in the state, their status and where a
    search found them (``thread_listing``); only threads of ``status`` when given."""
    pages = thread_pages(store, search, sort, mask=mask, cache=cache, status=status, progress=progress)
    return ThreadList(pages.total, pages.page(limit, offset))
