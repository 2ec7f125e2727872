"""Growth over time (``growth_report``: by thread, by channel and the totals) against the thread-list
aggregate (a page of 50 threads ranked by stored bytes), on the same store in the same run.

    python benchmarks/bench_growth.py [--db bench-data/store.db] [--pg bench-data/pg | --dsn URL] [-n 5]

Both read keys and lengths only; the target: growth answers in about the time of the thread-list
aggregate. Each growth run is paired with a run of the thread list just before it (the machine's load
moves during a run), and each cell prints the median of ``-n`` growth runs and its ratio to the median of
the thread-list runs paired with them, for each grouping:

- ``no cache``: the first report without an analysis cache (nothing remembered: the store dates every row);
- ``cold cache``: the first report ever with an empty analysis cache: answered from the store as without
  a cache, the cache then filled in a thread (its time printed at the end of the line: every thread's day
  rows read and written to the cache);
- ``warm cache``: the first report of another process (or the next CLI run) on a store the cache has
  seen, unchanged since (the store's totals and the threads written since the cut, none here);
- ``warm, 10 written``: the same with the ten newest threads written since (the cut moved back, so the
  store reads them again: what a live store costs);
- ``unchanged``: a report of a store unchanged since the last one in the same process, without a cache
  (its rows remembered while the store's fingerprint, one aggregate over lengths, stays the same).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_thread_list import median_seconds  # noqa: E402
from pg_cluster import postgres  # noqa: E402

from inspector.cache import AnalysisCache  # noqa: E402
from inspector.operations.growth import _REMEMBERED, growth_report  # noqa: E402
from inspector.operations.growth_summaries import cached_growth_rows, wait_for_fills  # noqa: E402
from inspector.store import open_store  # noqa: E402
from inspector.store.not_utf8 import token  # noqa: E402
from inspector.store_ops import operating  # noqa: E402

LIVE = 10  # threads written since the cut, in the last column


def move_cut_back(cache: AnalysisCache, store, threads: int) -> int:
    """Move the cache's cut back to before the ``threads`` newest threads' newest ids: the next report reads
    them from the store again, as if they had been written since. Returns how many threads that is."""
    newest = sorted((cid for _, cid in store._query(
        "SELECT thread_id, max(checkpoint_id) FROM checkpoints GROUP BY thread_id")), reverse=True)
    cut = newest[threads] if len(newest) > threads else ""
    cache._run(lambda conn: conn.execute("UPDATE growth_cuts SET cut = ? WHERE store = ?", [token(cut), store.fact_identity()]))
    return len({r.thread_id for r in operating(store).growth_thread_rows(86_400, cut).rows})


class Paired:
    """Growth runs, each after a run of the thread list: medians, and their ratio."""

    def __init__(self, listing) -> None:
        self.listing = listing
        self.lists: list[float] = []

    def time(self, action) -> float:
        started = time.perf_counter()
        self.listing()
        self.lists.append(time.perf_counter() - started)
        started = time.perf_counter()
        action()
        return time.perf_counter() - started

    def median(self, action, repeats: int) -> tuple[float, float]:
        """The median of ``repeats`` runs of ``action`` and of the thread-list runs paired with them."""
        self.lists = []
        found = statistics.median(self.time(action) for _ in range(repeats))
        return found, statistics.median(self.lists)


def measure(url: str, repeats: int, folder: Path) -> None:
    with open_store(url) as store:
        totals = store.totals()
        report = growth_report(store, since_days=3650)
        print(f"{totals.threads:,} threads, {totals.checkpoints:,} checkpoints, {totals.stored_bytes:,} bytes; "
              f"{len(report.points)} day(s) with checkpoints")
        paired = Paired(lambda: store.threads(limit=50, sort="stored"))
        listing = median_seconds(paired.listing, repeats)
        print(f"{'thread list (stored)':30} {listing * 1000:9.1f} ms (each ratio is to the thread-list runs paired "
              "with that cell's)")
        print(f"{'':30} {'no cache':>16} {'cold cache':>16} {'warm cache':>16} {f'warm, {LIVE} written':>18} "
              f"{'unchanged':>16}")
        runs = iter(range(1_000_000))
        for by, days in (("store", 30), ("store", 3650), ("channel", 30), ("thread", 30)):
            def direct(by=by, days=days):
                _REMEMBERED.clear()
                return growth_report(store, by, since_days=days)

            first = paired.median(direct, repeats)
            growth_report(store, by, since_days=days)
            again = paired.median(lambda by=by, days=days: growth_report(store, by, since_days=days), repeats)
            answers, fills = [], []
            paired.lists = []
            for _ in range(repeats):  # each an empty cache: answered from the store, then filled in a thread
                with AnalysisCache(folder / f"cold-{next(runs)}") as empty:
                    answers.append(paired.time(lambda by=by, days=days, empty=empty: growth_report(
                        store, by, since_days=days, cache=empty)))
                    answered = time.perf_counter()
                    wait_for_fills()
                    fills.append(time.perf_counter() - answered)
            cold_lists = statistics.median(paired.lists)
            filling, filled = (statistics.median(answers), cold_lists), (statistics.median(fills), cold_lists)
            with AnalysisCache(folder / "warm") as cache:
                growth_report(store, by, since_days=days, cache=cache)  # filled by an earlier process
                wait_for_fills()
            with AnalysisCache(folder / "warm") as cache:  # another process's first look
                warm = paired.median(lambda by=by, days=days: growth_report(store, by, since_days=days, cache=cache),
                                     repeats)
                live = move_cut_back(cache, store, LIVE)
                written = paired.median(lambda by=by, days=days: growth_report(store, by, since_days=days,
                                                                               cache=cache), repeats)
                how = cached_growth_rows(store, cache, 86_400, None, by, 10)[1]
                assert how == "cached" and live >= 1, (how, live)  # the warm columns were summed from the cache

            def cell(found: tuple[float, float]) -> str:
                seconds, baseline = found
                return f"{seconds * 1000:7.1f} ms {seconds / baseline:5.2f}"

            print(f"{f'growth --by {by} --since {days}':30} {cell(first):>16} {cell(filling):>16} {cell(warm):>16} "
                  f"{cell(written):>18} {cell(again):>16}   fill after the cold answer {cell(filled)}")
        print(f"(ms and the ratio to the thread list; 'warm, {LIVE} written': {live} thread(s) read from the store)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"))
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store")
    parser.add_argument("-n", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-growth-cache-") as folder:
        if args.db:
            print(f"SQLite {args.db}")
            measure(f"sqlite:///{Path(args.db).resolve()}", args.n, Path(folder) / "sqlite")
        with postgres(args.dsn, args.pg) as dsn:
            if dsn:
                print(f"\nPostgreSQL {args.dsn or args.pg}")
                measure(dsn, args.n, Path(folder) / "postgres")
    return 0


if __name__ == "__main__":
    sys.exit(main())
