"""The analysis cache: facts equal to what the store gives, kept per checkpoint, shared between processes,
bounded, never the store itself, and rebuilt when its file is unreadable."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.store_generator import LONG_THREAD, Shape, add_turn, build_graph, generate_sqlite
from inspector.analysis_cache import FILE_NAME, AnalysisCache, CacheError, default_cache_dir, open_cache
from inspector.demo import DEMO_THREADS
from inspector.diff import replay_thread
from inspector.formatting import dumps
from inspector.profiles import EVIDENCE_KIND
from inspector.sizes.accounting import measure_thread
from inspector.sizes.cached import KIND, sizes_stream
from inspector.store import open_store

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def cache(tmp_path):
    with AnalysisCache(tmp_path / "cache") as opened:
        yield opened


def facts(cache: AnalysisCache, without: str = "") -> dict:
    """Every fact the cache holds (but those of kind ``without``)."""
    with sqlite3.connect(cache.path) as conn:
        return {row[:5]: row[5] for row in conn.execute("SELECT store, thread, ns, checkpoint, kind, value FROM facts "
                                                       "WHERE kind <> ?", [without])}


@pytest.mark.parametrize("thread_id", sorted(DEMO_THREADS))
def test_cached_sizes_equal_sizes_read_from_the_store(demo_db, cache, thread_id):
    with open_store(f"sqlite:///{demo_db}") as store:
        uncached = list(store.iter_field_sizes(thread_id, None))
        first = list(sizes_stream(store, thread_id, cache))
        assert store.fact_identity() in {key[0] for key in facts(cache)}
        again = list(sizes_stream(store, thread_id, cache))
        assert first == uncached and again == uncached
        assert measure_thread(store, thread_id, cache=cache) == measure_thread(store, thread_id)


def namespaces(store, thread_id: str) -> list[str]:
    return sorted({r.checkpoint_ns for r in store.timeline_keys(thread_id)})


@pytest.mark.parametrize("thread_id", sorted(DEMO_THREADS))
def test_cached_replays_equal_replays_without_the_cache(demo_db, cache, thread_id):
    with open_store(f"sqlite:///{demo_db}") as store:
        for ns in namespaces(store, thread_id):
            uncached = dumps(replay_thread(store, thread_id, ns))
            assert dumps(replay_thread(store, thread_id, ns, cache=cache)) == uncached  # filling it
            assert dumps(replay_thread(store, thread_id, ns, cache=cache)) == uncached  # read from it


def test_a_mismatch_read_from_the_cache_still_names_its_first_difference(demo_db, tmp_path, cache, monkeypatch):
    from test_replay import alter_todos

    db = tmp_path / "altered.db"
    shutil.copyfile(demo_db, db)
    with open_store(f"sqlite:///{db}") as store:
        target = [r for r in sorted(store.timeline("demo-research"), key=lambda r: r.checkpoint_id)
                  if not r.checkpoint_ns and "todos" in r.write_channels][1]
    alter_todos(db, "demo-research", target.checkpoint_id)
    with open_store(f"sqlite:///{db}") as store:
        first = replay_thread(store, "demo-research", cache=cache)
        decoded = []
        real = store.iter_states
        monkeypatch.setattr(store, "iter_states", lambda *a, **k: decoded.append(k.get("checkpoint_ids")) or real(*a, **k))
        again = replay_thread(store, "demo-research", cache=cache)
    assert dumps(again) == dumps(first)
    flagged = [s for s in again if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [target.checkpoint_id]
    assert "'blocked'" in flagged[0].mismatches[0].first_difference  # values come from the store, never the cache
    assert len(decoded) == 1 and decoded[0] == {target.checkpoint_id, target.parent_checkpoint_id}


def test_a_second_replay_decodes_no_checkpoint(bench_db, cache, monkeypatch):
    with open_store(f"sqlite:///{bench_db}") as store:
        first = replay_thread(store, LONG_THREAD, cache=cache)
        monkeypatch.setattr(store, "iter_states", lambda *a, **k: pytest.fail("decoded a checkpoint"))
        monkeypatch.setattr(store, "state", lambda *a, **k: pytest.fail("decoded a checkpoint"))
        assert dumps(replay_thread(store, LONG_THREAD, cache=cache)) == dumps(first)


def test_a_second_look_reads_no_blob(bench_db, cache, monkeypatch):
    with open_store(f"sqlite:///{bench_db}") as store:
        first = measure_thread(store, LONG_THREAD, cache=cache)
        read = []
        monkeypatch.setattr(store, "iter_field_sizes", lambda *a, **k: read.append(a) or iter(()))
        assert measure_thread(store, LONG_THREAD, cache=cache) == first
        assert read == []


def test_a_new_checkpoint_adds_facts_and_changes_none(bench_db, tmp_path, cache):
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "growing.db"
    shutil.copyfile(bench_db, db)
    with open_store(f"sqlite:///{db}") as store:
        measure_thread(store, LONG_THREAD, cache=cache)
    before = facts(cache, without=EVIDENCE_KIND)  # sizes, one per checkpoint (and, apart, what the newest holds)
    conn = sqlite3.connect(db, check_same_thread=False)
    shape = Shape(checkpoints=90, final_bytes=40_000, images_every=3)
    add_turn(build_graph(shape, SqliteSaver(conn)), shape, turn=1000)
    conn.close()
    with open_store(f"sqlite:///{db}") as store:
        grown = measure_thread(store, LONG_THREAD, cache=cache)
        assert grown == measure_thread(store, LONG_THREAD)
        added = len(store.timeline_keys(LONG_THREAD)) - len(before)
    after = facts(cache, without=EVIDENCE_KIND)
    assert added > 0 and len(after) == len(before) + added
    assert {key: after[key] for key in before} == before  # nothing known was rewritten


def test_cached_facts_hold_no_text_of_any_value(bench_db, cache):
    """Sizes facts are numbers, hashes and labels: no message text reaches the cache."""
    with open_store(f"sqlite:///{bench_db}") as store:
        measure_thread(store, LONG_THREAD, cache=cache)
        state = store.state(LONG_THREAD)
    raw = cache.path.read_bytes() + Path(f"{cache.path}-wal").read_bytes() if Path(f"{cache.path}-wal").exists() \
        else cache.path.read_bytes()
    words = {m["content"][:40] for m in state.values["messages"] if isinstance(m.get("content"), str) and len(m["content"]) > 30}
    assert words and not any(word.encode() in raw for word in words)
    assert b"base64," not in raw


def test_an_unreadable_cache_file_is_set_aside_and_rebuilt_with_a_message(tmp_path, demo_db):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(b"this is not a database, it is a mess" * 100)
    cache = AnalysisCache(folder)
    assert cache.notice and "set aside" in cache.notice and "rebuilt" in cache.notice
    aside = [p for p in folder.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"this is not a database")
    with open_store(f"sqlite:///{demo_db}") as store:
        assert measure_thread(store, "demo-bloated", cache=cache) == measure_thread(store, "demo-bloated")
    assert cache.stats()["facts"] > 0
    cache.close()


def test_the_cli_says_when_it_rebuilt_the_cache(tmp_path, demo_db):
    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(b"\x00garbage" * 500)
    result = run_cli("sizes", "--db", str(demo_db), "demo-research", "--json", cache_dir=folder)
    assert result.returncode == 0, result.stderr
    assert "could not be read" in result.stderr and "rebuilt" in result.stderr
    assert json.loads(result.stdout)["thread_id"] == "demo-research"


def test_the_cache_is_never_the_inspected_store(tmp_path, demo_db):
    folder = tmp_path / "looks-like-a-cache"
    folder.mkdir()
    store_file = folder / FILE_NAME
    shutil.copyfile(demo_db, store_file)
    with open_store(f"sqlite:///{store_file}") as store, pytest.raises(CacheError, match="inspected store itself"):
        open_cache(str(folder), 64, store)
    assert open_cache(str(folder), 0, None) is None  # turned off


def test_default_folder_follows_the_platform_convention(tmp_path):
    assert default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "state-inspector"
    assert default_cache_dir({}) == Path.home() / ".cache" / "state-inspector"


def test_bounded_whole_threads_are_evicted_least_recently_used_first(tmp_path):
    cache = AnalysisCache(tmp_path / "cache", max_bytes=60_000)
    payload = {("", f"cp-{i:03d}"): {"digest": os.urandom(16).hex() * 8} for i in range(100)}  # ~27 KB a thread
    cache.put("s", "old", KIND, payload)
    cache.put("s", "middle", KIND, payload)
    cache.get("s", "old", KIND, list(payload))  # used again: now the newest
    cache.put("s", "new", KIND, payload)
    assert cache.get("s", "middle", KIND, list(payload)) == {}
    assert len(cache.get("s", "old", KIND, list(payload))) == 100
    assert len(cache.get("s", "new", KIND, list(payload))) == 100
    assert cache.stats()["bytes"] <= 60_000
    cache.close()


def run_cli(*args: str, cache_dir: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "INSPECTOR_CACHE_DIR": str(cache_dir)}
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, env=env, timeout=300)


def test_two_processes_filling_one_cache_give_correct_results(tmp_path):
    db = generate_sqlite(tmp_path / "two.db", Shape(checkpoints=200, final_bytes=60_000, small_threads=2))
    folder = tmp_path / "shared-cache"
    uncached = run_cli("sizes", "--db", str(db), LONG_THREAD, "--json", cache_dir=tmp_path / "unused")
    env = {**os.environ, "INSPECTOR_CACHE_DIR": str(folder)}
    command = [sys.executable, "-m", "inspector", "sizes", "--db", str(db), LONG_THREAD, "--json"]
    running = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT, env=env)
               for _ in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in running]
    assert [proc.returncode for proc in running] == [0, 0], [err for _, err in outputs]
    assert outputs[0][0] == outputs[1][0] == uncached.stdout
    warm = run_cli("sizes", "--db", str(db), LONG_THREAD, "--json", cache_dir=folder)
    assert warm.stdout == uncached.stdout
    with AnalysisCache(folder) as cache, open_store(f"sqlite:///{db}") as store:
        # a size fact per checkpoint, and what the newest holds (the thread's profile is chosen from it)
        assert cache.stats()["facts"] == len(store.timeline_keys(LONG_THREAD)) + 1
