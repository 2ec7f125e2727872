"""Growth per day kept in the analysis cache, so that a report on a store the cache has seen dates again
only the threads written since.

The first report with a cache reads every thread's dated rows per day, channel and part
(``Operations.growth_thread_rows``) and the cache keeps them (``fact_cache_growth``) with the cut: the
greatest uuid6 id the store held. A later report, in any process sharing the cache, reads in one
statement the rows of the threads holding an id past the cut (the threads written since) and the store's
totals (its checkpoint rows, their bytes, the writes' and blob rows' bytes). The other threads' rows are
summed from the cache, in its database; they are used only if those sums plus the threads read equal the
store's totals, so a thread pruned, a row written with an older id or a write stored again under its key
sends the report back to the store (and the cache is filled anew). Checkpoint and blob rows are never
rewritten under their keys by LangGraph's savers, so their count and bytes say when one changed.

The result equals ``Operations.growth_rows`` over the same rows: the same dating, sums and order of top
threads and channels (bytes, then the key's stored bytes). Per day only (hour buckets are read from the
store each time). When more than ``LIVE_MAX`` threads were written since the cut, the cache is filled anew.
"""

from __future__ import annotations

import contextlib
import heapq
import threading
import time
from typing import Any

from ..cache import FactCache
from ..store import Store
from ..store.not_utf8 import order_key
from ..store_ops import operating
from ..store_ops.growth_rows import (
    Grower,
    GrowthRow,
    GrowthRows,
    ThreadGrowth,
    check_growth_args,
    head_of_ticks,
    now_ticks,
    row_order,
)

WIDTH = 86_400  # the cached bucket: a day
LIVE_MAX = 256  # threads written since the cut, past which the cache is filled anew
PARTS = ("checkpoint", "writes", "blobs")


def cacheable(store: Store, cache: FactCache | None, bucket_seconds: int, since: int | None) -> bool:
    """Whether this report can be summed from the cached day rows."""
    return (cache is not None and bucket_seconds == WIDTH and (since is None or since % WIDTH == 0)
            and callable(getattr(operating(store), "growth_thread_rows", None)) and callable(getattr(cache, "growth_cut", None)))


def _order(key: Any) -> tuple:
    """Ties are broken by the key's stored bytes, as the stores' SQL compares text (SQLite's BINARY,
    PostgreSQL's "C"); a key that is not text after every text."""
    return (0, *order_key(key)) if isinstance(key, str) else (1, 0, str(key).encode())


def _ranked(sums: dict[Any, tuple[int, int]], top: int) -> list[Grower]:
    best = heapq.nsmallest(top, sums.items(), key=lambda kv: (-kv[1][1], _order(kv[0])))
    return [Grower(key, k, n) for key, (k, n) in best]


def _add(sums: dict, key: Any, k: int, n: int) -> None:
    entry = sums.get(key)
    if entry is None:
        sums[key] = [k, n]
    else:
        entry[0] += k
        entry[1] += n


def _totals(cells: list, rows: list[GrowthRow]) -> tuple[int, int, int, int]:
    """Checkpoint rows, their bytes, writes' bytes and blob rows' bytes of ``cells`` and ``rows``, as
    ``ThreadGrowth.totals`` counts them."""
    by_part = {part: [0, 0] for part in PARTS}
    for item in (*cells, *rows):
        entry = by_part.setdefault(item.part, [0, 0])
        entry[0] += item.checkpoints
        entry[1] += item.bytes
    return by_part["checkpoint"][0], by_part["checkpoint"][1], by_part["writes"][1], by_part["blobs"][1]


def _summed(cache: FactCache, identity: str, live: ThreadGrowth, live_threads: list, cells: list, since: int | None,
            by: str, top: int, basis: str, now: float) -> GrowthRows:
    """The report's ``GrowthRows`` from the cached ``cells`` (every thread but ``live_threads``) and the rows
    of the live threads (read for ``now``: every thread holding an id dated after it is among them, so their
    ``ahead_bytes`` are the store's)."""
    low = since
    grouped: dict[tuple, list[int]] = {}
    channels: dict[Any, list[int]] = {}
    dated, untimed = [0, 0], [0, 0]
    live_sums: dict[Any, list[int]] = {}
    for item, thread in [(c, None) for c in cells] + [(r, r.thread_id) for r in live.rows]:
        day = item.bucket if thread is not None else item.day
        k, n = item.checkpoints, item.bytes
        if day is None:
            untimed[0] += k
            untimed[1] += n
            continue
        dated[0] += k
        dated[1] += n
        if low is not None and day < low:
            continue
        _add(channels, item.channel, k, n)
        if thread is not None:
            _add(live_sums, thread, k, n)
        if by != "thread":
            _add(grouped, (day, "", item.channel if by == "channel" else "", item.part), k, n)
    top_threads: list[Grower] = []
    if top:
        held = {t: (k, n) for t, k, n in cache.growth_top_threads(identity, live_threads, since, top)}
        held.update({t: (k, n) for t, (k, n) in live_sums.items()})
        top_threads = _ranked(held, top)
    if by == "thread":
        live_set = set(live_threads)
        chosen = [g.key for g in top_threads] if top else None
        if chosen is None:  # every thread; the live ones from the store
            settled = [c for c in cache.growth_thread_cells(identity, None, since) if c[1] not in live_set]
        else:
            settled = cache.growth_thread_cells(identity, [t for t in chosen if t not in live_set], since)
        for day, thread, part, k, n in settled:
            _add(grouped, (day, thread, "", part), k, n)
        for r in live.rows:
            if r.bucket is not None and (low is None or r.bucket >= low) and (chosen is None or r.thread_id in chosen):
                _add(grouped, (r.bucket, r.thread_id, "", r.part), r.checkpoints, r.bytes)
    rows = sorted((GrowthRow(day, t, c, p, k, n) for (day, t, c, p), (k, n) in grouped.items()), key=row_order)
    return GrowthRows(WIDTH, since, rows, untimed[0], untimed[1], basis, top_threads,
                      _ranked({c: tuple(v) for c, v in channels.items()}, top) if top else [],
                      dated[1] + untimed[1], dated[0] + untimed[0], live.ahead_bytes, now)


def store_growth_views(store: Store, bucket_seconds: int, since: int | None,
                       asks: list[tuple[str, int]], now: float | None = None) -> list[GrowthRows]:
    """``growth_rows`` (``store_ops.Operations``) for each ask ``(by, top)``: from one statement where the
    store reads them together (``growth_views``)."""
    ops = operating(store)
    views = getattr(ops, "growth_views", None)
    if callable(views):
        return views(bucket_seconds, since, list(asks), now)
    return [ops.growth_rows(bucket_seconds, since, by, top, now) for by, top in asks]


def _storable(rows: list[GrowthRow]) -> bool:
    return all(type(r.thread_id) is str and type(r.channel) is str for r in rows)


def cached_growth_rows(store: Store, cache: FactCache, bucket_seconds: int, since: int | None, by: str,
                       top: int, now: float | None = None) -> tuple[GrowthRows, str]:
    """``growth_rows`` (``store_ops.Operations``) summed from the day rows in ``cache`` (see the module's docstring), and how:
    ``cached`` (threads written since the cut read from the store), ``filled`` (every thread read, the cache
    filled) or ``store`` (the cache could not be used: read from the store)."""
    found, how = cached_growth_views(store, cache, since, [(by, top)], now=now)
    return found[0], how


def cached_growth_views(store: Store, cache: FactCache, since: int | None, asks: list[tuple[str, int]],
                        background: bool = False, now: float | None = None) -> tuple[list[GrowthRows], str]:
    """``cached_growth_rows`` for several groupings ``(by, top)`` of one window, from one read of the store.
    ``background``: when the cache holds no rows that add up, answer from the store (``growth_rows``, as
    without a cache) and fill the cache in a thread (``fill_in_background``; how: ``filling``).

    ``now``: the time the report is for (None: the clock). The threads read from the store are those holding
    an id past the cut or dated after ``now`` (the lesser of the two is the one compared), so that what the
    store's statement counts of ``now``'s bucket after ``now`` (``ahead_bytes``) is the whole store's."""
    for by, top in asks:
        check_growth_args(WIDTH, by, top)  # as the store would
    basis = getattr(operating(store), "GROWTH_CHANNEL_BASIS", "")
    now = time.time() if now is None else float(now)

    def direct() -> list[GrowthRows]:
        return store_growth_views(store, WIDTH, since, asks, now)

    try:
        identity = store.fact_identity()
        held = cache.growth_cut(identity)
        if held is not None:
            live = operating(store).growth_thread_rows(WIDTH, min(held[0], head_of_ticks(now_ticks(now))), now)
            threads = list(dict.fromkeys(r.thread_id for r in live.rows))
            if len(threads) <= LIVE_MAX and _storable(live.rows):
                cells = cache.growth_cells(identity, threads)
                if _totals(cells, live.rows) == live.totals:
                    return [_summed(cache, identity, live, threads, cells, since, by, top, basis, now)
                            for by, top in asks], "cached"
        if background:
            found = direct()
            fill_in_background(store, cache)
            return found, "filling"
        whole = fill(store, cache, now)
        if whole is None:
            return direct(), "store"
        empty = ThreadGrowth([], whole.cut, whole.totals, whole.ahead_bytes)
        cells = cache.growth_cells(identity, [])
        return [_summed(cache, identity, empty, [], cells, since, by, top, basis, now) for by, top in asks], "filled"
    except _cache_errors():
        return direct(), "store"


def fill(store: Store, cache: FactCache, now: float | None = None) -> ThreadGrowth | None:
    """Read every thread's day rows and keep them in the cache (None: ids the cache cannot hold, not kept);
    ``now``: the time the rows are read for (their ``ahead_bytes``; the rows kept do not depend on it)."""
    whole = operating(store).growth_thread_rows(WIDTH, None, now)
    if not _storable(whole.rows):
        return None
    cache.replace_growth_rows(store.fact_identity(), whole.cut, whole.rows)
    return whole


_FILLS: dict[str, threading.Thread] = {}  # the fill running (or last run) per store identity
_FILLS_LOCK = threading.Lock()
_UNFILLABLE: set[str] = set()  # stores whose ids the cache cannot hold (not text)


def fill_in_background(store: Store, cache: FactCache) -> None:
    """``fill`` in a thread, one per store at a time: the report that started it was answered from the store,
    the next one sums the cache. Whoever closes the store or the cache first waits (``wait_for_fills``)."""
    with _FILLS_LOCK:
        running = _FILLS.get(store.identity)
        if (running is not None and running.is_alive()) or store.identity in _UNFILLABLE:
            return
        thread = threading.Thread(target=_fill_quietly, args=(store, cache), name="growth-cache-fill")
        _FILLS[store.identity] = thread
        thread.start()


def _fill_quietly(store: Store, cache: FactCache) -> None:
    # a fill that fails (the store or the cache gone, locked) is tried again by the next report; one whose ids
    # the cache cannot hold is not tried again in this process
    with contextlib.suppress(Exception):
        if fill(store, cache) is None:
            _UNFILLABLE.add(store.identity)


def wait_for_fills(timeout: float | None = None) -> None:
    """Wait for the fills started in this process (the CLI, before it closes the store and the cache)."""
    with _FILLS_LOCK:
        threads = list(_FILLS.values())
    for thread in threads:
        thread.join(timeout)


def _cache_errors() -> tuple[type[BaseException], ...]:
    """What a cache that cannot be read or written now raises (locked, its server gone)."""
    import sqlite3

    import psycopg

    from ..cache.fingerprints import WrongShape

    return sqlite3.Error, OSError, psycopg.Error, WrongShape
