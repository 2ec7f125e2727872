"""The thread list: one page of the store's threads with the count of all that match, and its rows as
plain records (what the Threads page and the ``threads`` command show; ``threads --json`` prints the
``ThreadList`` itself)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import Store, ThreadSummary


@dataclass(frozen=True)
class ThreadList:
    total: int  # threads matching the search, over every page
    threads: list[ThreadSummary]


def thread_list(store: Store, search: str | None = None, limit: int = 50, offset: int = 0, sort: str = "newest",
                total: int | None = None) -> ThreadList:
    """One page of threads in ``sort`` order (over every thread, not one page); ``total`` when the caller
    already counted them (a pager needs the count before it knows the page)."""
    rows = store.threads(search=search, limit=limit, offset=offset, sort=sort)
    return ThreadList(store.count_threads(search=search) if total is None else total, rows)


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
