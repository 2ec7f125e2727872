"""Replicas sharing the analysis cache: a second process's first look at the long thread, as a ratio to the
first process's, both using one PostgreSQL cache (``cache_url``) over one PostgreSQL store.

    python benchmarks/bench_shared_cache.py --pg bench-data/pg | --dsn URL   [--thread bench-long]

Each look is a fresh ``python -m inspector sizes THREAD`` process (what a dashboard replica does when
its Size panel opens); the cache database is created empty on the same server first. Prints both
times and the ratio (lower is better).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from pg_cluster import postgres  # noqa: E402

CACHE_DATABASE = "inspector_bench_cache"


def look(dsn: str, cache_url: str, thread: str) -> float:
    env = {**os.environ, "INSPECTOR_CACHE_URL": cache_url, "PYTHONPATH": str(REPO)}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "inspector", "sizes", thread, "--db", dsn, "--quiet", "--json"],
                   cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store (a role that may create databases)")
    parser.add_argument("--thread", default="bench-long")
    args = parser.parse_args()
    import psycopg

    with postgres(args.dsn, args.pg) as dsn:
        if not dsn:
            sys.exit("give --pg FOLDER or --dsn URL")
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {CACHE_DATABASE}")
            conn.execute(f"CREATE DATABASE {CACHE_DATABASE}")
        cache_url = urllib.parse.urlunsplit(urllib.parse.urlsplit(dsn)._replace(path=f"/{CACHE_DATABASE}"))
        first = look(dsn, cache_url, args.thread)
        second = look(dsn, cache_url, args.thread)
        with psycopg.connect(cache_url) as conn:
            facts = conn.execute("SELECT count(*) FROM inspector_cache_facts").fetchone()[0]
        print(f"first process (computes, fills the shared cache): {first:7.2f} s")
        print(f"second process (reads the shared cache):         {second:7.2f} s   ratio {second / first:.2f}")
        print(f"facts in the shared cache: {facts:,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
