"""A search through the index: the threads it finds, best first, and each one's hit (its best text's masked
snippet, what that text is and the step where it appears)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import Store
from .indexing import Progress, Refreshed, bring_up_to_date
from .texts import query_words, snippet, storable


@dataclass(frozen=True)
class Hit:
    """Where a search found a thread: ``found_in`` (``AI message · messages``, ``file · uploaded_files``,
    ``title · title``, ``metadata · metadata``; ``thread id or checkpoint id`` for a match the index does not
    hold), the snippet (masked), and the checkpoint where the text appears (None: the thread's newest) and its
    step."""

    found_in: str
    snippet: str = ""
    checkpoint_id: str | None = None
    ns: str = ""
    step: int | None = None


BY_ID = Hit("thread id or checkpoint id")


@dataclass(frozen=True)
class IndexSearch:
    """The threads the index finds for a search, best first, and what bringing it up to date read."""

    identity: str
    search: str
    words: list[str]
    ranked: list[str]
    refreshed: Refreshed


def index_search(store: Store, cache: Any, search: str, progress: Progress | None = None,
                 budget_seconds: float | None = None) -> IndexSearch:
    """Bring the store's index up to date (``indexing``), then rank the threads holding every word of ``search``
    (each as a word's beginning) in one text."""
    refreshed = bring_up_to_date(store, cache, progress, budget_seconds)
    identity = store.fact_identity()
    words = query_words(search)
    typed = storable(search.strip())  # as every cache can bind it: no NUL, no lone surrogate
    ranked = [thread for thread, _ in cache.search_ranked(identity, words, typed)] if words else []
    return IndexSearch(identity, typed, words, ranked, refreshed)


def hits_for(cache: Any, found: IndexSearch, threads: list[str]) -> dict[str, Hit]:
    """The hit of each of ``threads`` (among ``found.ranked``)."""
    best = cache.search_best(found.identity, found.words, threads, found.search)
    return {thread: Hit(f"{hit.row.kind} · {hit.row.field}", snippet(hit.row.shown, found.words), hit.row.checkpoint,
                        hit.ns, hit.row.step)
            for thread, hit in best.items()}
