"""A retention preview costs less than reading every timeline, and predicts what VACUUM gives back.

    python benchmarks/bench_retention.py [--db PATH] [--keep-latest 2] [-n 3] [--apply]

Generates the demo into a temporary folder unless --db (a SQLite store) is given.
Times ``plan_store`` (keys and stored lengths, page footprints computed, metadata
read for a few checkpoints) against reading every thread's timeline through the
store (keys plus every checkpoint's metadata, which SQLite keeps after the
checkpoint blob), N times each, and prints plan_time / timeline_time. With
--apply it also applies the printed statements to a copy, runs VACUUM and
prints predicted / actual bytes reclaimed (the target is within 25%).
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.retention import Policy, plan_store, statements  # noqa: E402
from inspector.store import open_store  # noqa: E402


def median_seconds(action, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def read_timelines(store) -> int:
    total = 0
    for summary in store.threads(limit=10**9):
        total += len(store.timeline(summary.thread_id))
    return total


def apply_to_copy(db: Path, script: str) -> int:
    """Bytes the file loses once the statements ran and VACUUM returned the free pages."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "copy.db"
        shutil.copy(db, copy)
        before = copy.stat().st_size
        conn = sqlite3.connect(copy)
        try:
            conn.executescript(script)
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        return before - copy.stat().st_size


def run(db: Path, policy: Policy, repeat: int, apply: bool) -> float:
    with open_store(str(db)) as store:
        plan = plan_store(store, policy)
        planning = median_seconds(lambda: plan_store(store, policy), repeat)
        timelines = median_seconds(lambda: read_timelines(store), repeat)
    ratio = planning / timelines
    print(f"{db}: {db.stat().st_size / 1e6:.1f} MB, {plan.threads_examined} thread(s)")
    print(f"plan {policy.describe()}: {plan.checkpoints} checkpoint(s) from {len(plan.threads)} thread(s), "
          f"{plan.reclaim_bytes / 1e6:.2f} MB predicted, {len(plan.breaks)} break(s)")
    print(f"plan_store:            {planning * 1e3:.1f} ms (median of {repeat})")
    print(f"every timeline read:   {timelines * 1e3:.1f} ms (median of {repeat})")
    print(f"plan_time / timeline_time = {ratio:.3f}")
    if apply:
        lost = apply_to_copy(db, statements(plan))
        print(f"applied to a copy + VACUUM: {lost / 1e6:.2f} MB reclaimed; predicted / actual = "
              f"{plan.reclaim_bytes / max(lost, 1):.3f} (target 0.75 .. 1.25)")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an existing SQLite store (default: generate the demo)")
    parser.add_argument("--keep-latest", type=int, default=2)
    parser.add_argument("-n", type=int, default=3, help="repetitions (default 3)")
    parser.add_argument("--apply", action="store_true", help="apply the statements to a copy and VACUUM it")
    args = parser.parse_args()
    policy = Policy(keep_latest=args.keep_latest)
    if args.db:
        run(Path(args.db), policy, args.n, args.apply)
        return 0
    from inspector.demo import write_demo

    with tempfile.TemporaryDirectory() as tmp:
        run(write_demo(tmp), policy, args.n, args.apply)
    return 0


if __name__ == "__main__":
    sys.exit(main())
