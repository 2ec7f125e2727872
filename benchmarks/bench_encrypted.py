"""Sizes and growth of an encrypted thread without its key cost what they cost on the same thread unencrypted.

    python benchmarks/bench_encrypted.py [-n 5] [--checkpoints 2000] [--final-bytes 100000] [--keep DIR]

Writes the benchmark store's long thread (``store_generator``: a real graph over DeerFlow's ``ThreadState``,
``--checkpoints`` checkpoints whose messages reach ``--final-bytes``) twice with LangGraph's ``SqliteSaver``:
once through its ``EncryptedSerializer`` (AES, ``msgpack+aes``), once plain. Then, with no key given, times on
each (medians of N, no analysis cache): the thread's sizes (``measure_thread``: every blob measured, nothing
decrypted), the store's growth by day and channel (``Operations.growth_rows``, what the growth report reads) and
the timeline, and prints encrypted / plain.
Without the key nothing is decrypted, so the ratios should sit near 1 (an encrypted checkpoint is one blob:
it is measured whole instead of channel by channel).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.store_generator import LONG_THREAD, Shape, build_graph, write_long_thread  # noqa: E402
from inspector.sizes.accounting import measure_thread  # noqa: E402
from inspector.store import encryption, open_store  # noqa: E402
from inspector.store_ops import operating

KEY = "bench-aes-key-0123456789abcdef!!"  # 32 characters


def write(path: Path, shape: Shape, encrypted: bool) -> Path:
    from langgraph.checkpoint.serde.encrypted import EncryptedSerializer
    from langgraph.checkpoint.sqlite import SqliteSaver

    if path.exists():
        return path
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    try:
        serde = EncryptedSerializer.from_pycryptodome_aes(key=KEY.encode()) if encrypted else None
        write_long_thread(build_graph(shape, SqliteSaver(conn, serde=serde)), shape)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path


def median_seconds(action, repeat: int) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def timings(db: Path, repeat: int) -> dict[str, float]:
    with open_store(str(db)) as store:
        return {
            "sizes": median_seconds(lambda: measure_thread(store, LONG_THREAD), repeat),
            "growth": median_seconds(lambda: operating(store).growth_rows(by="channel", top=10), repeat),
            "timeline": median_seconds(lambda: store.timeline(LONG_THREAD), repeat),
        }


def run(folder: Path, shape: Shape, repeat: int) -> dict[str, float]:
    os.environ.pop(encryption.KEY_ENV, None)
    os.environ.pop("INSPECTOR_AES_KEY", None)
    encryption.set_key_source(lambda: None)  # no key: nothing is decrypted
    plain = write(folder / "plain.db", shape, encrypted=False)
    encrypted = write(folder / "encrypted.db", shape, encrypted=True)
    with open_store(str(encrypted)) as store:
        rows = store.timeline(LONG_THREAD)
        report = measure_thread(store, LONG_THREAD)
        assert not store.state(LONG_THREAD).values, "the benchmark must run without the key"
    print(f"{LONG_THREAD}: {len(rows)} checkpoints, encrypted {report.stored_bytes / 1e6:.1f} MB stored "
          f"(state {report.first_total_bytes / 1e3:.1f} KB -> {report.last_total_bytes / 1e3:.1f} KB), "
          f"plain {plain.stat().st_size / 1e6:.1f} MB file")
    base, locked = timings(plain, repeat), timings(encrypted, repeat)
    ratios = {name: locked[name] / base[name] for name in base}
    for name in base:
        print(f"{name:9s} encrypted, no key {locked[name] * 1e3:8.1f} ms / plain {base[name] * 1e3:8.1f} ms "
              f"= {ratios[name]:.2f} (median of {repeat})")
    return ratios


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=5, help="repetitions (default 5)")
    parser.add_argument("--checkpoints", type=int, default=2000)
    parser.add_argument("--final-bytes", type=int, default=100_000)
    parser.add_argument("--keep", help="a folder to keep (and reuse) the two stores in")
    args = parser.parse_args()
    shape = Shape(checkpoints=args.checkpoints, final_bytes=args.final_bytes, small_threads=0)
    if args.keep:
        Path(args.keep).mkdir(parents=True, exist_ok=True)
        ratios = run(Path(args.keep), shape, args.n)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            ratios = run(Path(tmp), shape, args.n)
    return 0 if max(ratios.values()) < 2 else 1


if __name__ == "__main__":
    sys.exit(main())
