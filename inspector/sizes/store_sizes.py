"""Store-wide size accounting: rank every thread by stored bytes (one SQL aggregate), measure the largest
in depth (``accounting.measure_thread``, each checkpoint blob read once or taken from the analysis cache)
and sum what each field accounts for across them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from ..cache import AnalysisCache
from ..store import PER_CHECKPOINT_COPY, Store, StoreTotals, ThreadSummary, is_internal_channel
from .accounting import ThreadSizes, WhatIf, measure_thread
from .cached import Progress


@dataclass(frozen=True)
class StoreSizes:
    """The store: threads measured in depth (the largest, by stored bytes), and the bytes each field
    accounts for in them; ``ranked_threads`` and ``store_bytes`` cover every thread of the store."""

    accounting: str
    threads: list[ThreadSizes]
    fields: dict[str, int]
    stored_bytes: int
    repeated_bytes: int
    keep_newest_saved_bytes: int
    viewed_images_repeated_bytes: int
    base64_in_messages_bytes: int | None
    ranked_threads: int = 0
    store_bytes: int = 0
    keep_newest: int = 0
    images_profile: bool | None = None  # any thread measured is read by DeerFlow's profile

    @property
    def what_if(self) -> WhatIf:
        """The what-ifs summed over the threads measured in depth."""
        return WhatIf(self.keep_newest, self.keep_newest_saved_bytes, self.viewed_images_repeated_bytes,
                      self.base64_in_messages_bytes, self.images_profile)


def app_fields(report: StoreSizes) -> tuple[dict[str, int], int]:
    """The bytes per field the app's state holds (largest first), and the bytes of LangGraph's own channels
    (``__start__``, ``branch:to:*``, ``__pregel_tasks``) left out of them, as a thread's field table leaves them."""
    fields = {name: n for name, n in report.fields.items() if not is_internal_channel(name)}
    return fields, sum(report.fields.values()) - sum(fields.values())


def store_sizes(reports: Iterable[ThreadSizes], accounting: str = PER_CHECKPOINT_COPY,
                totals: StoreTotals | None = None, keep_newest: int | None = None) -> StoreSizes:
    ranked = sorted(reports, key=lambda r: (-r.stored_bytes, r.thread_id))
    fields: dict[str, int] = {}
    for report in ranked:
        for total in report.fields:
            fields[total.field] = fields.get(total.field, 0) + total.stored_bytes
    return StoreSizes(
        accounting=accounting,
        threads=ranked,
        fields=dict(sorted(fields.items(), key=lambda kv: (-kv[1], kv[0]))),
        stored_bytes=sum(r.stored_bytes for r in ranked),
        repeated_bytes=sum(r.repeated_bytes for r in ranked),
        keep_newest_saved_bytes=sum(r.what_if.keep_newest_saved_bytes for r in ranked),
        viewed_images_repeated_bytes=sum(r.what_if.viewed_images_repeated_bytes for r in ranked),
        base64_in_messages_bytes=None if any(r.what_if.base64_in_messages_bytes is None for r in ranked)
        else sum(r.what_if.base64_in_messages_bytes for r in ranked),
        ranked_threads=totals.threads if totals is not None else len(ranked),
        store_bytes=totals.stored_bytes if totals is not None else sum(r.stored_bytes for r in ranked),
        keep_newest=keep_newest if keep_newest is not None else (ranked[0].what_if.keep_newest if ranked else 0),
        images_profile=_images_profile([r.what_if.images_profile for r in ranked]),
    )


def _images_profile(known: list[bool | None]) -> bool | None:
    """True when a thread's profile knows DeerFlow's images, False when every thread's profile says it does not,
    None when some thread was measured outside a reading (the profile in force then decides)."""
    if any(known):
        return True
    return False if all(k is False for k in known) else None


def largest_threads(store: Store, top: int | None) -> list[ThreadSummary]:
    """The ``top`` threads by stored bytes (all of them for None), ranked by the database over every thread."""
    if top is not None:
        return store.threads(limit=top, sort="stored")
    found: list[ThreadSummary] = []
    while batch := store.threads(limit=500, offset=len(found), sort="stored"):
        found.extend(batch)
        if len(batch) < 500:
            break
    return found


def across_threads(progress: Progress | None, threads: list[ThreadSummary]) -> list[Progress | None]:
    """One progress callback per thread, counting checkpoints across all of them."""
    if progress is None:
        return [None] * len(threads)
    total = sum(t.checkpoints for t in threads)
    offsets = [sum(t.checkpoints for t in threads[:i]) for i in range(len(threads))]
    return [lambda done, _, offset=offset: progress(offset + done, total) for offset in offsets]


def measure_store(store: Store, keep_newest: int = 10, top: int | None = None, cache: AnalysisCache | None = None,
                  progress: Progress | None = None) -> StoreSizes:
    """Rank every thread by stored bytes (one SQL aggregate), then measure the ``top`` largest in depth
    (every thread for None); each checkpoint blob is read once, or not at all when cached."""
    threads = largest_threads(store, top)
    reports = [measure_thread(store, t.thread_id, keep_newest, cache, step)
               for t, step in zip(threads, across_threads(progress, threads))]
    return store_sizes(reports, store.size_accounting, store.totals(), keep_newest)
