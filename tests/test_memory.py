"""Analyses of a 50 MB thread stay within a memory bound: histories are streamed, never held."""

from __future__ import annotations

import tracemalloc

import pytest

from benchmarks.store_generator import LONG_THREAD, Shape, generate_sqlite
from inspector.cache import AnalysisCache
from inspector.diff import replay_thread
from inspector.profiles.media_report import media_report
from inspector.sizes.accounting import measure_thread
from inspector.sizes.health import thread_health
from inspector.store import open_store

# A conversation growing to ~200 KB over 500 checkpoints, an image viewed every 4th turn: ~50 MB stored.
SHAPE = Shape(checkpoints=500, final_bytes=200_000, small_threads=0, images_every=4)


@pytest.fixture(scope="module")
def fifty_mb(tmp_path_factory):
    db = generate_sqlite(tmp_path_factory.mktemp("fifty") / "fifty.db", SHAPE)
    with open_store(f"sqlite:///{db}") as store:
        stored = store.totals().stored_bytes
        assert stored > 45_000_000
        yield store, stored


def peak_of(action) -> int:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("analysis", ["sizes", "replay", "health", "images"])
def test_an_analysis_of_a_50_mb_thread_holds_far_less_than_the_thread(fifty_mb, tmp_path, analysis):
    store, stored = fifty_mb
    cache = AnalysisCache(tmp_path / "cache")
    run = {
        "sizes": lambda: measure_thread(store, LONG_THREAD, cache=cache),
        "replay": lambda: replay_thread(store, LONG_THREAD, cache=cache),
        "health": lambda: thread_health(store, LONG_THREAD, cache=cache),
        "images": lambda: media_report(store, LONG_THREAD),
    }[analysis]
    assert peak_of(run) < stored // 2  # holding the history, decoded or raw, would pass the thread's size
    cache.close()
