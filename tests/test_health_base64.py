"""Base64 images anywhere in a thread's history: DeerFlow's transient image-context message in the
middle of a thread, found by a byte search in the stored sizes and named by decoding only where it appears."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections import Counter

import pytest
from conftest import count_state_reads, fresh_database, grant_readonly_role
from deerflow_main_graph import DELTA_THREAD, FULL_THREAD, IMAGE_CONTEXT_PREFIX, IMAGES_THREAD, VIEWED

from inspector.cli import main
from inspector.sizes.health import thread_health
from inspector.sizes.health_base64 import is_image_context, payloads
from inspector.store import open_store
from inspector.store.measure import base64_image_bytes


@pytest.fixture(scope="module")
def store(deerflow_main_db):
    with open_store(str(deerflow_main_db)) as opened:
        yield opened


def carrying(store, thread_id):
    """Checkpoint id -> ids of the transient image messages its state holds (every checkpoint decoded)."""
    found = {}
    for row in store.timeline(thread_id):
        messages = store.state(thread_id, row.checkpoint_id).values.get("messages") or []
        ids = [m["id"] for m in messages if is_image_context(m)]
        if ids:
            found[row.checkpoint_id] = ids
    return found


def test_transient_image_messages_in_the_middle_of_a_thread_are_flagged(store):
    truth = carrying(store, FULL_THREAD)
    newest = store.timeline(FULL_THREAD)[0].checkpoint_id
    assert truth and newest not in truth  # removed again: only checkpoints in the middle hold them
    health = thread_health(store, FULL_THREAD)
    flag = next(f for f in health.flags if f.code == "image-context-in-checkpoints")
    assert set(flag.checkpoint_ids) == set(truth) and flag.field == "messages"
    for message_id in {mid for ids in truth.values() for mid in ids}:
        assert message_id.startswith(IMAGE_CONTEXT_PREFIX) and message_id in flag.summary
    steps = sorted(r.step for r in store.timeline(FULL_THREAD) if r.checkpoint_id in truth)
    assert f"steps {steps[0]}-{steps[1]}" in flag.summary
    assert "KB stored" in flag.summary and "checkpoint_channel_mode: delta" in flag.fix
    assert "base64-in-state" not in health.codes()  # nothing else in the thread holds base64


def test_only_the_checkpoints_where_a_payload_appears_are_decoded(store, monkeypatch):
    calls = count_state_reads(store, monkeypatch)
    thread_health(store, FULL_THREAD)
    assert max(calls.values()) == 1
    assert len(calls) <= 1 + 2  # the newest state, and one checkpoint per transient message


def test_health_command_names_the_transient_message(deerflow_main_db, capsys):
    assert main(["health", "--db", str(deerflow_main_db), FULL_THREAD]) == 1
    out = capsys.readouterr().out
    assert "[image-context-in-checkpoints] messages" in out and IMAGE_CONTEXT_PREFIX in out


def test_delta_mode_stores_the_message_once_as_writes(store):
    """In delta mode the transient message sits in writes, and in a snapshot only if one falls in between."""
    snapshots = [r.checkpoint_id for r in store.timeline(DELTA_THREAD)
                 if "messages" not in store.state(DELTA_THREAD, r.checkpoint_id).rebuilt_channels]
    truth = {cid for cid in carrying(store, DELTA_THREAD) if cid in snapshots}
    flags = [f for f in thread_health(store, DELTA_THREAD).flags if f.code == "image-context-in-checkpoints"]
    assert set(flags[0].checkpoint_ids if flags else ()) == truth


def test_base64_is_found_in_serialized_bytes():
    url = "data:image/png;base64," + "A" * 400
    assert base64_image_bytes(("x" * 300 + url + '"' + url).encode()) == 2 * 400  # the payloads, both
    assert base64_image_bytes(("iVBORw0KGgo" + "B" * 300 + "==").encode()) == 313
    assert base64_image_bytes(("iVBORw0KGgo" + "B" * 100 + " " * 300).encode()) == 0  # too short for an image
    assert base64_image_bytes(b"plain text " * 50) == 0
    assert base64_image_bytes(url.encode()[:100]) == 0  # too short to hold an image
    assert payloads({"content": [{"image_url": {"url": url}}]}, "m") == [("m.content[0].image_url.url", len(url))]


@pytest.mark.postgres
def test_on_postgres_the_same_thread_replays_and_is_flagged(postgres_dsn):
    """Written by PostgresSaver: blobs are searched on the server, shared blobs decoded once each."""
    from deerflow_main_graph import write_threads
    from langgraph.checkpoint.postgres import PostgresSaver

    from inspector.diff import replay_thread, verdict

    database = "inspector_deerflow_main"
    admin_dsn = fresh_database(postgres_dsn.admin_dsn, database)
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        saver.setup()
        write_threads(saver)
    grant_readonly_role(admin_dsn)
    url = f"{postgres_dsn.readonly_dsn.rsplit('/', 1)[0]}/{database}"
    with open_store(url) as store:
        for thread_id in (FULL_THREAD, DELTA_THREAD):
            assert verdict(replay_thread(store, thread_id)).mismatched == 0
        truth = carrying(store, FULL_THREAD)
        flag = next(f for f in thread_health(store, FULL_THREAD).flags if f.code == "image-context-in-checkpoints")
        assert set(flag.checkpoint_ids) == set(truth)
        assert all(mid in flag.summary for ids in truth.values() for mid in ids)


def test_past_the_decode_limit_checkpoints_are_counted_not_named(store, monkeypatch):
    import inspector.sizes.health_base64 as scan

    monkeypatch.setattr(scan, "MAX_DECODES", 1)
    rows = store.field_sizes(FULL_THREAD, None)
    carriers, unexamined = scan.base64_carriers(rows, scan.state_decoder(lambda cid, ns: store.state(FULL_THREAD, cid, ns)))
    assert len(carriers) == 1 and unexamined["messages"]
    flags = scan.base64_flags(rows, scan.state_decoder(lambda cid, ns: store.state(FULL_THREAD, cid, ns)))
    assert any("hold base64 (not examined)" in f["summary"] for f in flags)


@pytest.fixture(scope="module")
def images_db(tmp_path_factory):
    """DeerFlow's image message re-sending every viewed image (1, then 3, then 4 of them), written by SqliteSaver."""
    from deerflow_main_graph import write_images_thread
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path_factory.mktemp("images") / "images.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        write_images_thread(SqliteSaver(conn))
    finally:
        conn.close()
    return path


def stored_images(store, thread_id):
    """Every base64 image every checkpoint stores, each checkpoint decoded: payload digest -> (file named in the text
    before it, copies, checkpoints holding it)."""
    copies, holding, named = Counter(), {}, {}
    for row in store.timeline(thread_id):
        for message in store.state(thread_id, row.checkpoint_id).values.get("messages") or []:
            parts = message.get("content") if isinstance(message.get("content"), list) else []
            for before, part in zip([None, *parts], parts):
                url = part.get("image_url", {}).get("url", "") if isinstance(part, dict) else ""
                if ";base64," in url:
                    digest = hashlib.sha256(url.split(";base64,", 1)[1].encode()).hexdigest()
                    copies[digest] += 1
                    holding.setdefault(digest, set()).add(row.checkpoint_id)
                    named[digest] = re.search(r"\*\*(\S+)\*\*", before["text"]).group(1)
    return {d: (named[d], copies[d], holding[d]) for d in copies}


def test_distinct_images_and_their_copies_are_counted_apart_and_each_image_is_named(images_db, capsys):
    with open_store(str(images_db)) as store:
        truth = stored_images(store, IMAGES_THREAD)
        flag = next(f for f in thread_health(store, IMAGES_THREAD).flags if f.code == "image-context-in-checkpoints")
    checkpoints = set().union(*(held for _, _, held in truth.values()))
    copies = sum(n for _, n, _ in truth.values())
    assert len(truth) == len(VIEWED) == 4 and copies == 16 and len(checkpoints) == 6  # the store is what it says
    assert f"4 distinct image(s), stored {copies} time(s) in {len(checkpoints)} checkpoint(s)" in flag.summary
    for digest, (name, count, held) in truth.items():
        assert f"{name} (image/png, " in flag.summary and f"sha256 {digest[:12]}): stored {count} time(s) in " \
            f"{len(held)} checkpoint(s)" in flag.summary
    assert "3 transient image message(s)" in flag.summary  # one per turn of view_image calls
    assert set(flag.checkpoint_ids) == checkpoints and len(flag.checkpoint_ids) == len(checkpoints)
    assert main(["health", "--db", str(images_db), IMAGES_THREAD, "--json"]) == 1
    (thread,) = json.loads(capsys.readouterr().out)["threads"]
    said = next(f for f in thread["flags"] if f["code"] == "image-context-in-checkpoints")
    assert said["summary"] == flag.summary  # the CLI says what the pages say
    assert all(len(f["checkpoint_ids"]) == len(set(f["checkpoint_ids"])) for f in thread["flags"])


def test_the_health_page_and_the_size_panel_say_the_same_counts(images_db, app_on_store):
    from ui_app import open_page, shown

    with open_store(str(images_db)) as store:
        flag = next(f for f in thread_health(store, IMAGES_THREAD).flags if f.code == "image-context-in-checkpoints")
    app_on_store(f"sqlite:///{images_db}")
    health = open_page("health")
    assert not health.exception, health.exception
    thread = open_page("thread", thread=IMAGES_THREAD, panel="size")
    assert not thread.exception, thread.exception
    for at in (health, thread):
        labels = [shown(e.label) for e in at.expander]
        assert any(flag.summary in label for label in labels), labels
