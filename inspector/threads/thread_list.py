"""The thread list: one page of the store's threads with the count of all that match, and its rows as
plain records (what the Threads page and the ``threads`` command show; ``threads --json`` prints the
``ThreadList`` itself).

A search matches what the list shows: a thread's id, its title, its checkpoints' ids and their metadata,
*as the views show them*: the store's own
search (a substring of the stored text) only proposes candidates, and each is kept when the search text
is in its id or in one of its checkpoints' metadata after masking (``mask``, the views' redactor), so
nobody learns a masked secret by searching for its prefixes. With reveal (``mask=None``) the stored text
is searched.

Every candidate is checked, never only the first so many: which threads are kept, and the count, must
not depend on where a masked secret sits. Each candidate's newest matching checkpoint is read first
(one row per thread); a thread it does not confirm has its other matching checkpoints read, up to
``SEARCH_ROWS`` rows in all; a thread left unread then counts as not matching.

A search longer than ``SEARCH_LONGEST`` characters is refused before any query (``SearchTooLong``), on every
backend alike: SQLite refuses a LIKE pattern past 50,000 bytes, which a longer search (four bytes a
character at most, escapes included) could reach.

Titles (the newest ``title`` write of each thread, small) and checkpoint ids (keys) are matched beside
the store's own search: a title after masking, a checkpoint id as stored (ids are shown unmasked). A
thread found only that way is listed by reading the store's ranking in order, keeping the found ones.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..store import Store, ThreadSummary

SEARCH_ROWS = 20_000  # metadata rows read for candidates their newest matching checkpoint did not confirm
_CHUNK = 50  # candidates per metadata query
_RANK_PAGE = 500  # ranked candidates read at a time while paging the confirmed ones
SEARCH_LONGEST = 10_000  # characters of a search; its LIKE pattern stays within SQLite's 50,000 bytes

Mask = Callable[[Any], Any]


@dataclass(frozen=True)
class ThreadList:
    total: int  # threads matching the search, over every page
    threads: list[ThreadSummary]


class SearchTooLong(ValueError):
    """A search past ``SEARCH_LONGEST`` characters; the message says so in one line."""


def check_search(search: str | None) -> None:
    """Refuse a search longer than ``SEARCH_LONGEST`` characters (``SearchTooLong``), before the store is asked."""
    if search and len(search) > SEARCH_LONGEST:
        raise SearchTooLong(f"a search is at most {SEARCH_LONGEST:,} characters; this one has {len(search):,}: "
                            "search for a part of it")


class ThreadPages:
    """The threads matching ``search`` in ``sort`` order: ``total`` first (a pager needs it), then pages.

    ``mask``: the views' redactor, so a search matches only what they show; ``None`` (reveal) searches the
    stored text. Without a search, with reveal, or when every candidate is confirmed, the store counts
    and pages; otherwise the store's ranked candidates are read in order, keeping the confirmed ones.
    A search past ``SEARCH_LONGEST`` characters raises ``SearchTooLong`` before the store is asked.
    """

    def __init__(self, store: Store, search: str | None, sort: str = "newest", *, mask: Mask | None) -> None:
        check_search(search)
        self.store, self.search, self.sort = store, search or None, sort
        self._kept: set[str] | None = None
        self._ranked_by: str | None = self.search  # the store search whose ranking the kept threads are read from
        if not self.search:
            self.total = store.count_threads()
            return
        extra = shown_matches(store, self.search, mask)
        if mask is not None:
            kept, candidates = confirmed_threads(store, self.search, mask)
            exact = len(kept) == candidates  # the store's own search pages exactly these
        elif extra:
            kept, exact = {tid for tid, _ in store.search_metadata(self.search, newest_only=True)}, True
        else:
            self.total = store.count_threads(search=self.search)
            return
        if extra - kept:
            self._kept, self._ranked_by = kept | extra, None
        elif not exact:
            self._kept = kept
        self.total = len(kept | extra)

    def page(self, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        if self._kept is None:
            return self.store.threads(search=self.search, limit=limit, offset=offset, sort=self.sort)
        shown: list[ThreadSummary] = []
        start = 0
        while len(shown) < offset + limit:
            ranked = self.store.threads(search=self._ranked_by, limit=_RANK_PAGE, offset=start, sort=self.sort)
            shown += [t for t in ranked if t.thread_id in self._kept]
            if len(ranked) < _RANK_PAGE:
                break
            start += _RANK_PAGE
        return shown[offset : offset + limit]


def shown_matches(store: Store, search: str, mask: Mask | None) -> set[str]:
    """The threads whose title or one of whose checkpoint ids holds ``search``. A title must hold it as
    stored and as the views show it (masked, unless ``mask`` is None): neither a masked secret nor the
    mask's own mark makes a thread match."""
    needle = search.lower()
    found = {tid for tid, title in store.thread_titles().items()
             if needle in title.lower() and (mask is None or needle in str(mask(title)).lower())}
    return found | store.checkpoint_id_threads(search)


def confirmed_threads(store: Store, search: str, mask: Mask) -> tuple[set[str], int]:
    """The threads whose id or masked metadata holds ``search``, and how many candidates the store proposed."""
    needle = search.lower()
    newest = store.search_metadata(search, newest_only=True)
    kept = {tid for tid, meta in newest if needle in tid.lower() or _shown_in(meta, needle, mask)}
    rest = [tid for tid, _ in newest if tid not in kept]
    read = 0
    for start in range(0, len(rest), _CHUNK):
        if read >= SEARCH_ROWS:
            break
        rows = store.search_metadata(search, rest[start : start + _CHUNK])
        read += len(rows)
        kept |= {tid for tid, meta in rows if _shown_in(meta, needle, mask)}
    return kept, len(newest)


def _shown_in(meta: dict[str, Any], needle: str, mask: Mask) -> bool:
    """Whether ``needle`` (lower-cased) is in the metadata once masked."""
    return needle in json.dumps(mask(meta), ensure_ascii=False, default=str).lower()


def thread_records(rows: list[ThreadSummary], profiles: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The list's rows as records; ``profiles`` (``thread id -> profiles.Reading``, from
    ``profiles.listed_readings``) adds each thread's ``profile`` column, so a store mixing apps shows it."""
    return [
        {
            "thread": t.thread_id,
            "title": t.title or "",
            **({"profile": _profile_title(profiles.get(t.thread_id))} if profiles is not None else {}),
            "checkpoints": t.checkpoints,
            "namespaces": t.namespaces,
            "last update": t.updated_at,
            "stored bytes": t.stored_bytes,
        }
        for t in rows
    ]


def status_records(rows: list[ThreadSummary]) -> list[dict[str, Any]]:
    """The status column of ``thread_records``' rows (``history.thread_status``), one cell per row."""
    return [{"status": t.status.line() if t.status is not None else ""} for t in rows]


def hit_records(rows: list[ThreadSummary]) -> list[dict[str, Any]]:
    """Where a search found each of ``thread_records``' rows: what the text is, its masked snippet, its step."""
    return [{"found in": t.hit.found_in if t.hit else "", "snippet": t.hit.snippet if t.hit else "",
             "step": t.hit.step if t.hit else None} for t in rows]


def _profile_title(reading: Any) -> str:
    return "" if reading is None else reading.title
