"""The image history's per-checkpoint facts in the analysis cache: same spans, only new checkpoints decoded,
no value or secret kept."""

from __future__ import annotations

import base64
import dataclasses
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from test_health import _write_thread

from benchmarks.store_generator import LONG_THREAD, Shape, add_turn, build_graph
from inspector.cache import AnalysisCache
from inspector.cli import main, store_commands
from inspector.demo import DEMO_THREADS
from inspector.history.field_history import field_history
from inspector.profiles.deerflow.files.image_facts import KIND, cached_image_spans
from inspector.profiles.deerflow.files.image_history import image_spans, lifecycle_note
from inspector.profiles.deerflow.files.media_report import span_entries
from inspector.profiles.media_report import media_report
from inspector.safety.redaction import redact_text
from inspector.sizes.cached import KIND as SIZES
from inspector.sizes.cached import sizes_stream
from inspector.store import open_store


@pytest.fixture
def cache(tmp_path):
    with AnalysisCache(tmp_path / "cache") as opened:
        yield opened


def image_facts(cache: AnalysisCache) -> dict:
    with sqlite3.connect(cache.path) as conn:
        return {row[:4]: row[4] for row in conn.execute(
            "SELECT store, thread, ns, checkpoint, value FROM facts WHERE kind = ?", [KIND])}


def cache_bytes(cache: AnalysisCache) -> bytes:
    return b"".join(Path(f"{cache.path}{suffix}").read_bytes() for suffix in ("", "-wal")
                    if Path(f"{cache.path}{suffix}").exists())


def uncached(store, thread_id: str, checkpoint_id: str, ns: str, rows) -> list:
    return image_spans(field_history(store, thread_id, "viewed_images", checkpoint_id, ns, rows))


def spy_decodes(store, monkeypatch) -> list:
    """The channels of every ``iter_states`` call on ``store``, as the test runs."""
    calls: list = []
    real = store.iter_states
    monkeypatch.setattr(store, "iter_states", lambda *a, **k: calls.append(k.get("channels")) or real(*a, **k))
    return calls


def leaves(rows) -> list:
    """Every checkpoint no other one descends from (each branch's newest), per namespace."""
    parents = {(r.checkpoint_ns, r.parent_checkpoint_id) for r in rows}
    return [r for r in rows if (r.checkpoint_ns, r.checkpoint_id) not in parents]


@pytest.mark.parametrize("thread_id", sorted(DEMO_THREADS))
def test_cached_image_spans_equal_spans_decoded_from_the_store(demo_db, cache, thread_id):
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = store.timeline(thread_id)
        for row in leaves(rows):
            args = (store, thread_id, row.checkpoint_id, row.checkpoint_ns, rows)
            expected = uncached(*args)
            assert cached_image_spans(*args) == expected  # no cache at all
            assert cached_image_spans(*args, cache=cache) == expected  # filling it
            assert cached_image_spans(*args, cache=cache) == expected  # read from it
        assert (store.fact_identity(), thread_id) in {key[:2] for key in image_facts(cache)}
        plain = media_report(store, thread_id, artifacts=False).as_dict()
        assert media_report(store, thread_id, artifacts=False, cache=cache).as_dict() == plain


def test_file_reference_entries_read_from_the_cache_keep_the_lifecycle_note(deerflow_main_db, cache, monkeypatch):
    from deerflow_main_graph import FULL_THREAD

    with open_store(f"sqlite:///{deerflow_main_db}") as store:
        expected = uncached(store, FULL_THREAD, None, "", None)
        assert lifecycle_note(expected) is not None and any(s.file_reference for s in expected)
        cached_image_spans(store, FULL_THREAD, cache=cache)
        decoded = spy_decodes(store, monkeypatch)
        again = cached_image_spans(store, FULL_THREAD, cache=cache)
    assert decoded == [] and again == expected and lifecycle_note(again) == lifecycle_note(expected)


def test_deerflow_shaped_threads_give_the_same_spans_from_the_cache(deerflow_main_db, cache):
    from deerflow_main_graph import BRANCH_THREAD, DELTA_THREAD, FULL_THREAD

    held = {}
    with open_store(f"sqlite:///{deerflow_main_db}") as store:
        for thread_id in (FULL_THREAD, DELTA_THREAD, BRANCH_THREAD):
            rows = store.timeline(thread_id)
            for row in leaves(rows):
                args = (store, thread_id, row.checkpoint_id, row.checkpoint_ns, rows)
                expected = uncached(*args)
                assert cached_image_spans(*args, cache=cache) == expected
                assert cached_image_spans(*args, cache=cache) == expected
                held[thread_id] = held.get(thread_id, 0) + len(expected)
    assert all(held.values()), held  # every thread views images, the delta-mode one too


def test_a_new_checkpoint_adds_image_facts_and_changes_none(bench_db, tmp_path, cache):
    db = tmp_path / "growing.db"
    shutil.copyfile(bench_db, db)
    with open_store(f"sqlite:///{db}") as store:
        cached_image_spans(store, LONG_THREAD, cache=cache)
    before = image_facts(cache)
    conn = sqlite3.connect(db, check_same_thread=False)
    shape = Shape(checkpoints=90, final_bytes=40_000, images_every=3)
    add_turn(build_graph(shape, SqliteSaver(conn)), shape, turn=1000)
    conn.close()
    with open_store(f"sqlite:///{db}") as store:
        grown = cached_image_spans(store, LONG_THREAD, cache=cache)
        assert grown == uncached(store, LONG_THREAD, None, "", None)
    after = image_facts(cache)
    assert before and len(after) > len(before)
    assert {key: after[key] for key in before} == before  # nothing known was rewritten


def test_a_second_images_command_decodes_no_viewed_images_checkpoint(bench_db, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    decoded: list = []
    real_open = store_commands.open_store

    def counting_open(*args, **kwargs):
        store = real_open(*args, **kwargs)
        decoded.append(spy_decodes(store, monkeypatch))
        return store

    monkeypatch.setattr(store_commands, "open_store", counting_open)
    command = ["images", "--db", f"sqlite:///{bench_db}", LONG_THREAD, "--json"]
    assert main(command) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(command) == 0
    second = json.loads(capsys.readouterr().out)
    assert second == first and first["history"]
    cold, warm = decoded
    assert any(channels and "viewed_images" in channels for channels in cold)
    assert not any(channels is None or "viewed_images" in channels for channels in warm)


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()
FAKE_KEY = "sk-proj-" + "Q7vX2mN9pL4kR8sT1wY6zB3cF5hJ0dG"
SECRET_PATH = f"/mnt/user-data/uploads/{FAKE_KEY}.png"


def test_the_cache_holds_no_base64_and_no_secret_from_image_entries(tmp_path, cache, monkeypatch):
    db = tmp_path / "secret.db"
    _write_thread(db, "secret", [
        {"viewed_images": {"/mnt/user-data/outputs/chart.png": {"base64": PNG, "mime_type": "image/png",
                                                                "api_key": FAKE_KEY}}},
        {"viewed_images": {SECRET_PATH: {"base64": PNG, "mime_type": "image/png"}}},
        {"viewed_images": {}},
        {"viewed_images": {"/mnt/user-data/uploads/plain.png": {"mime_type": "image/png", "size": 10,
                                                                "actual_path": "/data/plain.png"}}},
    ])
    with open_store(f"sqlite:///{db}") as store:
        expected = uncached(store, "secret", None, "", None)
        assert cached_image_spans(store, "secret", cache=cache) == expected
        raw = cache_bytes(cache)
        assert PNG[:40].encode() not in raw and FAKE_KEY.encode() not in raw and FAKE_KEY[8:24].encode() not in raw
        kept = image_facts(cache)
        assert len(kept) == 3  # the checkpoint whose path holds the key is not kept
        decoded = spy_decodes(store, monkeypatch)
        assert cached_image_spans(store, "secret", cache=cache) == expected
        assert len(decoded) == 1  # ...so it alone is decoded again
        assert [s.path for s in expected] == ["/mnt/user-data/outputs/chart.png", SECRET_PATH,
                                              "/mnt/user-data/uploads/plain.png"]
        assert [s.ended_by for s in expected] == ["cleared", "cleared", None]  # merged, then {} clears both
        assert expected[0].stored_chars == len(PNG) and expected[2].file_reference
        # a page shows masked paths; its thumbnails still find the entries under them
        shown = [dataclasses.replace(s, path=redact_text(s.path)) for s in expected]
        assert FAKE_KEY not in shown[1].path
        entries = span_entries(store, "secret", "", shown, redact_text)
        assert [e.get("mime_type") for e in entries] == ["image/png"] * 3
        assert span_entries(store, "secret", "", shown)[1] is None  # unmasked keys do not match masked paths


def test_thumbnails_read_the_entry_where_each_span_appeared(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        spans = cached_image_spans(store, "demo-vision")
        entries = span_entries(store, "demo-vision", "", spans)
    assert spans and len(entries) == len(spans)
    assert all(isinstance(e, dict) and (e.get("base64") or e.get("actual_path")) for e in entries)
    assert [len(e.get("base64") or "") for e in entries] == [s.stored_chars for s in spans]


def test_size_facts_of_a_checkpoint_with_a_secret_image_path_are_not_kept(tmp_path, cache):
    """Per-field sizes name map keys (image paths); a checkpoint whose key holds a secret is measured again instead
    of being kept, and the sizes read through the cache equal those read from the store."""
    db = tmp_path / "secret-sizes.db"
    _write_thread(db, "secret", [
        {"viewed_images": {"/mnt/user-data/outputs/chart.png": {"base64": PNG, "mime_type": "image/png"}}},
        {"viewed_images": {SECRET_PATH: {"base64": PNG, "mime_type": "image/png"}}},
        {"viewed_images": {}},
    ])
    with open_store(f"sqlite:///{db}") as store:
        plain = list(store.iter_field_sizes("secret", None))
        assert any(item.label == SECRET_PATH for row in plain for c in row.channels.values() for item in c.items)
        assert list(sizes_stream(store, "secret", cache)) == plain
        raw = cache_bytes(cache)
        assert FAKE_KEY.encode() not in raw and FAKE_KEY[8:24].encode() not in raw
        with sqlite3.connect(cache.path) as conn:
            kept = conn.execute("SELECT count(*) FROM facts WHERE kind = ?", [SIZES]).fetchone()[0]
        assert 0 < kept < len(plain)  # every checkpoint but the ones naming the secret path
        assert list(sizes_stream(store, "secret", cache)) == plain
