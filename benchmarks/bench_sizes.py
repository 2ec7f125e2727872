"""Measuring a thread's sizes costs less than decoding every checkpoint of it.

    python benchmarks/bench_sizes.py [--db PATH] [-n 5] [--thread demo-long]

Generates the demo into a temporary folder unless --db is given, then times
``measure_thread`` (each blob read once, values never decoded) and decoding
every checkpoint of the same thread with ``Store.state``, N times each, and
prints measure_time / decode_time: well below 1 on message-heavy threads
(demo-long, the default). On image-heavy threads (demo-bloated) hashing every
stored byte costs about as much as decoding base64 strings, which is a copy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from inspector.sizes.accounting import measure_thread  # noqa: E402
from inspector.store import open_store  # noqa: E402


def median_seconds(action, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def run(db: str, thread: str, repeat: int) -> float:
    with open_store(db) as store:
        rows = store.timeline(thread)
        measure = median_seconds(lambda: measure_thread(store, thread), repeat)
        decode = median_seconds(
            lambda: [store.state(thread, r.checkpoint_id, r.checkpoint_ns) for r in rows], repeat)
        report = measure_thread(store, thread)
    ratio = measure / decode
    print(f"{thread}: {len(rows)} checkpoints, {report.stored_bytes / 1e6:.2f} MB stored")
    print(f"measure sizes:          {measure * 1e3:.1f} ms (median of {repeat})")
    print(f"decode every checkpoint: {decode * 1e3:.1f} ms (median of {repeat})")
    print(f"measure_time / decode_time = {ratio:.3f} ({'below' if ratio < 1 else 'NOT below'} 1)")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="an existing demo database (default: generate one)")
    parser.add_argument("--thread", default="demo-long")
    parser.add_argument("-n", type=int, default=5, help="repetitions (default 5)")
    args = parser.parse_args()
    if args.db:
        return 0 if run(args.db, args.thread, args.n) < 1 else 1
    from inspector.demo import write_demo

    with tempfile.TemporaryDirectory() as tmp:
        return 0 if run(f"sqlite:///{write_demo(tmp)}", args.thread, args.n) < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
