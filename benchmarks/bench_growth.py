"""Growth over time (``growth_report``: by thread, by channel and the totals) against the thread-list
aggregate (a page of 50 threads ranked by stored bytes), on the same store in the same run.

    python benchmarks/bench_growth.py [--db bench-data/store.db] [--pg bench-data/pg | --dsn URL] [-n 5]

Both read keys and lengths only; the target: growth answers in about the time of the thread-list
aggregate (ratio <= 1.5). Prints the median of ``-n`` runs of each and their ratio, for each grouping:
the first report (nothing remembered) and a report of a store unchanged since the last one (its rows are
remembered while the store's fingerprint, one aggregate over lengths, stays the same).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from bench_thread_list import median_seconds  # noqa: E402
from pg_cluster import postgres  # noqa: E402

from inspector.operations.growth import _REMEMBERED, growth_report  # noqa: E402
from inspector.store import open_store  # noqa: E402


def measure(url: str, repeats: int) -> None:
    with open_store(url) as store:
        totals = store.totals()
        report = growth_report(store, since_days=3650)
        print(f"{totals.threads:,} threads, {totals.checkpoints:,} checkpoints, {totals.stored_bytes:,} bytes; "
              f"{len(report.points)} day(s) with checkpoints")
        listing = median_seconds(lambda: store.threads(limit=50, sort="stored"), repeats)
        print(f"{'thread list (stored)':34} {listing * 1000:9.1f} ms")
        for by, days in (("store", 30), ("store", 3650), ("channel", 30), ("thread", 30)):
            def cold(by=by, days=days):
                _REMEMBERED.clear()
                return growth_report(store, by, since_days=days)

            first = median_seconds(cold, repeats)
            again = median_seconds(lambda by=by, days=days: growth_report(store, by, since_days=days), repeats)
            print(f"{f'growth --by {by} --since {days}':34} {first * 1000:9.1f} ms  ratio {first / listing:5.2f}"
                  f"   store unchanged since: {again * 1000:7.1f} ms  ratio {again / listing:5.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"))
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store")
    parser.add_argument("-n", type=int, default=5)
    args = parser.parse_args()
    if args.db:
        print(f"SQLite {args.db}")
        measure(f"sqlite:///{Path(args.db).resolve()}", args.n)
    with postgres(args.dsn, args.pg) as dsn:
        if dsn:
            print(f"\nPostgreSQL {args.dsn or args.pg}")
            measure(dsn, args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
