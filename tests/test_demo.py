"""Writing the demo store: complete, deterministic, every documented thread, re-written the same way, and
where it belongs. The threads themselves: test_demo_threads.py and test_demo_deerflow.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from demo_store import latest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo import DEMO_THREADS, default_demo_dir, ensure_demo, write_demo

THREAD_IDS = ["demo-research", "demo-vision", "demo-bloated", "demo-time-travel", "demo-subgraph",
              "demo-interrupt", "demo-deerflow-current", "demo-branch", "demo-delta", "demo-long",
              "demo-langchain-agent"]
LANGCHAIN_THREADS = {"demo-langchain-agent"}  # not DeerFlow: no thread folders, sandbox or artifacts
DEERFLOW_THREADS = [t for t in THREAD_IDS if t not in LANGCHAIN_THREADS]
BRANCH_PARENTS = {"demo-branch": "demo-deerflow-current"}  # a branch starts with its parent's messages


def test_generation_is_fast_and_writes_a_complete_db(demo_written):
    out, db, seconds = demo_written.folder, demo_written.db, demo_written.seconds
    assert seconds < 30, f"demo generation took {seconds:.1f}s"
    assert db == out.resolve() / "demo.db" and db.is_file()
    # the folder as write_demo left it (readers of the shared store add SQLite's -wal and -shm files later)
    assert list(demo_written.listing) == ["demo.db", "threads"]


def test_threads_are_exactly_the_documented_ones(conn):
    assert list(DEMO_THREADS) == THREAD_IDS
    assert all(description.strip() for description in DEMO_THREADS.values())
    stored = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert stored == set(THREAD_IDS)


def test_message_ids_are_deterministic(saver):
    for thread_id in THREAD_IDS:
        messages = latest(saver, thread_id)["messages"]
        if thread_id in LANGCHAIN_THREADS:  # LangChain's tool node and summariser give their messages uuid4 ids
            messages = [m for m in messages if m.type == "ai"]
        ids = [m.id for m in messages]
        prefixes = tuple(f"{t}-" for t in (thread_id, BRANCH_PARENTS.get(thread_id, thread_id)))
        assert ids and all(i.startswith(prefixes) for i in ids), ids
        assert any(i.startswith(f"{thread_id}-") for i in ids)


def test_tool_results_answer_their_calls(saver):
    for thread_id in THREAD_IDS:
        messages = latest(saver, thread_id)["messages"]
        calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
        results = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        assert results <= calls


def test_thread_data_and_sandbox_point_at_real_folders(saver, generated):
    out = generated[0].resolve()
    for thread_id in DEERFLOW_THREADS:
        state = latest(saver, thread_id)
        assert state["sandbox"] == {"sandbox_id": "local"}
        for folder in ("workspace", "uploads", "outputs"):
            path = Path(state["thread_data"][f"{folder}_path"])
            assert path == out / "threads" / thread_id / "user-data" / folder
            assert path.is_dir()


def test_artifact_files_exist_in_outputs(saver):
    for thread_id in DEERFLOW_THREADS:
        state = latest(saver, thread_id)
        outputs = Path(state["thread_data"]["outputs_path"])
        for artifact in state.get("artifacts") or []:
            assert artifact.startswith("/mnt/user-data/outputs/")
            assert (outputs / artifact.removeprefix("/mnt/user-data/outputs/")).is_file(), artifact


def test_write_demo_twice_replaces_everything_with_the_same_content(tmp_path, saver):
    first = write_demo(tmp_path)
    stale = tmp_path / "threads" / "stale-thread"
    stale.mkdir()
    second = write_demo(tmp_path)
    assert first == second and not stale.exists()
    connection = sqlite3.connect(second)
    try:
        assert connection.execute("SELECT count(DISTINCT thread_id) FROM checkpoints").fetchone()[0] == len(THREAD_IDS)
        reread = SqliteSaver(connection)
        for thread_id in ("demo-research", "demo-deerflow-current"):
            ours, theirs = latest(reread, thread_id), latest(saver, thread_id)
            assert ours["messages"] == theirs["messages"]
            assert ours.get("todos") == theirs.get("todos")
    finally:
        connection.close()


def test_ensure_demo_writes_only_when_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DEMO_DIR", str(tmp_path))
    assert default_demo_dir() == tmp_path
    db = ensure_demo()
    assert db == tmp_path.resolve() / "demo.db" and db.is_file()
    stamp = db.stat().st_mtime_ns
    assert ensure_demo(tmp_path) == db and db.stat().st_mtime_ns == stamp


def test_default_demo_dir_is_in_the_repo(monkeypatch):
    monkeypatch.delenv("INSPECTOR_DEMO_DIR", raising=False)
    assert default_demo_dir() == Path(__file__).resolve().parents[1] / "demo-data"
