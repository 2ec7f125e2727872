"""The thread list with its profile column against the list without it, and a thread page's profile choice.

    python benchmarks/bench_profile_choice.py [--db bench-data/store.db] [--pg bench-data/pg | --dsn URL] [-n 15]

The list: one page of 50 threads of the generated store (10,001 threads), as the Threads page and
``threads`` read it (``thread_list`` with the views' redactor, then its records), timed without and with
the profile column (``profiles.listed_readings``: each listed thread's newest root checkpoint's channels and
shapes, from the analysis cache or read in one statement, and the choice), runs interleaved, median of
``-n``, on pages that move through the store so no run reuses another's page. The column is measured in
three states: ``steady`` (a dashboard process that showed the page before: its choices remembered for
``profiles.CHOSEN_SECONDS``, the way the Threads page reruns), ``cache`` (a new process, every listed
thread's facts in the analysis cache) and ``cold`` (nothing cached: each thread's newest checkpoint read and
walked, and its facts written to the cache). Target: the steady column at most 1.2x the list.

A thread page's choice: ``profiles.reading_for`` with the timeline keys the page has read, for the
2,000-checkpoint thread and a one-checkpoint thread, cold (empty analysis cache), with the analysis cache
warm (a new process) and remembered; and the store's tally of its newest threads (``profiles.store_tally``,
read for a thread that shows no app of its own), cold and warm.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from pg_cluster import postgres  # noqa: E402

from inspector import profiles  # noqa: E402
from inspector.cache import AnalysisCache  # noqa: E402
from inspector.profiles import detection  # noqa: E402
from inspector.safety.redaction import Redactor  # noqa: E402
from inspector.store import open_store  # noqa: E402
from inspector.threads.thread_list import thread_records  # noqa: E402
from inspector.threads.thread_listing import thread_list  # noqa: E402

PAGE = 50
TARGET = 1.2


def forget_choices() -> None:
    """What a new process knows of choices: nothing (the analysis cache is on disk)."""
    detection._chosen.clear()
    detection._own.clear()
    detection._tallies.clear()


def timed(action: Callable[..., object], *args: object) -> float:
    started = time.perf_counter()
    action(*args)
    return time.perf_counter() - started


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure_list(store, repeats: int, folder: Path) -> bool:
    mask = Redactor()

    def listing(offset: int) -> list:
        page = thread_list(store, offset=offset, limit=PAGE, mask=mask)
        return thread_records(page.threads)

    alone: list[float] = []  # the column's own share of the last ``with_column`` run

    def with_column(offset: int, cache: AnalysisCache) -> list:
        page = thread_list(store, offset=offset, limit=PAGE, mask=mask)
        started = time.perf_counter()
        chosen = profiles.listed_readings(store, page.threads, cache)
        alone.append(time.perf_counter() - started)
        return thread_records(page.threads, chosen)

    def column(samples: list[float]) -> list[float]:
        samples.append(alone[-1])
        return samples

    warm_cache = AnalysisCache(folder / "warm")
    offsets = [PAGE * (i + 1) for i in range(repeats)]
    for offset in offsets:  # fill the warm cache: every page the runs below show
        forget_choices()
        with_column(offset, warm_cache)
    plain, steady, cached, cold = [], [], [], []
    own: dict[str, list[float]] = {"steady": [], "cache": [], "cold": []}
    for index, offset in enumerate(offsets):
        plain.append(timed(listing, offset))
        with_column(offset, warm_cache)  # the page shown once in this process
        steady.append(timed(with_column, offset, warm_cache))
        column(own["steady"])
        forget_choices()
        cached.append(timed(with_column, offset, warm_cache))
        column(own["cache"])
        forget_choices()
        with AnalysisCache(folder / f"cold-{index}") as empty:
            cold.append(timed(with_column, offset, empty))
            column(own["cold"])
        plain.append(timed(listing, offset))
    warm_cache.close()
    base = median_ms(plain)
    print(f"thread list, a page of {PAGE} of {store.count_threads():,} threads (median of {repeats}):")
    print(f"  {'without the profile column':38} {base:8.1f} ms")
    ok = True
    for label, samples, share in (("with it, steady (choices remembered)", steady, own["steady"]),
                                  ("with it, analysis cache warm", cached, own["cache"]),
                                  ("with it, cold (nothing cached)", cold, own["cold"])):
        ratio = median_ms(samples) / base
        target = f"  (target <= {TARGET})" if samples is steady else ""
        ok &= ratio <= TARGET or samples is not steady
        print(f"  {label:38} {median_ms(samples):8.1f} ms  {ratio:5.2f}x  (the column itself "
              f"{median_ms(share):6.2f} ms){target}")
    return ok


def choose(store, thread: str, keys: list, cache: AnalysisCache) -> object:
    return profiles.reading_for(store, thread, rows=keys, cache=cache)


def measure_thread_page(store, repeats: int, folder: Path) -> None:
    threads = [t.thread_id for t in store.threads(limit=1, sort="checkpoints")]
    threads += [t.thread_id for t in store.threads(limit=1, offset=PAGE * (repeats + 2))]
    print("a thread page's profile choice (the page's timeline keys given), median of", repeats)
    for thread in threads:
        keys = store.timeline_keys(thread)
        read_keys = median_ms([timed(store.timeline_keys, thread) for _ in range(repeats)])
        cold, cached, remembered = [], [], []
        for index in range(repeats):
            forget_choices()
            with AnalysisCache(folder / f"page-{thread}-{index}") as empty:
                cold.append(timed(choose, store, thread, keys, empty))
                forget_choices()
                cached.append(timed(choose, store, thread, keys, empty))
                remembered.append(timed(choose, store, thread, keys, empty))
        chosen = profiles.reading_for(store, thread, rows=keys)
        print(f"  {thread} ({len(keys):,} checkpoints; reading its keys: {read_keys:.1f} ms): "
              f"cold {median_ms(cold):.2f} ms, cache warm {median_ms(cached):.2f} ms, "
              f"remembered {median_ms(remembered):.3f} ms")
        print(f"    {chosen.line()}")
    cold, warm = [], []
    for index in range(repeats):
        forget_choices()
        with AnalysisCache(folder / f"tally-{index}") as empty:
            cold.append(timed(profiles.store_tally, store, empty))
            forget_choices()
            warm.append(timed(profiles.store_tally, store, empty))
    tally = profiles.store_tally(store)
    print(f"  the store's tally of its {tally.sampled} newest threads (for a thread showing no app of its own): "
          f"cold {median_ms(cold):.1f} ms, cache warm {median_ms(warm):.1f} ms; {dict(tally.counts)}")


def measure(url: str, repeats: int) -> bool:
    with open_store(url) as store, tempfile.TemporaryDirectory() as folder:
        profiles.profiles()  # the registry imported once, as a process does before its first page
        ok = measure_list(store, repeats, Path(folder))
        measure_thread_page(store, repeats, Path(folder))
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"))
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store")
    parser.add_argument("-n", type=int, default=15)
    args = parser.parse_args()
    ok = True
    if args.db:
        print(f"SQLite {args.db}")
        ok &= measure(f"sqlite:///{Path(args.db).resolve()}", args.n)
    with postgres(args.dsn, args.pg) as dsn:
        if dsn:
            print(f"\nPostgreSQL {args.dsn or args.pg}")
            ok &= measure(dsn, args.n)
    import os

    print(f"\nload average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
