"""The analysis cache knows which store it describes, and reads only facts of the shape it writes.

A store replaced by another at the same place, holding the same thread and checkpoint ids (the hostile corpus's
``cache`` case and its twin), is measured afresh: a 2 MB field is shown as 2 MB and flagged, on SQLite (a file
replaced at its path, or deleted and written again there) and on PostgreSQL (tables truncated and filled again,
a database dropped and created again under its name). A cache whose facts were overwritten with wrong shapes
answers the store-wide ``sizes`` and ``health`` commands, and the Health page, as an empty cache does.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import msgpack
import psycopg
import pytest
import streamlit as st
from corpus.hostile_cache import BIG_BLOB_CHARS, CACHE_THREAD, SMALL_BLOB, put_cache_thread, write_twin
from fixtures.postgres import written_database
from hostile_corpus import Planting, write_corpus
from ui_app import open_page

from inspector.analysis_cache import FILE_NAME, AnalysisCache
from inspector.cli import main
from inspector.sizes.accounting import measure_thread
from inspector.sizes.health import thread_health
from inspector.store import open_store
from inspector.ui import connection

BIG = "b" * BIG_BLOB_CHARS


def cli(capsys, *args: str) -> tuple[int, dict]:
    code = main([*args, "--json", "--quiet"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err, captured.err[-2000:]
    return code, json.loads(captured.out)


def field_bytes(report: dict, name: str) -> int:
    return next(f["newest_bytes"] for f in report["fields"] if f["field"] == name)


def flagged(report: dict) -> set[tuple[str, str | None]]:
    return {(flag["code"], flag["field"]) for thread in report["threads"] for flag in thread["flags"]}


# -- a store replaced at the same place -----------------------------------------------------------------------------

def test_a_sqlite_store_replaced_at_its_path_by_one_with_the_same_ids_is_measured_afresh(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    db = write_corpus(tmp_path / "store", cases=["cache"])
    code, small = cli(capsys, "sizes", "--db", str(db), CACHE_THREAD)
    assert code == 0 and field_bytes(small, "notes") < 100
    assert cli(capsys, "health", "--db", str(db))[1]["flag_count"] == 0
    os.replace(write_twin(tmp_path / "twin"), db)  # a store restored over it: same thread, same checkpoint ids
    code, big = cli(capsys, "sizes", "--db", str(db), CACHE_THREAD)
    assert field_bytes(big, "notes") > BIG_BLOB_CHARS
    report = cli(capsys, "health", "--db", str(db))[1]
    assert {("oversized-field", "notes"), ("oversized-state", None)} <= flagged(report)
    assert report["fields"]["notes"] > BIG_BLOB_CHARS  # store-wide, from the same facts
    with open_store(f"sqlite:///{db}") as store, AnalysisCache(tmp_path / "cache") as cache:
        assert measure_thread(store, CACHE_THREAD, cache=cache) == measure_thread(store, CACHE_THREAD)
    shutil.copyfile(write_corpus(tmp_path / "small", cases=["cache"]), db)  # copied over it: the same file, rewritten
    assert field_bytes(cli(capsys, "sizes", "--db", str(db), CACHE_THREAD)[1], "notes") < 100  # other lengths


def test_a_store_written_again_at_the_same_path_keeping_every_length_is_measured_afresh(tmp_path):
    """Deleted and written again in place, the long text moved from ``notes`` to ``config``: each checkpoint keeps
    its stored length (and the file may get its inode number back), so only the file's identity tells them apart;
    a dashboard holding the store open all along sees it too."""
    folder = tmp_path / "store"
    db = write_twin(folder, blob=BIG, filler="")
    with AnalysisCache(tmp_path / "cache") as cache, open_store(f"sqlite:///{db}") as store:
        before = store.fact_identity()
        lengths = [r.stored_bytes for r in store.timeline_keys(CACHE_THREAD)]
        first = thread_health(store, CACHE_THREAD, cache=cache)
        assert ("oversized-field", "notes") in {(f.code, f.field) for f in first.flags}
        write_twin(folder, blob="", filler="f" * BIG_BLOB_CHARS)  # unlinked, then written at the same path
        assert [r.stored_bytes for r in store.timeline_keys(CACHE_THREAD)] == lengths
        assert store.fact_identity() != before
        again = thread_health(store, CACHE_THREAD, cache=cache)
        assert {(f.code, f.field) for f in again.flags if f.field} == {("oversized-field", "config")}
        assert measure_thread(store, CACHE_THREAD, cache=cache) == measure_thread(store, CACHE_THREAD)


def test_new_checkpoints_and_a_wal_checkpoint_keep_the_store_the_same(tmp_path):
    db = write_corpus(tmp_path / "store", cases=["cache"])
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
    with open_store(f"sqlite:///{db}") as store:
        before = store.fact_identity()
        with sqlite3.connect(db, check_same_thread=False) as conn:
            from langgraph.checkpoint.sqlite import SqliteSaver

            Planting(db.parent, conn, SqliteSaver(conn)).put("another", {"notes": {"n": 1}})
            conn.commit()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        assert store.fact_identity() == before
        shutil.copyfile(db, tmp_path / "copy.db")
        with open_store(f"sqlite:///{tmp_path / 'copy.db'}") as copy:
            assert copy.fact_identity() != before  # another file, even with the same bytes


def write_pg(url: str, blob: str = SMALL_BLOB, filler: str = "") -> None:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(url) as saver:
        saver.setup()
        put_cache_thread(saver, blob, filler)


@pytest.mark.postgres
def test_a_postgresql_store_recreated_at_the_same_place_is_measured_afresh(postgres_dsn, tmp_path):
    name = "inspector_cache_twin"
    admin, readonly = written_database(postgres_dsn, name, lambda url: write_pg(url, BIG, ""))
    with AnalysisCache(tmp_path / "cache") as cache:
        with open_store(readonly) as store:
            first = store.fact_identity()
            lengths = [r.stored_bytes for r in store.timeline_keys(CACHE_THREAD)]
            flags = {(f.code, f.field) for f in thread_health(store, CACHE_THREAD, cache=cache).flags if f.field}
            assert flags == {("oversized-field", "notes")}
            with psycopg.connect(admin, autocommit=True) as conn:  # emptied and filled again: same ids, same lengths
                conn.execute("TRUNCATE checkpoints, checkpoint_blobs, checkpoint_writes")
            write_pg(admin, "", "f" * BIG_BLOB_CHARS)
            assert [r.stored_bytes for r in store.timeline_keys(CACHE_THREAD)] == lengths
            assert store.fact_identity() != first
            flags = {(f.code, f.field) for f in thread_health(store, CACHE_THREAD, cache=cache).flags if f.field}
            assert flags == {("oversized-field", "config")}
        admin, readonly = written_database(postgres_dsn, name, lambda url: write_pg(url))  # dropped, created again
        with open_store(readonly) as store:
            assert store.fact_identity() != first
            health = thread_health(store, CACHE_THREAD, cache=cache)
            assert not health.flags and health.sizes.field("notes").newest_bytes < 100
            assert measure_thread(store, CACHE_THREAD, cache=cache) == measure_thread(store, CACHE_THREAD)
        with psycopg.connect(admin, autocommit=True) as conn:  # a role that may not read the cluster's identifier
            conn.execute("REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC")
        with open_store(readonly) as store:
            assert f"{store.identity}#-." in store.fact_identity()
            assert measure_thread(store, CACHE_THREAD, cache=cache) == measure_thread(store, CACHE_THREAD)


# -- facts of the wrong shape -------------------------------------------------------------------------------------

def wrong_shapes() -> list[object]:
    """What a cache's fact rows could hold besides a fact: not msgpack, msgpack of other shapes, a fact-like list
    whose parts have other types or do not fit its parent, nesting past any depth, a fingerprint under another key,
    text instead of bytes."""
    fact_like = [None, None, None, 10, 0, {"messages": [10, None, None, 5, [], False]}, [], {}, 10]
    return [
        b"\xff\x00 not msgpack", msgpack.packb([1, 2, 3]), msgpack.packb({"parent": None}), msgpack.packb("text"),
        msgpack.packb([None] * 9), msgpack.packb(fact_like),
        msgpack.packb([None, "x", None, "10", 0, {"messages": [1, "a", None, 0, [[1]], "no"]}, [[1]], {"a": "b"}, 1]),
        b"\x91" * 5000 + b"\xc0", msgpack.packb([msgpack.ExtType(5, os.urandom(17)), 1]), "text, not bytes",
        msgpack.packb([[["a", "b", "c", "d"]]]), msgpack.packb([["not", "a", "verdict"]]),
    ]


def plant(cache_file: Path) -> int:
    """Every fact row overwritten with one of ``wrong_shapes`` in turn, and the growth rows with wrong ones too."""
    shapes = wrong_shapes()
    with sqlite3.connect(cache_file) as conn:
        keys = conn.execute("SELECT store, thread, kind, ns, checkpoint FROM facts").fetchall()
        for i, key in enumerate(keys):
            conn.execute("UPDATE facts SET value = ? WHERE store = ? AND thread = ? AND kind = ? AND ns = ? "
                         "AND checkpoint = ?", [shapes[i % len(shapes)], *key])
        conn.execute("UPDATE growth_thread_days SET detail = ?, k = 'many'", [b"\xc1"])
        conn.execute("UPDATE growth_cells SET r = 'x', channel = 7")
        conn.execute("UPDATE growth_cuts SET threads = 'all'")
    return len(keys)


def test_facts_of_the_wrong_shape_are_misses_for_store_wide_sizes_and_health(demo_db, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("INSPECTOR_CACHE_MAX_MB", "0")
    expected = {command: cli(capsys, command, "--db", str(demo_db)) for command in ("sizes", "health")}
    monkeypatch.setenv("INSPECTOR_CACHE_MAX_MB", "512")
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    for command in ("sizes", "health", "replay"):
        cli(capsys, command, "--db", str(demo_db), *(["demo-bloated"] if command == "replay" else []))
    assert main(["growth", "--db", str(demo_db), "--quiet"]) == 0
    capsys.readouterr()
    assert plant(tmp_path / "cache" / FILE_NAME) > 50
    for _ in range(2):  # the wrong facts read as misses; then the facts measured again in their place
        for command, answer in expected.items():
            assert cli(capsys, command, "--db", str(demo_db)) == answer
    assert main(["growth", "--db", str(demo_db), "--quiet"]) == 0
    with AnalysisCache(tmp_path / "cache") as cache, open_store(f"sqlite:///{demo_db}") as store:
        from inspector.sizes.cached import KIND

        held = cache.get(store.fact_identity(), "demo-bloated", KIND,
                         [(r.checkpoint_ns, r.checkpoint_id) for r in store.timeline_keys("demo-bloated")])
        from inspector.sizes.size_facts import valid

        assert held and all(valid(fact) for fact in held.values())  # replaced by facts of the right shape


RATES = ("A day, on average", "Disk budget passed")  # growth per elapsed time: they move with the clock


def health_page(db: Path, monkeypatch) -> dict:
    """The Health page's numbers, tables and flags, computed anew (nothing the process remembers from a run before)."""
    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{db}")
    connection.settings.clear()
    at = open_page("health", timeout=120)
    assert not at.exception
    return {"metrics": {m.label: m.value for m in at.metric if m.label not in RATES},
            "tables": [d.value.to_dict("list") for d in at.dataframe[:2]],
            "flags": sorted(e.label for e in at.expander)}


def test_the_health_page_reads_a_cache_of_wrong_shapes_as_an_empty_one(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "store.db"
    shutil.copyfile(demo_db, db)
    monkeypatch.setenv("INSPECTOR_CACHE_MAX_MB", "0")
    try:
        expected = health_page(db, monkeypatch)
        assert expected["metrics"]["Flags"] != "0"
        monkeypatch.setenv("INSPECTOR_CACHE_MAX_MB", "512")
        monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
        assert health_page(db, monkeypatch) == expected  # fills the cache
        assert plant(tmp_path / "cache" / FILE_NAME) > 50
        assert health_page(db, monkeypatch) == expected
    finally:
        st.cache_data.clear()
        st.cache_resource.clear()
        connection.settings.clear()
