"""A page of 50 threads, in each order, against the raw SQL aggregate that lists the same rows.

    python benchmarks/bench_thread_list.py [--db bench-data/store.db] [--pg bench-data/pg | --dsn URL] [-n 20]

The store's ``threads(limit=50, sort=...)`` (counts, sizes with writes and blobs,
last update, titles, as the thread list shows them) is timed against one SQL
aggregate over the checkpoint table that ranks every thread the same way and
returns the same 50 thread ids, in the same run (median of ``-n``). Target:
within 2x. ``totals()`` (the whole store in three numbers) is timed too.

A search's first page as the pages list it (``thread_list`` with the views' redactor: the store's
substring search proposes candidates, their masked metadata confirms them) is timed against the
store's own search of the stored text (``thread_list`` with reveal: count and page in SQL), for a
thread id, a metadata value held by every small thread (past the search's bound) and one held by
the long thread's every checkpoint, and a text no thread shows.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from pg_cluster import postgres  # noqa: E402

from inspector.safety.redaction import Redactor  # noqa: E402
from inspector.store import open_store  # noqa: E402
from inspector.threads.thread_listing import thread_list  # noqa: E402

SEARCHES = ("bench-small-0001", "update", "loop", "zzqx")

RAW_SQLITE = {
    "newest": "SELECT thread_id, max(checkpoint_id) FROM checkpoints GROUP BY thread_id "
              "ORDER BY max(checkpoint_id) DESC, thread_id LIMIT 50",
    "stored": "SELECT thread_id, sum(length(checkpoint) + length(metadata)) AS n FROM checkpoints GROUP BY thread_id "
              "ORDER BY n DESC, thread_id LIMIT 50",
    "checkpoints": "SELECT thread_id, count(*) FROM checkpoints GROUP BY thread_id "
                   "ORDER BY count(*) DESC, max(checkpoint_id) DESC, thread_id LIMIT 50",
}
RAW_POSTGRES = {
    "newest": RAW_SQLITE["newest"],
    "stored": "SELECT c.thread_id, c.n + coalesce(b.n, 0) AS n FROM "
              "(SELECT thread_id, sum(pg_column_size(checkpoint) + pg_column_size(metadata)) AS n FROM checkpoints "
              "GROUP BY thread_id) c LEFT JOIN (SELECT thread_id, sum(octet_length(blob)) AS n FROM checkpoint_blobs "
              "GROUP BY thread_id) b ON b.thread_id = c.thread_id ORDER BY n DESC, c.thread_id LIMIT 50",
    "checkpoints": RAW_SQLITE["checkpoints"],
}


def median_seconds(action: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def measure(url: str, repeats: int) -> bool:
    with open_store(url) as store:
        if store.kind == "sqlite":
            raw, queries = (lambda sql: store._conn.execute(sql).fetchall()), RAW_SQLITE
        else:
            def raw(sql: str) -> list:
                with store.connection() as conn:
                    return conn.execute(sql).fetchall()
            queries = RAW_POSTGRES
        print(f"{'order':12} {'store.threads ms':>17} {'raw SQL ms':>11} {'ratio':>6}  first thread")
        ok = True
        for sort, sql in queries.items():
            ranked = store.threads(limit=50, sort=sort)
            listed = raw(sql)
            if sort != "stored" and [t.thread_id for t in ranked] != [r[0] for r in listed]:
                sys.exit(f"{sort}: the store and the raw aggregate list different threads")
            mine = median_seconds(lambda sort=sort: store.threads(limit=50, sort=sort), repeats)
            theirs = median_seconds(lambda sql=sql: raw(sql), repeats)
            ok &= mine / theirs <= 2
            print(f"{sort:12} {mine * 1000:17.1f} {theirs * 1000:11.1f} {mine / theirs:6.2f}  {ranked[0].thread_id}")
        totals = median_seconds(store.totals, repeats)
        print(f"{'totals()':12} {totals * 1000:17.1f}")
        print(f"\n{'search':18} {'masked ms':>10} {'stored text ms':>15} {'ratio':>6} {'found':>6}")
        mask = Redactor()
        for search in SEARCHES:
            listing = thread_list(store, search, mask=mask)
            mine = median_seconds(lambda search=search: thread_list(store, search, mask=mask), repeats)
            theirs = median_seconds(lambda search=search: thread_list(store, search, mask=None), repeats)
            print(f"{search:18} {mine * 1000:10.1f} {theirs * 1000:15.1f} {mine / theirs:6.2f} {listing.total:6}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"))
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store")
    parser.add_argument("-n", type=int, default=20)
    args = parser.parse_args()
    ok = True
    if args.db:
        print(f"SQLite {args.db}")
        ok &= measure(f"sqlite:///{Path(args.db).resolve()}", args.n)
    with postgres(args.dsn, args.pg) as dsn:
        if dsn:
            print(f"\nPostgreSQL {args.dsn or args.pg}")
            ok &= measure(dsn, args.n)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
