"""Follow in Chromium: a LangGraph graph keeps writing a thread, and the open thread page shows what it adds."""

from __future__ import annotations

import re
import shutil
import sqlite3

from browser_helpers import shot, wait_for_app
from playwright.sync_api import expect

from benchmarks.store_generator import LONG_THREAD, Shape, add_turn, build_graph
from inspector.store import open_store

SHAPE = Shape(checkpoints=90, final_bytes=40_000, images_every=3)  # the shape of the bench_db fixture


def test_following_a_thread_a_graph_keeps_writing_shows_its_new_checkpoints(page, streamlit_app, bench_db, tmp_path):
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "running.db"
    shutil.copyfile(bench_db, db)
    with open_store(f"sqlite:///{db}") as store:
        before = len(store.timeline_keys(LONG_THREAD))
    url = streamlit_app(db_url=f"sqlite:///{db}", env={"INSPECTOR_FOLLOW_SECONDS": "1"})
    page.goto(f"{url}/thread?thread={LONG_THREAD}")
    wait_for_app(page, timeout=120_000)
    expect(page.get_by_text(re.compile(rf"^{before} checkpoint\(s\)"))).to_be_visible()
    page.get_by_text("Follow", exact=True).click()
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"Following: checked at"))).to_be_visible()

    conn = sqlite3.connect(db, check_same_thread=False)  # the agent, still running, writes its next turn
    add_turn(build_graph(SHAPE, SqliteSaver(conn)), SHAPE, turn=500)
    conn.close()
    with open_store(f"sqlite:///{db}") as store:
        after = len(store.timeline_keys(LONG_THREAD))
        newest = store.state(LONG_THREAD)
    answer = newest.values["messages"][-1]["content"]
    assert after > before

    expect(page.get_by_text(re.compile(rf"^{after} checkpoint\(s\)"))).to_be_visible(timeout=30_000)
    wait_for_app(page)
    assert page.url.endswith(newest.checkpoint_id) or f"checkpoint={newest.checkpoint_id}" in page.url
    expect(page.get_by_text(answer[:60]).first).to_be_visible()  # the newest answer, on screen
    shot(page, "follow-new-checkpoints")

    # a step back with Prev (the step's fragment runs alone): Follow keeps the reader where they stepped to
    page.locator(".st-key-nav_prev button:visible").click()
    wait_for_app(page)
    stepped = page.url
    assert newest.checkpoint_id not in stepped
    conn = sqlite3.connect(db, check_same_thread=False)
    add_turn(build_graph(SHAPE, SqliteSaver(conn)), SHAPE, turn=501)
    conn.close()
    with open_store(f"sqlite:///{db}") as store:
        grown = len(store.timeline_keys(LONG_THREAD))
    assert grown > after
    expect(page.get_by_text(re.compile(rf"^{grown} checkpoint\(s\)"))).to_be_visible(timeout=30_000)
    wait_for_app(page)
    assert page.url == stepped, "a reader looking at an older checkpoint stays where they are"
