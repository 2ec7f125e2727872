"""The numbers the metrics endpoint serves, as one snapshot: ``metrics_snapshot``.

Each number is one cheap aggregate over keys and lengths (or the database's own statistics) that the
CLI computes the same way: totals (``threads``), the largest thread (``threads --sort stored``), stored
bytes per table (``health --store``; LangGraph's and the known app tables by
name, the rest summed), bytes written in the last hour and day (``growth``), threads
whose newest state passes ``oversize_state_bytes``, bytes no checkpoint needs (``health --store``) and
the disk forecast (``growth``). No value is decoded, nothing is written. The Prometheus side is in
``metrics_server``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..store import Store
from ..store.orphan_rows import APP_THREAD_TABLES
from ..store_ops import operating
from ..store_ops.file_facts import FileFacts
from .growth import DAY, dated_after, forecast, rate_start
from .orphans import orphan_report

FORECAST_DAYS = 7
OTHER_TABLES = "other"  # the ``table`` label of every other table's bytes, summed


@dataclass(frozen=True)
class MetricsSnapshot:
    taken_at: float
    seconds: float  # how long computing it took
    store_bytes: int
    file_bytes: int
    table_bytes: dict[str, int]  # ``table_series``
    table_basis: str
    threads: int
    checkpoints: int
    largest_thread_bytes: int
    largest_state_bytes: int
    flagged_threads: int  # newest state past oversize_state_bytes
    oversize_state_bytes: int
    written_bytes: dict[str, int] = field(default_factory=dict)  # "1h", "1d"
    orphaned_bytes: int = 0
    disk_budget_bytes: int = 0
    forecast_days_left: float | None = None
    forecast_basis: str = ""


def table_series(facts: FileFacts) -> dict[str, int]:
    """Bytes per table as the endpoint serves them, one series each for LangGraph's tables and the app thread
    tables the inspector knows (``orphan_rows.APP_THREAD_TABLES``), the rest of the schema summed as ``other``
    (only when there is any): a schema of 3,000 tables is a handful of series, never 3,000."""
    known = {table for _, table in APP_THREAD_TABLES}
    out: dict[str, int] = {}
    other: int | None = None
    for r in facts.relations:
        if r.kind != "table":
            continue
        if r.langgraph or r.name in known:
            out[r.name] = r.bytes
        else:
            other = (other or 0) + r.bytes
    if other is not None:
        out[OTHER_TABLES] = other
    return out


def written_since(store: Store, seconds: int, now: float) -> int:
    """Bytes stored by checkpoints dated in the last ``seconds`` (their rows, blobs and writes); ids dated after
    ``now`` (a writer's clock ahead), in later buckets or in now's own, are not in the last hour or day."""
    found = operating(store).growth_rows(seconds, int(now) - seconds, by="store", now=now)
    return sum(r.bytes for r in found.rows) - dated_after(found, now)


def metrics_snapshot(store: Store, oversize_state_bytes: int, disk_budget_bytes: int = 0,
                     now: float | None = None) -> MetricsSnapshot:
    started = time.perf_counter()
    now = time.time() if now is None else now
    totals = store.totals()
    facts = operating(store).file_facts(per_table=False)
    tables = table_series(facts)
    largest = store.threads(limit=1, sort="stored")
    states = store.newest_state_sizes(oversize_state_bytes)
    window_start = int(now - FORECAST_DAYS * DAY)
    window = operating(store).growth_rows(DAY, window_start, by="store", now=now)
    window_bytes = sum(r.bytes for r in window.rows)
    start = rate_start(window, window_start, window_bytes)  # a store younger than the window: over its own life
    ahead = dated_after(window, now)
    outlook = forecast(totals.stored_bytes, window_bytes - ahead, start, now, disk_budget_bytes or None,
                       start != window_start, ahead)
    written = {"1h": written_since(store, 3600, now), "1d": written_since(store, DAY, now)}
    orphaned = orphan_report(store).total_bytes
    return MetricsSnapshot(
        now, time.perf_counter() - started, totals.stored_bytes, facts.total_bytes, tables, facts.basis,
        totals.threads, totals.checkpoints, largest[0].stored_bytes if largest else 0, states.largest_bytes,
        states.over, oversize_state_bytes, written, orphaned, disk_budget_bytes, outlook.days_left, outlook.basis)
