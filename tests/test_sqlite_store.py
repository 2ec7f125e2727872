"""The read-only SQLite store on the demo database, checked against LangGraph's own SqliteSaver."""

import hashlib
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.store import NotFound, StoreError, display_url, open_store
from inspector.store.sqlite import SqliteStore

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as s:
        yield s


def test_thread_list_has_every_demo_thread(store):
    from inspector.demo import DEMO_THREADS

    threads = {t.thread_id: t for t in store.threads(limit=100)}
    assert set(DEMO_THREADS) <= set(threads)
    assert store.count_threads() == len(threads)
    research = threads["demo-research"]
    assert research.checkpoints > 3 and research.stored_bytes > 0 and research.updated_at is not None
    assert research.title  # read from the small `title` write, not the state blob
    assert threads["demo-long"].checkpoints >= 300
    assert threads["demo-subgraph"].namespaces > 1


def test_thread_search_and_paging(store):
    assert [t.thread_id for t in store.threads(search="vision")] == ["demo-vision"]
    assert store.count_threads(search="vision") == 1
    first = store.threads(limit=2)
    second = store.threads(limit=2, offset=2)
    assert len(first) == 2 and not {t.thread_id for t in first} & {t.thread_id for t in second}


def test_timeline_matches_the_saver(store, demo_db):
    saver = SqliteSaver(sqlite3.connect(demo_db))
    listed = list(saver.list({"configurable": {"thread_id": "demo-research", "checkpoint_ns": ""}}))
    rows = [r for r in store.timeline("demo-research") if r.checkpoint_ns == ""]
    assert [r.checkpoint_id for r in rows] == [t.config["configurable"]["checkpoint_id"] for t in listed]
    for row, tup in zip(rows, listed):
        assert row.step == tup.metadata["step"] and row.source == tup.metadata["source"]
        parent = tup.parent_config["configurable"]["checkpoint_id"] if tup.parent_config else None
        assert row.parent_checkpoint_id == parent
        assert set(row.write_channels) == {w[1] for w in tup.pending_writes}


def test_timeline_shows_forks_and_namespaces(store):
    rows = store.timeline("demo-time-travel")
    children: dict = {}
    for r in rows:
        children.setdefault(r.parent_checkpoint_id, []).append(r.checkpoint_id)
    assert any(len(kids) >= 2 for parent, kids in children.items() if parent)
    assert {r.checkpoint_ns for r in store.timeline("demo-subgraph")} - {""}


def _plain(value):
    if hasattr(value, "model_dump"):
        return value.model_dump()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize(
    "thread", ["demo-research", "demo-vision", "demo-time-travel", "demo-interrupt", "demo-deerflow-current"]
)
def test_state_agrees_with_saver_on_every_user_channel(store, demo_db, thread):
    saver = SqliteSaver(sqlite3.connect(demo_db))
    for tup in list(saver.list({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}))[:12]:
        cid = tup.config["configurable"]["checkpoint_id"]
        state = store.state(thread, cid)
        theirs = {k: v for k, v in tup.checkpoint["channel_values"].items() if not k.startswith(("__", "branch:"))}
        assert set(state.values) == set(theirs)
        for name, value in theirs.items():
            assert state.values[name] == _plain(value), (thread, cid, name)
        assert state.metadata == tup.metadata
        assert state.problems == []


def test_interrupted_thread_carries_its_pending_question(store):
    state = store.state("demo-interrupt")
    interrupts = [w for w in state.writes if w.channel == "__interrupt__"]
    assert interrupts
    assert "?" in str(interrupts[0].value)


def test_unknown_thread_and_checkpoint_raise_not_found(store):
    with pytest.raises(NotFound):
        store.timeline("no-such-thread")
    with pytest.raises(NotFound):
        store.state("demo-research", "1f000000-0000-6000-8000-000000000000")


def test_a_write_through_the_store_connection_is_impossible(store):
    with pytest.raises(sqlite3.OperationalError):
        store._conn.execute("DELETE FROM checkpoints")
    with pytest.raises(sqlite3.OperationalError):
        store._conn.execute("CREATE TABLE x (a)")
    # query_only is a second guard; the mode=ro URI alone must refuse writes too
    store._conn.execute("PRAGMA query_only = OFF")
    try:
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            store._conn.execute("DELETE FROM checkpoints")
    finally:
        store._conn.execute("PRAGMA query_only = ON")


def test_a_malformed_url_never_shows_its_password():
    with pytest.raises(StoreError) as caught:
        open_store("postgresql://user:hunter2@[::1/db")
    assert "hunter2" not in str(caught.value)
    assert display_url("postgresql://user:hunter2@[::1/db") == "postgresql://user:***@[::1/db"


def test_a_full_read_leaves_the_file_unchanged(demo_db):
    before = hashlib.sha256(demo_db.read_bytes()).hexdigest()
    with open_store(str(demo_db)) as s:
        for t in s.threads(limit=100):
            for row in s.timeline(t.thread_id):
                s.state(t.thread_id, row.checkpoint_id, row.checkpoint_ns)
    assert hashlib.sha256(demo_db.read_bytes()).hexdigest() == before


@pytest.mark.parametrize(
    "url, message",
    [
        ("/no/such/file.db", "no SQLite database"),
        ("sqlite://host/x.db", "malformed"),
        ("mysql://x/y", "unsupported store URL"),
        ("mysql://u:hunter2@h/db", r"'mysql://u:\*\*\*@h/db': expected .*postgresql://.*deerflow:///path"),
        ("", "no store URL"),
        ("postgresql://[::1", "malformed store URL"),
        ("postgresql://user:pw@host:99999/db", "malformed store URL"),
    ],
)
def test_bad_urls_raise_one_clear_error(url, message):
    with pytest.raises(StoreError, match=message):
        open_store(url)


def test_a_database_that_is_not_a_checkpoint_store(tmp_path):
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.commit()
    with pytest.raises(StoreError, match="not a LangGraph checkpoint database"):
        open_store(str(other))
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(StoreError, match="not a readable SQLite database"):
        open_store(str(junk))


def test_sqlite_urls_resolve_relative_and_absolute(demo_db, monkeypatch):
    monkeypatch.chdir(demo_db.parent)
    with open_store(f"sqlite:///{demo_db.name}") as rel, open_store(f"sqlite:///{demo_db}") as absolute:
        assert rel.count_threads() == absolute.count_threads() > 0
    assert isinstance(open_store(str(demo_db)), SqliteStore)


WRITER = textwrap.dedent(
    """
    import sqlite3, sys, time
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import StateGraph, START, END
    from inspector.schema.thread_state import ThreadState

    def step(state):
        return {"artifacts": [f"/mnt/user-data/outputs/{len(state.get('artifacts') or [])}.md"]}

    g = StateGraph(ThreadState)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_edge("step", END)
    conn = sqlite3.connect(sys.argv[1], check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    app = g.compile(checkpointer=saver)
    print("ready", flush=True)
    for i in range(int(sys.argv[2])):
        app.invoke({"messages": []}, {"configurable": {"thread_id": "live"}})
        time.sleep(0.01)
    """
)


def test_reads_a_wal_database_while_a_graph_writes_it(tmp_path):
    db = tmp_path / "live.db"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), "150"], stdout=subprocess.PIPE, text=True, cwd=REPO_ROOT
    )
    try:
        assert proc.stdout.readline().strip() == "ready"
        assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        seen = []
        with open_store(str(db)) as s:
            deadline = time.time() + 60
            while proc.poll() is None and time.time() < deadline:
                try:
                    count = s.threads()[0].checkpoints if s.count_threads() else 0
                    if count:
                        s.state("live")
                except NotFound:
                    continue
                seen.append(count)
                time.sleep(0.02)
        assert proc.wait(60) == 0
        assert len(set(seen)) > 1  # the reader saw the thread grow while the writer ran
    finally:
        proc.kill()
