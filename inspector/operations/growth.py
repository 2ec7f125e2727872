"""Growth over time: stored bytes and checkpoints per day or hour, for the store, per channel and per
thread; the threads and channels that grew most in a window; and when the store passes the disk budget.

Dated by the uuid6 checkpoint ids (``Operations.growth_rows``), from lengths alone. Only rows still in the
store are counted: bytes written and later pruned are not seen, so a store that is pruned grows faster
than this says.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone

from ..cache import FactCache
from ..formatting import human_bytes
from ..store import Store, StoreError
from ..store_ops import operating
from ..store_ops.growth_rows import GrowthRows, check_growth_by, text_order
from .growth_summaries import cacheable, cached_growth_rows, cached_growth_views, store_growth_views

BUCKETS = {"day": 86_400, "hour": 3_600}
DAY = 86_400


@dataclass(frozen=True)
class GrowthPoint:
    """One bucket of one key: checkpoints written and the bytes they (and their blobs and writes) store."""

    start: datetime
    key: str
    checkpoints: int
    bytes: int
    parts: dict[str, int] = field(default_factory=dict)  # checkpoint / blobs / writes -> bytes


@dataclass(frozen=True)
class Grower:
    key: str
    bytes: int
    checkpoints: int
    share: float  # of the bytes written in the window


@dataclass(frozen=True)
class Forecast:
    """When the store passes ``budget_bytes`` at the window's average rate; ``basis`` says it in words."""

    budget_bytes: int | None
    current_bytes: int
    window_start: datetime
    now: datetime
    window_days: float
    window_bytes: int
    bytes_per_day: float
    days_left: float | None
    passes_at: datetime | None
    verdict: str
    basis: str
    ahead_bytes: int = 0  # dated after ``now`` (a writer's clock ahead, or planted ids): left out of the rate


@dataclass(frozen=True)
class GrowthReport:
    by: str
    bucket: str
    since_days: int
    window_start: datetime
    now: datetime
    points: list[GrowthPoint]
    top_threads: list[Grower]
    top_channels: list[Grower]
    forecast: Forecast
    untimed_checkpoints: int
    untimed_bytes: int
    channel_basis: str
    basis: str


def _points(rows: GrowthRows, by: str) -> list[GrowthPoint]:
    merged: dict[tuple[int, str], list] = {}
    for row in rows.rows:
        key = "" if by == "store" else row.thread_id if by == "thread" else row.channel
        entry = merged.setdefault((row.bucket, key), [0, 0, defaultdict(int)])
        entry[0] += row.checkpoints
        entry[1] += row.bytes
        entry[2][row.part] += row.bytes
    order = sorted(merged.items(), key=lambda kv: (kv[0][0], text_order(kv[0][1])))
    return [GrowthPoint(_utc(bucket), key, c, n, dict(parts)) for (bucket, key), (c, n, parts) in order]


def _growers(ranked: list, window: int) -> list[Grower]:
    return [Grower(g.key, g.bytes, g.checkpoints, g.bytes / window if window else 0.0) for g in ranked]


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def forecast(current_bytes: int, window_bytes: int, window_start: float, now: float,
             budget_bytes: int | None, younger: bool = False, ahead_bytes: int = 0) -> Forecast:
    """The store passes ``budget_bytes`` after ``(budget - current) / (window_bytes / window_days)`` days
    (``younger``: ``window_start`` is the store's first bucket, inside the window asked for; ``ahead_bytes``: bytes
    dated after ``now``, by a writer whose clock is ahead, left out of ``window_bytes`` and said so)."""
    window_days = max(now - window_start, 1.0) / DAY
    rate = window_bytes / window_days
    start, at = _utc(window_start), _utc(now)
    rate_text = (f"{human_bytes(window_bytes)} ({window_bytes:,} bytes) stored by checkpoints dated "
                 f"{start:%Y-%m-%d %H:%M} to {at:%Y-%m-%d %H:%M} UTC ({window_days:.2f} days): "
                 f"{human_bytes(round(rate))} a day on average"
                 + (" (nothing is dated before: the store is younger than the window)" if younger else "")
                 + (f"; {human_bytes(ahead_bytes)} ({ahead_bytes:,} bytes) dated after {at:%Y-%m-%d %H:%M} UTC (a "
                    "writer's clock ahead of this one) are left out of the rate" if ahead_bytes else ""))
    now_text = f"the store holds {human_bytes(current_bytes)} ({current_bytes:,} bytes, the sum of its rows' lengths)"
    days_left = passes_at = None
    if not budget_bytes or budget_bytes <= 0:
        verdict = "no disk budget set (setting disk_budget_bytes)"
    elif current_bytes >= budget_bytes:
        verdict, days_left, passes_at = f"already past the budget of {human_bytes(budget_bytes)}", 0.0, at
    elif rate <= 0:
        verdict = f"not at this rate: nothing was stored in the window (budget {human_bytes(budget_bytes)})"
    else:
        days_left = (budget_bytes - current_bytes) / rate
        try:
            passes_at = _utc(now + days_left * DAY)
        except (OverflowError, OSError, ValueError):
            passes_at = None
        when = f"on {passes_at:%Y-%m-%d}" if passes_at else "after the year 9999"
        verdict = (f"passes the budget of {human_bytes(budget_bytes)} in {_days(days_left)} ({when}) "
                   "if it keeps growing at this rate")
    basis = (f"{now_text}; {rate_text}. Days left = (budget - now) / rate. Rows pruned since are not seen, and "
             "the files on disk hold more than the rows (pages, indexes, free space: see the file facts).")
    return Forecast(budget_bytes if budget_bytes and budget_bytes > 0 else None, current_bytes, start, at,
                    window_days, window_bytes, rate, days_left, passes_at, verdict, basis, ahead_bytes)


def _days(days: float) -> str:
    if days < 1:
        return f"{days * 24:.1f} hours"
    return f"{days:,.1f} days"


@dataclass
class _Remembered:
    views: list[GrowthRows]
    token: object  # ``growth_change_token`` read before the views (None: the store has none)
    fingerprint: object  # ``growth_fingerprint`` read before the views (None: not read yet)
    now: float  # the time the views were read for

    def holds_at(self, now: float) -> bool:
        """Whether the views are those of ``now`` (in the same bucket, the key says): read at ``now``, or
        earlier with nothing in the bucket dated after that time (so nothing between it and ``now``)."""
        return now == self.now or (now > self.now and not self.views[0].ahead_bytes)


_REMEMBERED: OrderedDict[tuple, _Remembered] = OrderedDict()  # the newest reports' rows, per store and grouping
_REMEMBER = 16
_LOCK = threading.Lock()


def remembered_growth_rows(store: Store, width: int, since: int, by: str, top: int,
                           cache: FactCache | None = None, now: float | None = None) -> GrowthRows:
    """``growth_rows`` (``store_ops.Operations``), remembered while the store is unchanged (``remembered_growth_views``). With an
    analysis ``cache``, day buckets are summed from the day rows kept there (``growth_summaries``): this
    process, another one or the next CLI run reads from the store only the threads written since, and the
    store's totals."""
    now = time.time() if now is None else float(now)
    if cacheable(store, cache, width, since):  # itself what changed since the last report, and no more
        return cached_growth_rows(store, cache, width, since, by, top, now)[0]
    return remembered_growth_views(store, width, since, [(by, top)], now)[0]


def remembered_growth_views(store: Store, width: int, since: int, asks: list[tuple[str, int]],
                            now: float | None = None) -> list[GrowthRows]:
    """``store_growth_views`` (every grouping asked, from one statement), remembered while the store is
    unchanged, so the Health page's reruns and each scrape of a store that did not move cost next to nothing.

    Unchanged: its ``growth_change_token`` (SQLite's data version on this connection, PostgreSQL's
    transaction snapshot: equal only if nothing was committed since) is the one read before the rows; when
    it moved (a commit anywhere in the database or cluster), its ``growth_fingerprint`` (each table's rows,
    summed stored lengths and id range: one aggregate over lengths) is the one read before them. The first
    report reads the token and the rows alone; each value is read before the rows it vouches for, so a
    commit in between makes the next report read them again.

    The views depend on ``now`` only through the bytes of its bucket dated after it (``ahead_bytes``): the
    bucket is part of the key, and views read earlier in it hold for a later ``now`` when none were
    (``_Remembered.holds_at``), else they are read again."""
    now = time.time() if now is None else float(now)
    ops = operating(store)
    fingerprint = getattr(ops, "growth_fingerprint", None)
    if fingerprint is None:
        return store_growth_views(store, width, since, asks, now)
    changed = getattr(ops, "growth_change_token", None)
    token = changed() if callable(changed) else None
    key = (store.identity, width, since, tuple(asks), math.floor(now / width))
    with _LOCK:
        held = _REMEMBERED.get(key)
        if held is not None:
            _REMEMBERED.move_to_end(key)
            if not held.holds_at(now):
                held = None
            elif token is not None and held.token == token:
                return held.views
    printed = fingerprint() if held is not None or token is None else None
    if held is not None and held.fingerprint is not None and held.fingerprint == printed:
        with _LOCK:
            held.token = token
        return held.views
    found = store_growth_views(store, width, since, asks, now)
    with _LOCK:
        _REMEMBERED[key] = _Remembered(found, token, printed, now)
        _REMEMBERED.move_to_end(key)
        while len(_REMEMBERED) > _REMEMBER:
            _REMEMBERED.popitem(last=False)
    return found


def growth_report(store: Store, by: str = "store", bucket: str = "day", since_days: int = 30, top: int = 10,
                  budget_bytes: int | None = None, now: float | None = None,
                  cache: FactCache | None = None) -> GrowthReport:
    """Growth over the last ``since_days`` (from the start of that day or hour, UTC), grouped ``by``.

    Args:
        store: Any store with ``growth_rows`` (SQLite, PostgreSQL, bundles); a saver raises ``StoreError``.
        by: ``store``, ``channel`` or ``thread`` (the ``top`` threads): the key of ``points``.
        bucket: ``day`` or ``hour``.
        since_days: The window; top growers and the forecast's rate are over it.
        top: How many top threads and channels.
        budget_bytes: The disk budget the forecast is against (None: no forecast date).
        now: The end of the window, seconds since 1970 (None: the clock).
        cache: The analysis cache: day buckets are summed from the day rows kept there, and only the threads
            written since are read from the store; when it holds none, the report is read from the store and
            the cache filled in a thread (``growth_summaries.wait_for_fills``). None: read from the store.
    """
    check_growth_by(by)
    if bucket not in BUCKETS:
        raise StoreError(f"unknown growth bucket {bucket!r}: use day or hour")
    if not isinstance(since_days, int) or since_days <= 0:
        raise StoreError(f"--since must be a positive number of days, got {since_days!r}")
    width = BUCKETS[bucket]
    now = time.time() if now is None else float(now)
    window_start = max(math.floor((now - since_days * DAY) / width) * width, 0)  # a longer window: since 1970
    # by thread the rows are the top threads' alone: the window's total (shares, the forecast's rate) is the store's
    asks = [(by, top), ("store", 0)] if by == "thread" and top else [(by, top)]
    if cacheable(store, cache, width, window_start):  # one read of what changed since the last report, and no more
        views = cached_growth_views(store, cache, window_start, asks, background=True, now=now)[0]
    else:
        views = remembered_growth_views(store, width, window_start, asks, now)
    found, whole = views[0], views[-1]
    points = _points(found, by)
    window_bytes = sum(r.bytes for r in whole.rows)
    start = rate_start(whole, window_start, window_bytes)
    ahead = dated_after(whole, now)
    return GrowthReport(
        by, bucket, since_days, _utc(window_start), _utc(now), points,
        _growers(found.top_threads, window_bytes), _growers(found.top_channels, window_bytes),
        forecast(found.stored_bytes, window_bytes - ahead, start, now, budget_bytes, start != window_start, ahead),
        found.untimed_checkpoints, found.untimed_bytes, found.channel_basis if by == "channel" else "",
        "Dated by each checkpoint's uuid6 id (the time LangGraph created it); bytes are stored lengths: the "
        "checkpoint row, the blob rows it introduced (PostgreSQL) and the writes stored against it."
        + (f" Per thread: the {top} threads that stored most in the window." if by == "thread" else ""),
    )


def dated_after(rows: GrowthRows, now: float) -> int:
    """The bytes of ``rows`` dated after ``now``: ids dated in the future by a writer whose clock is ahead (or
    planted), which no rate over a window ending now may count. Those of buckets that start after ``now``, and
    in the bucket holding ``now`` those the store's statement counted apart (``ahead_bytes``, of rows read for
    this ``now``, or an earlier one when none were)."""
    return sum(r.bytes for r in rows.rows if r.bucket > now) + rows.ahead_bytes


def rate_start(rows: GrowthRows, window_start: int, window_bytes: int) -> int:
    """Where the forecast's rate starts: the window's start, or the first bucket holding a checkpoint when the store
    holds nothing dated before it (a store younger than the window grows over its own life, not the window's)."""
    dated_before = rows.stored_bytes - rows.untimed_bytes - window_bytes
    first = min((r.bucket for r in rows.rows), default=None)
    return first if dated_before <= 0 and first is not None and first > window_start else window_start


def growth_table(report: GrowthReport) -> list[dict]:
    """The points as rows for a table (and the CLI)."""
    label = {"store": None, "channel": "channel", "thread": "thread"}[report.by]
    fmt = "%Y-%m-%d" if report.bucket == "day" else "%Y-%m-%d %H:00"
    return [{report.bucket: p.start.strftime(fmt), **({label: p.key} if label else {}),
             "checkpoints": p.checkpoints, "stored bytes": p.bytes} for p in report.points]
