"""Diffing two adjacent checkpoints of the bloated demo thread costs less than decoding one.

    python benchmarks/bench_diff.py [--db PATH] [-n 50]

Generates the demo into a temporary folder unless --db is given, takes the
first checkpoint of demo-bloated stored above 1 MB (the step that adds the
fifth image) and its parent, then times decoding the child and diffing the
pair N times each, and prints diff_time / decode_time (expected below 1).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.diff import diff  # noqa: E402
from inspector.store import open_store  # noqa: E402

THREAD = "demo-bloated"


def median_seconds(action, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run(db: str, repeat: int) -> float:
    with open_store(db) as store:
        rows = sorted((r for r in store.timeline(THREAD) if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
        child = next(r for r in rows if r.stored_bytes > 1_000_000 and r.parent_checkpoint_id)
        newest = store.state(THREAD, child.checkpoint_id)
        parent = store.state(THREAD, child.parent_checkpoint_id)
        decode = median_seconds(lambda: store.state(THREAD, newest.checkpoint_id), repeat)
        compare = median_seconds(lambda: diff(parent, newest), repeat)
    ratio = compare / decode
    changed = ", ".join(f.field for f in diff(parent, newest).changed_fields)
    print(f"checkpoint {newest.checkpoint_id}: {newest.stored_bytes / 1e6:.2f} MB stored; changed: {changed}")
    print(f"decode one checkpoint: {decode * 1e3:.3f} ms (median of {repeat})")
    print(f"diff two checkpoints:  {compare * 1e3:.3f} ms (median of {repeat})")
    print(f"diff_time / decode_time = {ratio:.3f} ({'below' if ratio < 1 else 'NOT below'} 1)")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an existing demo database (default: generate one)")
    parser.add_argument("-n", type=int, default=50, help="repetitions (default 50)")
    args = parser.parse_args()
    if args.db:
        return 0 if run(args.db, args.n) < 1 else 1
    from inspector.demo import write_demo

    with tempfile.TemporaryDirectory() as tmp:
        return 0 if run(str(write_demo(tmp)), args.n) < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
