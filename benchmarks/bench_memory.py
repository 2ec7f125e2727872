"""The Memory page's namespace tree over 100,000 items, against a ``SELECT count(*)`` of the same items in the same run.

    python benchmarks/bench_memory.py [--db ../bench-data/memory.db] [--items 100000] [--pg DIR | --dsn URL] [-n 20]

The store is written by LangGraph's own ``SqliteStore`` (``PostgresStore`` with ``--pg``/``--dsn``), in batches of
puts: ``--items`` items over ``users/<user>/memories`` and ``users/<user>/profile`` for one user per 50 items, plus
an ``org`` namespace, a quarter of them with a TTL, values of 60-400 bytes. A SQLite file of the right size is kept
and reused (``--fresh`` writes it again).

Timed (median of ``-n``): what the page computes for its tree, ``build_tree(reader.namespaces())`` (one aggregate
over lengths, TTLs and update times per namespace, and the vector aggregate) and laying out its first screen
(``tree_rows``), against ``SELECT count(*) FROM store`` through the same read-only connection; and the namespace
aggregate alone, the floor of any tree with bytes (count(*) reads one index; the aggregate reads every row's
length, TTL and update time). A namespace's first page of items and one item whole are timed too, for scale.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from pg_cluster import postgres  # noqa: E402

from inspector.memory import open_memory  # noqa: E402
from inspector.memory.tree import build_tree, totals, tree_rows  # noqa: E402

PER_USER = 50
BATCH = 2_000


CPU: dict[int, float] = {}  # id(action) -> the median CPU seconds this process spent on it


def median_seconds(action: Callable[[], object], repeats: int) -> float:
    """The median wall-clock seconds of ``action`` (its median CPU seconds in this process kept in ``CPU``)."""
    samples, cpu = [], []
    for _ in range(repeats):
        started, used = time.perf_counter(), time.process_time()
        action()
        samples.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    CPU[id(action)] = statistics.median(cpu)
    return statistics.median(samples)


def puts(items: int) -> list[Any]:
    from langgraph.store.base import PutOp

    ops = []
    for n in range(items):
        user = f"user-{n // PER_USER:05d}"
        if n % 997 == 0:
            namespace = ("org", "policies")
        elif n % PER_USER < 5:
            namespace = ("users", user, "profile")
        else:
            namespace = ("users", user, "memories")
        value = {"text": f"memory {n}: " + "likes tea and short answers " * (1 + n % 12), "thread_id": f"thread-{n % 777}"}
        ops.append(PutOp(namespace, f"item-{n:06d}", value, index=False, ttl=60.0 if n % 4 == 0 else None))
    return ops


def write(store: Any, items: int) -> None:
    ops = puts(items)
    for start in range(0, len(ops), BATCH):
        store.batch(ops[start:start + BATCH])


def sqlite_store(path: Path, items: int, fresh: bool) -> None:
    from langgraph.store.sqlite import SqliteStore

    if path.exists() and not fresh:
        conn = sqlite3.connect(path)
        try:
            if conn.execute("SELECT count(*) FROM store").fetchone()[0] == items:
                return
        except sqlite3.DatabaseError:
            pass
        finally:
            conn.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    store = SqliteStore(conn)
    store.setup()
    write(store, items)
    conn.close()
    print(f"wrote {items:,} items with SqliteStore in {time.perf_counter() - started:.1f} s")


def postgres_store(dsn: str, items: int) -> None:
    import psycopg
    from langgraph.store.postgres import PostgresStore

    with psycopg.connect(dsn, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('store') IS NOT NULL").fetchone()[0]
        if exists and conn.execute("SELECT count(*) FROM store").fetchone()[0] == items:
            return
        if exists:
            conn.execute("DELETE FROM store")
    started = time.perf_counter()
    with PostgresStore.from_conn_string(dsn) as store:
        store.setup()
        write(store, items)
    print(f"wrote {items:,} items with PostgresStore in {time.perf_counter() - started:.1f} s")


def measure(url: str, repeats: int) -> float:
    with open_memory(url) as reader:
        def tree() -> Any:
            root = build_tree(reader.namespaces())
            tree_rows(root)
            return root

        root = tree()
        count = reader.count()
        if totals(root).items != count:
            sys.exit(f"the tree counts {totals(root).items:,} items, count(*) {count:,}")
        count_action = reader.count
        mine = median_seconds(tree, repeats)
        theirs = median_seconds(count_action, repeats)
        params = [reader._now_param(datetime.now(timezone.utc))]

        def aggregate_action() -> Any:
            return reader._query(reader._sql(reader.dialect.namespaces), params)

        aggregate = median_seconds(aggregate_action, repeats)
        cpu_mine, cpu_theirs, cpu_aggregate = CPU[id(tree)], CPU[id(count_action)], CPU[id(aggregate_action)]
        first = next(r for r in tree_rows(root).rows if r["items here"])
        prefix = ".".join(first["namespace"])
        page = median_seconds(lambda: reader.items(prefix, 100), repeats)
        key = reader.items(prefix, 1)[0].key
        one = median_seconds(lambda: reader.item(prefix, key), repeats)
        whole = totals(root)
        print(f"  {whole.items:,} items in {whole.namespaces:,} namespaces, {whole.bytes / 1e6:.1f} MB of values")
        print(f"  namespace tree (aggregate + tree + first screen) {mine * 1000:8.1f} ms")
        print(f"  SELECT count(*) FROM store                        {theirs * 1000:8.1f} ms")
        print(f"  ratio                                             {mine / theirs:8.1f}")
        print(f"  (the aggregate alone, no tree: {aggregate * 1000:.1f} ms, {aggregate / theirs:.1f}x count(*); "
              f"the tree / its aggregate: {mine / aggregate:.2f})")
        if reader.kind == "sqlite":  # the whole read runs in this process: its CPU time, which a busy machine moves least
            print(f"  CPU seconds in this process: tree {cpu_mine * 1000:.1f} ms, count(*) {cpu_theirs * 1000:.1f} ms "
                  f"(ratio {cpu_mine / max(cpu_theirs, 1e-9):.1f}), aggregate {cpu_aggregate * 1000:.1f} ms")
        print(f"  a namespace's first 100 items {page * 1000:.1f} ms; one item whole {one * 1000:.2f} ms")
        return mine / theirs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "memory.db"))
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--fresh", action="store_true", help="write the SQLite store again")
    parser.add_argument("--pg", help="a folder holding a PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL to write the store into")
    parser.add_argument("-n", type=int, default=20)
    args = parser.parse_args()
    path = Path(args.db).resolve()
    sqlite_store(path, args.items, args.fresh)
    print(f"SQLite {path}")
    measure(str(path), args.n)
    with postgres(args.dsn, args.pg) as dsn:
        if dsn:
            postgres_store(dsn, args.items)
            print(f"\nPostgreSQL {args.dsn or args.pg}")
            measure(dsn, args.n)
    return 0


if __name__ == "__main__":
    sys.exit(main())
