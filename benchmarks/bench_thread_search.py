"""The thread search through the analysis cache's index against the thread list's own time, in the same run.

    python benchmarks/bench_thread_search.py [--threads 10000] [--pg] [--dsn URL] [-n 7]

A store of ``--threads`` threads (``store_generator``: a short DeerFlow thread, then one-checkpoint threads written
by ``update_state``, each a message and a title) is written into a temporary SQLite file, and with ``--pg`` into a
throwaway PostgreSQL cluster (or the server at ``--dsn``, whose analysis cache is then PostgreSQL too, as
``cache_url`` makes it). Timed, as the ``threads`` command and the Threads page run them (``thread_list`` with
the views' redactor, a page of 50):

- the list: no search, no cache (the baseline; median of ``-n``);
- the first search with an empty analysis cache (every thread read into the index);
- a later search (the index up to date: the store's keys compared with its cut, then the index searched; median
  of ``-n``, a different thread each time);
- a search after 100 new threads were written (only they are read).

Each is printed as a ratio to the list. Target: a later search at most 1.5x the list.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from langchain_core.messages import HumanMessage  # noqa: E402
from pg_cluster import cluster  # noqa: E402
from store_generator import Shape, build_graph, deerflow_run_start, generate_postgres, generate_sqlite  # noqa: E402

from inspector.cache import AnalysisCache  # noqa: E402
from inspector.safety.redaction import Redactor  # noqa: E402
from inspector.store import open_store  # noqa: E402
from inspector.threads.thread_listing import thread_list  # noqa: E402

PAGE = 50
LATER_TARGET = 1.5
NEW_THREADS = 100


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def shape(threads: int) -> Shape:
    return Shape(checkpoints=40, final_bytes=20_000, small_threads=threads)


def add_threads(checkpointer, count: int) -> None:
    """``count`` threads more, written as the generator writes its small threads."""
    graph = build_graph(shape(0), checkpointer)
    for index in range(count):
        thread_id = f"bench-new-{index:04d}"
        graph.update_state({"configurable": {"thread_id": thread_id}},
                           {"messages": [HumanMessage(f"a late albatross number {index} asked for the survey")],
                            "title": f"Late thread {index}", **deerflow_run_start(thread_id)}, as_node="agent")


def measure(url: str, open_cache: Callable[[], contextlib.AbstractContextManager], writer: Callable[[int], None],
            threads: int, repeats: int) -> bool:
    mask = Redactor()
    with open_store(url) as store:
        def listing(search: str | None = None, cache=None) -> object:
            return thread_list(store, search, limit=PAGE, mask=mask, cache=cache)

        base = statistics.median(timed(listing) for _ in range(repeats))
        with open_cache() as cache:
            first = timed(lambda: listing(f"small thread {threads // 2}", cache))
            picked = [f"small thread {threads // 3 + i * 7}" for i in range(repeats)]
            found = listing(picked[0], cache)
            later = statistics.median(timed(lambda s=s: listing(s, cache)) for s in picked)
            writer(NEW_THREADS)
            after = timed(lambda: listing("albatross 42", cache))
            late = listing("albatross 42", cache)
    print(f"  the list, a page of {PAGE} of {threads + 1:,} threads: {base * 1000:8.1f} ms")
    print(f"  first search, empty cache (every thread indexed): {first * 1000:8.1f} ms  {first / base:7.2f}x")
    print(f"  a later search:                                   {later * 1000:8.1f} ms  {later / base:7.2f}x"
          f"  (target <= {LATER_TARGET})")
    print(f"  a search after {NEW_THREADS} new threads:                {after * 1000:8.1f} ms  {after / base:7.2f}x")
    first_hit = found.threads[0].thread_id if found.threads else None
    print(f"  found: {first_hit} for {picked[0]!r}; {late.threads[0].thread_id if late.threads else None} for "
          "'albatross 42'")
    return later / base <= LATER_TARGET


def run_sqlite(threads: int, repeats: int, folder: Path) -> bool:
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    path = generate_sqlite(folder / "store.db", shape(threads))

    def writer(count: int) -> None:
        conn = sqlite3.connect(path, check_same_thread=False)
        try:
            add_threads(SqliteSaver(conn), count)
        finally:
            conn.close()

    print(f"SQLite, the embedded analysis cache (FTS5), {threads:,} threads")
    return measure(f"sqlite:///{path}", lambda: AnalysisCache(folder / "cache"), writer, threads, repeats)


@contextlib.contextmanager
def _server(dsn: str | None) -> Iterator[str]:
    if dsn:
        yield dsn
    else:
        with cluster() as url:
            yield url


def run_postgres(dsn: str | None, threads: int, repeats: int) -> bool:
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    from inspector.cache.postgres import PostgresAnalysisCache

    with _server(dsn) as url:
        with psycopg.connect(url, autocommit=True) as conn:
            for name in ("inspector_bench_search", "inspector_bench_search_cache"):
                conn.execute(f"DROP DATABASE IF EXISTS {name}")
                conn.execute(f"CREATE DATABASE {name}")
        store_url, cache_url = (_database(url, "inspector_bench_search"), _database(url, "inspector_bench_search_cache"))
        generate_postgres(store_url, shape(threads))

        def writer(count: int) -> None:
            with PostgresSaver.from_conn_string(store_url) as saver:
                add_threads(saver, count)

        print(f"PostgreSQL, the analysis cache in PostgreSQL (full-text search), {threads:,} threads")
        return measure(store_url, lambda: PostgresAnalysisCache(cache_url), writer, threads, repeats)


def _database(url: str, name: str) -> str:
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=10_000)
    parser.add_argument("--pg", action="store_true", help="PostgreSQL too, in a throwaway cluster")
    parser.add_argument("--dsn", help="PostgreSQL too, on this server (databases created and dropped in it)")
    parser.add_argument("--no-sqlite", action="store_true")
    parser.add_argument("-n", type=int, default=7)
    args = parser.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as folder:
        if not args.no_sqlite:
            ok &= run_sqlite(args.threads, args.n, Path(folder))
        if args.pg or args.dsn:
            ok &= run_postgres(args.dsn, args.threads, args.n)
    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
