"""One page of a long thread's history (``Store.history`` with a limit) against the whole timeline.

    python benchmarks/bench_history_page.py [--checkpoints 1000] [--dsn postgresql://...]

A real graph writes one thread whose ``messages`` grow by one message per step, into a
SQLite file and into PostgreSQL (a throwaway cluster unless ``--dsn`` is given). Then, on
each backend, the newest page, a page from the middle (``before=``) and a metadata filter
are read and timed against ``timeline()``. Prints the ratios (target: a page at least 10x
cheaper than the timeline, so paging does not read the whole history).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_pg_timeline import THREAD, best_of, write_growing_thread, write_thread  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from pg_cluster import cluster  # noqa: E402

from inspector.store import open_store  # noqa: E402

PAGE = 20


def measure(url: str, label: str, repeats: int) -> float:
    with open_store(url) as store:
        whole_s, rows = best_of(repeats, lambda: store.timeline(THREAD))
        middle = rows[len(rows) // 2].checkpoint_id
        newest_s, newest = best_of(repeats, lambda: store.history(THREAD, limit=PAGE))
        middle_s, page = best_of(repeats, lambda: store.history(THREAD, before=middle, limit=PAGE))
        filter_s, found = best_of(repeats, lambda: store.history(THREAD, filter={"step": len(rows) // 2}))
    if newest != rows[:PAGE] or page != rows[len(rows) // 2 + 1: len(rows) // 2 + 1 + PAGE] or len(found) != 1:
        sys.exit(f"{label}: pages disagree with the timeline")
    worst = whole_s / max(newest_s, middle_s)
    print(f"{label}: {len(rows)} checkpoints")
    print(f"  timeline():                 {whole_s * 1000:9.1f} ms")
    print(f"  history(limit={PAGE}):          {newest_s * 1000:9.1f} ms")
    print(f"  history(before=mid, limit): {middle_s * 1000:9.1f} ms")
    print(f"  history(filter=step):       {filter_s * 1000:9.1f} ms")
    print(f"  ratio timeline / page: {worst:.1f}x (target >= 10x)")
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=int, default=1000)
    parser.add_argument("--dsn", help="an existing PostgreSQL database (the thread is written there)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "history.db"
        conn = sqlite3.connect(db, check_same_thread=False)
        saver = SqliteSaver(conn)
        saver.setup()
        conn.execute("PRAGMA synchronous=OFF")
        write_growing_thread(saver, args.checkpoints)
        conn.close()
        ratios = [measure(f"sqlite:///{db}", "sqlite", args.repeats)]
    if args.dsn:
        write_thread(args.dsn, args.checkpoints)
        ratios.append(measure(args.dsn, "postgres", args.repeats))
    else:
        with cluster() as dsn:
            write_thread(dsn, args.checkpoints)
            ratios.append(measure(dsn, "postgres", args.repeats))
    return 0 if min(ratios) >= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
