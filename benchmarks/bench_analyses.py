"""`sizes`, `health`, `replay` and `images` on the long thread, as whole processes, against the limit.

    python benchmarks/bench_analyses.py [--db bench-data/store.db] [--pg bench-data/pg | --dsn URL] [-n 2]

The baseline is a whole process that reads every blob of the thread and
msgpack-decodes it (``read_thread_blobs.py``), measured in the same run. Each
command runs with a fresh analysis cache (cold), then again with that cache
(warm). Prints seconds, peak RSS and the ratios; targets: cold within 2x of the
baseline, warm within 0.3x of cold, peak RSS under 300 MB. Best of ``-n`` runs.
"work" columns: the analysis alone, timed inside a process whose imports are done
(``run_analysis.py``), cold and warm: what the cache saves, start-up apart.
Generate the store first: ``python benchmarks/store_generator.py sqlite bench-data/store.db``
(and ``postgres bench-data/pg``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from pg_cluster import postgres  # noqa: E402
from store_generator import LONG_THREAD  # noqa: E402

COMMANDS = ("sizes", "health", "replay", "images")


def run(argv: list[str], env: dict[str, str]) -> tuple[float, int]:
    """Wall seconds and peak RSS (bytes) of one whole process."""
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # health and replay exit 1 when they find something
        sys.exit(f"{' '.join(argv)} failed ({code}): {proc.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss * 1024


def analysis_only(url: str, thread: str, command: str, cache: str, env: dict[str, str]) -> float:
    """Seconds of the analysis alone, in a process whose imports are done (``run_analysis.py``)."""
    out = subprocess.run([sys.executable, str(HERE / "run_analysis.py"), url, thread, command, cache],
                         cwd=REPO, env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def best(runs: list[tuple[float, int]]) -> tuple[float, int]:
    return min(r[0] for r in runs), max(r[1] for r in runs)


def measure(url: str, thread: str, repeats: int) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    baseline = best([run([sys.executable, str(HERE / "read_thread_blobs.py"), url, thread], env) for _ in range(repeats)])
    rows = [{"what": "read + decode every blob (baseline)", "seconds": baseline[0], "rss": baseline[1]}]
    for command in COMMANDS:
        argv = [sys.executable, "-m", "inspector", command, "--db", url, thread, "--json", "--quiet"]
        colds, warms = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
                env_cache = {**env, "INSPECTOR_CACHE_DIR": cache}
                colds.append(run(argv, env_cache))
                warms.append(run(argv, env_cache))
        cold, warm = best(colds), best(warms)
        with tempfile.TemporaryDirectory(prefix="bench-cache-") as cache:
            work_cold = analysis_only(url, thread, command, cache, env)
            work_warm = analysis_only(url, thread, command, cache, env)
        rows.append({"what": command, "seconds": cold[0], "rss": cold[1], "warm": warm[0], "warm_rss": warm[1],
                     "cold_ratio": cold[0] / baseline[0], "warm_ratio": warm[0] / cold[0],
                     "work_cold": work_cold, "work_warm": work_warm})
    return rows


def report(label: str, rows: list[dict]) -> bool:
    print(f"\n{label}")
    print(f"{'':38} {'cold s':>7} {'x base':>7} {'warm s':>7} {'warm/cold':>9} {'peak RSS MB':>12}"
          f"  {'work cold s':>11} {'work warm s':>11}")
    ok = True
    for row in rows:
        if "warm" not in row:
            print(f"{row['what']:38} {row['seconds']:7.2f} {'':>7} {'':>7} {'':>9} {row['rss'] / 1e6:12.0f}")
            continue
        rss = max(row["rss"], row["warm_rss"]) / 1e6
        met = row["cold_ratio"] <= 2 and row["warm_ratio"] <= 0.3 and rss < 300
        ok &= met
        print(f"{row['what']:38} {row['seconds']:7.2f} {row['cold_ratio']:7.2f} {row['warm']:7.2f} "
              f"{row['warm_ratio']:9.2f} {rss:12.0f}  {row['work_cold']:11.2f} {row['work_warm']:11.2f}"
              f"{'' if met else '  (target missed)'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"), help="the SQLite store")
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store")
    parser.add_argument("--thread", default=LONG_THREAD)
    parser.add_argument("-n", type=int, default=2, help="runs of each, the best kept")
    args = parser.parse_args()
    ok = True
    if args.db:
        ok &= report(f"SQLite {args.db}", measure(f"sqlite:///{Path(args.db).resolve()}", args.thread, args.n))
    with postgres(args.dsn, args.pg) as dsn:
        if dsn:
            ok &= report(f"PostgreSQL {args.dsn or args.pg}", measure(dsn, args.thread, args.n))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
