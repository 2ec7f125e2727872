"""LangGraph's ``ShallowPostgresSaver`` (langgraph-checkpoint-postgres, deprecated but still shipped) keeps only each
thread's latest checkpoint in tables of its own shape: recognised, read through the read-only role, and said;
never refused with advice to run another saver's migrations."""

from __future__ import annotations

import warnings

import pytest
from delta_modes_store import build_graph
from langchain_core.messages import HumanMessage
from test_retention_sqlite import cli

from inspector.sizes.accounting import measure_thread
from inspector.store import open_store

pytestmark = pytest.mark.postgres

shallow_module = pytest.importorskip("langgraph.checkpoint.postgres.shallow")
THREADS = ("shallow-a", "shallow-b")
TURNS = 2


def _write(dsn: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with shallow_module.ShallowPostgresSaver.from_conn_string(dsn) as saver:
            saver.setup()
            graph = build_graph(saver, None)
            for thread_id in THREADS:
                for turn in range(TURNS):
                    graph.invoke({"messages": [HumanMessage(f"{thread_id} {turn}", id=f"h{turn}")]},
                                 {"configurable": {"thread_id": thread_id}})


@pytest.fixture(scope="module")
def shallow(postgres_dsn):
    from conftest import written_database

    return written_database(postgres_dsn, "inspector_shallow", _write)


def test_the_shallow_tables_are_recognised_and_said(shallow):
    admin, readonly = shallow
    with open_store(readonly) as store:
        assert store.shallow and "keeps only the latest checkpoint of each thread" in store.warning
        listed = {t.thread_id: t.checkpoints for t in store.threads()}
        rows = store.timeline(THREADS[0])
    assert listed == dict.fromkeys(THREADS, 1)
    assert len(rows) == 1 and rows[0].parent_checkpoint_id is None and rows[0].step == 4 * TURNS


def test_the_latest_state_is_what_the_saver_itself_reads(shallow):
    admin, readonly = shallow
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with shallow_module.ShallowPostgresSaver.from_conn_string(admin) as saver:
            theirs = saver.get_tuple({"configurable": {"thread_id": THREADS[1]}})
    with open_store(readonly) as store:
        mine = store.state(THREADS[1])
        sizes = measure_thread(store, THREADS[1])
    assert mine.checkpoint_id == theirs.checkpoint["id"]
    assert [m["id"] for m in mine.values["messages"]] == [m.id for m in theirs.checkpoint["channel_values"]["messages"]]
    assert mine.values["title"] == theirs.checkpoint["channel_values"]["title"] and mine.problems == []
    assert sizes.field("messages").stored_bytes > 0 and sizes.growth_bytes == 0


def test_the_cli_says_why_the_history_is_one_checkpoint(shallow):
    _, readonly = shallow
    timeline = cli("timeline", "--db", readonly, THREADS[0])
    replay = cli("replay", "--db", readonly, THREADS[0])
    assert timeline.returncode == 0 and timeline.stdout.strip().splitlines()[-1].startswith(
        "note: This store keeps only the latest checkpoint of each thread")
    assert replay.returncode == 0 and "0 step(s) replayed" in replay.stdout
    assert replay.stdout.strip().splitlines()[-1].startswith("note: This store keeps only the latest checkpoint")


def test_the_thread_list_chooses_each_threads_profile_from_its_one_checkpoint(shallow):
    _, readonly = shallow
    listed = cli("threads", "--db", readonly, "--json", "--quiet")
    assert listed.returncode == 0, listed.stderr
    threads = __import__("json").loads(listed.stdout)["threads"]
    assert sorted(t["thread_id"] for t in threads) == sorted(THREADS)
    assert all(t["checkpoints"] == 1 and t["profile"]["name"] and t["profile"]["reason"] for t in threads)


def test_the_thread_page_says_why_its_history_is_one_checkpoint(shallow, monkeypatch):
    from ui_app import open_page

    from inspector.ui import connection

    _, readonly = shallow
    monkeypatch.setenv("INSPECTOR_DB", readonly)
    connection.settings.clear()
    try:
        at = open_page("thread", thread=THREADS[0])
    finally:
        connection.settings.clear()
    assert not at.exception, at.exception
    notes = [i.value for i in at.main.info if "keeps only the latest checkpoint of each thread" in i.value]
    assert len(notes) == 1 and "replay" in notes[0]
    assert any("keeps only the latest checkpoint" in w.value for w in at.sidebar.warning)
