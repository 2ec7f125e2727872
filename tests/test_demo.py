"""The demo store: each thread has the shape it is named for, read back through LangGraph's own SqliteSaver and SQL."""

from __future__ import annotations

import base64
import io
import sqlite3
import time
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from PIL import Image

from inspector.demo import DEMO_THREADS, default_demo_dir, ensure_demo, write_demo
from inspector.demo.agent import DeltaThreadState
from inspector.schema.thread_state import merge_artifacts

ONE_MB = 1024 * 1024
THREAD_IDS = ["demo-research", "demo-vision", "demo-bloated", "demo-time-travel", "demo-subgraph",
              "demo-interrupt", "demo-deerflow-current", "demo-branch", "demo-delta", "demo-long"]
BRANCH_PARENTS = {"demo-branch": "demo-deerflow-current"}  # a branch starts with its parent's messages


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    started = time.perf_counter()
    db = write_demo(out)
    return out, db, time.perf_counter() - started


@pytest.fixture(scope="module")
def db(generated) -> Path:
    return generated[1]


@pytest.fixture(scope="module")
def conn(db):
    connection = sqlite3.connect(db)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def saver(conn) -> SqliteSaver:
    return SqliteSaver(conn)


def history(saver: SqliteSaver, thread_id: str, ns: str = "") -> list:
    """Checkpoint tuples of one namespace, oldest first."""
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
    return list(reversed(list(saver.list(config))))


def latest(saver: SqliteSaver, thread_id: str) -> dict:
    """The newest root state as LangGraph reads it (delta channels rebuilt by LangGraph itself)."""
    if thread_id == "demo-delta":
        return delta_reader(saver).get_state({"configurable": {"thread_id": thread_id}}).values
    return saver.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}).checkpoint["channel_values"]


def delta_reader(saver: SqliteSaver):
    """A one-node graph over the delta demo's schema: LangGraph's own DeltaChannel replay."""
    graph = StateGraph(DeltaThreadState)
    graph.add_node("noop", lambda state: {})
    graph.add_edge(START, "noop")
    return graph.compile(checkpointer=saver)


def test_generation_is_fast_and_writes_a_complete_db(generated):
    out, db, seconds = generated
    assert seconds < 30, f"demo generation took {seconds:.1f}s"
    assert db == out.resolve() / "demo.db" and db.is_file()
    assert sorted(path.name for path in out.iterdir()) == ["demo.db", "threads"]


def test_threads_are_exactly_the_documented_ones(conn):
    assert list(DEMO_THREADS) == THREAD_IDS
    assert all(description.strip() for description in DEMO_THREADS.values())
    stored = {row[0] for row in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")}
    assert stored == set(THREAD_IDS)


def test_message_ids_are_deterministic(saver):
    for thread_id in THREAD_IDS:
        ids = [m.id for m in latest(saver, thread_id)["messages"]]
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
    for thread_id in THREAD_IDS:
        state = latest(saver, thread_id)
        assert state["sandbox"] == {"sandbox_id": "local"}
        for folder in ("workspace", "uploads", "outputs"):
            path = Path(state["thread_data"][f"{folder}_path"])
            assert path == out / "threads" / thread_id / "user-data" / folder
            assert path.is_dir()


def test_artifact_files_exist_in_outputs(saver):
    for thread_id in THREAD_IDS:
        state = latest(saver, thread_id)
        outputs = Path(state["thread_data"]["outputs_path"])
        for artifact in state.get("artifacts") or []:
            assert artifact.startswith("/mnt/user-data/outputs/")
            assert (outputs / artifact.removeprefix("/mnt/user-data/outputs/")).is_file(), artifact


def test_research_has_title_uploads_and_two_user_turns(saver):
    state = latest(saver, "demo-research")
    assert state["title"]
    users = [m for m in state["messages"] if isinstance(m, HumanMessage)]
    assert len(users) >= 2
    states = [t.checkpoint["channel_values"] for t in history(saver, "demo-research")]
    uploads = [upload for s in states for upload in s.get("uploaded_files") or []]
    assert {u["filename"] for u in uploads} == {"cell_prices.csv", "field_notes.md"}
    uploads_dir = Path(state["thread_data"]["uploads_path"])
    for upload in uploads:
        assert set(upload) == {"filename", "size", "path", "extension"}
        assert upload["path"] == f"/mnt/user-data/uploads/{upload['filename']}"
        assert (uploads_dir / upload["filename"]).stat().st_size == upload["size"]
    assert "<uploaded_files>" in users[0].content


def test_research_todos_move_through_all_statuses(saver):
    seen = set()
    for checkpoint in history(saver, "demo-research"):
        for todo in checkpoint.checkpoint["channel_values"].get("todos") or []:
            assert set(todo) == {"id", "title", "status"}
            seen.add(todo["status"])
    assert seen == {"pending", "in_progress", "completed"}


def test_research_artifacts_are_deduplicated(saver):
    state = latest(saver, "demo-research")
    assert "/mnt/user-data/outputs/report.md" in state["artifacts"]
    assert len(state["artifacts"]) == len(set(state["artifacts"]))
    repeated = []
    for checkpoint in history(saver, "demo-research"):
        present = checkpoint.checkpoint["channel_values"].get("artifacts") or []
        for _, channel, value in checkpoint.pending_writes:
            if channel == "artifacts" and set(value) & set(present):
                repeated.append(value)
                assert len(merge_artifacts(present, value)) < len(present) + len(value)
    assert repeated, "no present_files write repeated an existing artifact"
    report = Path(state["thread_data"]["outputs_path"]) / "report.md"
    assert report.read_text(encoding="utf-8").startswith("# ")


def test_vision_images_are_loaded_then_cleared(saver):
    states = [t.checkpoint["channel_values"] for t in history(saver, "demo-vision")]
    loaded = [i for i, s in enumerate(states) if s.get("viewed_images")]
    assert loaded
    images = states[loaded[0]]["viewed_images"]
    assert {v["mime_type"] for v in images.values()} == {"image/png", "image/jpeg"}
    for path, image in images.items():
        assert path.startswith("/mnt/user-data/")
        assert Image.open(io.BytesIO(base64.b64decode(image["base64"]))).format in {"PNG", "JPEG"}
    cleared = [i for i, s in enumerate(states) if i > loaded[-1] and s.get("viewed_images") == {}]
    assert cleared
    injected = states[cleared[0]]["messages"][-1]
    assert isinstance(injected, HumanMessage)
    assert sum(part.get("type") == "image_url" for part in injected.content) == 2


def test_bloated_crosses_one_megabyte_late(conn, saver):
    sizes = [row[0] for row in conn.execute(
        "SELECT length(checkpoint) FROM checkpoints WHERE thread_id = 'demo-bloated' AND checkpoint_ns = '' "
        "ORDER BY checkpoint_id")]
    assert sizes[-1] > ONE_MB
    assert sizes[0] < ONE_MB
    first_big = next(i for i, size in enumerate(sizes) if size > ONE_MB)
    states = [t.checkpoint["channel_values"] for t in history(saver, "demo-bloated")]
    assert len(states[first_big]["viewed_images"]) >= 3
    assert len(states[first_big - 1]["viewed_images"]) >= 2
    assert not any(s.get("viewed_images") == {} for s in states[first_big:])


def test_time_travel_has_a_checkpoint_with_two_children(conn, saver):
    forks = conn.execute(
        "SELECT parent_checkpoint_id FROM checkpoints WHERE thread_id = 'demo-time-travel' AND checkpoint_ns = '' "
        "AND parent_checkpoint_id IS NOT NULL GROUP BY parent_checkpoint_id HAVING count(*) = 2").fetchall()
    assert len(forks) == 1
    children = [t for t in history(saver, "demo-time-travel")
                if t.parent_config and t.parent_config["configurable"]["checkpoint_id"] == forks[0][0]]
    assert sorted(t.metadata["source"] for t in children) == ["input", "update"]
    head = latest(saver, "demo-time-travel")["messages"]
    assert "French" in head[-2].content


def test_subgraph_checkpoints_in_nested_namespaces(conn, saver):
    namespaces = [row[0] for row in conn.execute(
        "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id = 'demo-subgraph' AND checkpoint_ns != ''")]
    assert len(namespaces) == 2
    top = next(ns for ns in namespaces if "|" not in ns)
    nested = next(ns for ns in namespaces if "|" in ns)
    assert top.startswith("tools:") and nested.startswith(f"{top}|search:")
    subagent = history(saver, "demo-subgraph", top)[-1].checkpoint["channel_values"]["messages"]
    assert subagent[-1].content.startswith("Findings")
    parent = latest(saver, "demo-subgraph")["messages"]
    assert any(isinstance(m, ToolMessage) and m.content == subagent[-1].content for m in parent)


def test_interrupt_is_pending_on_the_newest_checkpoint(conn, saver):
    newest = conn.execute("SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = 'demo-interrupt' "
                          "AND checkpoint_ns = ''").fetchone()[0]
    channels = [row[0] for row in conn.execute(
        "SELECT channel FROM writes WHERE thread_id = 'demo-interrupt' AND checkpoint_id = ?", (newest,))]
    assert "__interrupt__" in channels
    pending = saver.get_tuple({"configurable": {"thread_id": "demo-interrupt", "checkpoint_ns": ""}}).pending_writes
    interrupt = next(value for _, channel, value in pending if channel == "__interrupt__")
    assert "city" in interrupt[0].value["question"]


def test_deerflow_current_shape(saver):
    state = latest(saver, "demo-deerflow-current")
    assert state["viewed_images"]
    for path, image in state["viewed_images"].items():
        assert path.startswith("/mnt/user-data/uploads/")
        assert set(image) == {"mime_type", "size", "actual_path"}  # metadata only, as DeerFlow main writes it
        actual = Path(image["actual_path"])
        assert actual.is_absolute() and actual.is_file()
        assert actual.stat().st_size == image["size"]
        assert image["mime_type"] == Image.open(actual).get_format_mimetype()
    assert all(set(todo) == {"content", "status"} for todo in state["todos"])
    assert state["summary_text"] and state.get("goal") is None  # met, and cleared by the goal evaluator
    assert state["delegations"][0]["status"] == "completed"


def test_deerflow_current_writes_every_reducer_field(saver):
    """Tasks write eight of the nine reducer fields; the goal is written through put, as DeerFlow does."""
    from inspector.schema import reducers_of
    from inspector.schema.thread_state import ThreadState

    assert set(reducers_of(ThreadState)) == {"messages", "sandbox", "artifacts", "viewed_images", "todos", "goal",
                                             "promoted", "delegations", "skill_context"}
    tuples = history(saver, "demo-deerflow-current")
    written = {channel for t in tuples for _, channel, _ in t.pending_writes}
    assert set(reducers_of(ThreadState)) - {"goal"} <= written
    ledger = [value for t in tuples for _, channel, value in t.pending_writes if channel == "delegations"]
    assert [entry["status"] for batch in ledger for entry in batch] == ["in_progress", "completed"]
    assert latest(saver, "demo-deerflow-current")["delegations"][0]["created_at"] == ledger[0][0]["created_at"]
    assert ledger[1][0]["created_at"] != ledger[0][0]["created_at"]  # the reducer kept the first one
    promoted = [value for t in tuples for _, channel, value in t.pending_writes if channel == "promoted"]
    assert len(promoted) == 2 and promoted[0]["catalog_hash"] == promoted[1]["catalog_hash"]
    assert latest(saver, "demo-deerflow-current")["promoted"]["names"] == promoted[0]["names"] + promoted[1]["names"]
    skills = latest(saver, "demo-deerflow-current")["skill_context"]
    assert [skill["name"] for skill in skills] == ["cost-analysis"] and skills[0]["path"].startswith("/mnt/skills/")


def test_deerflow_current_messages_are_shaped_like_deerflows_middlewares(saver):
    messages = latest(saver, "demo-deerflow-current")["messages"]
    reminder, memory, user = messages[:3]
    assert reminder.type == "system" and "<current_date>" in reminder.content
    assert memory.id == f"{reminder.id}__memory" and memory.content.startswith("<memory>")
    assert all(m.additional_kwargs.get("hide_from_ui") and m.additional_kwargs.get("dynamic_context_reminder")
               for m in (reminder, memory))
    assert user.id == f"{reminder.id}__user" and user.content.startswith("<current_uploads>")
    assert [f["filename"] for f in user.additional_kwargs["files"]] == ["chart.png", "warehouse_board.jpg"]
    task = next(m for m in messages if isinstance(m, ToolMessage) and m.name == "task")
    kwargs = task.additional_kwargs
    assert kwargs["subagent_status"] == "completed" and kwargs["subagent_model_name"]
    assert set(kwargs["subagent_token_usage"]) == {"input_tokens", "output_tokens", "total_tokens"}
    assert task.content.startswith("Task Succeeded. Result: Findings")


def test_deerflow_subagents_leave_no_namespace(conn):
    namespaces = {row[0] for row in conn.execute(
        "SELECT DISTINCT checkpoint_ns FROM checkpoints WHERE thread_id IN ('demo-deerflow-current', 'demo-branch')")}
    assert namespaces == {""}
    assert "generic LangGraph subgraph" in DEMO_THREADS["demo-subgraph"]


def test_the_generic_app_has_a_field_of_its_own(saver):
    from inspector.schema import DEFAULT_SCHEMA

    state = latest(saver, "demo-subgraph")
    assert state["search_log"] == ["EU Batteries Regulation 2025 obligations"]
    assert not DEFAULT_SCHEMA.declares("search_log")


def test_transient_image_context_is_added_before_the_model_call_and_removed_after(saver):
    tuples = history(saver, "demo-deerflow-current")
    holding = [i for i, t in enumerate(tuples) if any(
        (m.id or "").startswith("view-image-context:") for m in t.checkpoint["channel_values"].get("messages", []))]
    assert holding and holding == list(range(holding[0], holding[-1] + 1))  # one contiguous stretch
    context = next(m for m in tuples[holding[0]].checkpoint["channel_values"]["messages"]
                   if m.id.startswith("view-image-context:"))
    assert context.additional_kwargs == {"hide_from_ui": True, "deerflow_view_image_context": True}
    assert sum(part.get("type") == "image_url" and part["image_url"]["url"].startswith("data:image/")
               for part in context.content) == 2
    removal = [value for _, channel, value in tuples[holding[-1]].pending_writes if channel == "messages"]
    assert any(getattr(m, "type", None) == "remove" and m.id == context.id for batch in removal for m in batch)
    assert holding[-1] + 1 < len(tuples)
    assert not any((m.id or "").startswith("view-image-context:") for m in latest(saver, "demo-deerflow-current")["messages"])


def test_runs_end_with_run_duration_checkpoints(saver):
    tuples = history(saver, "demo-deerflow-current")
    durations = [t for t in tuples if "runtime_run_duration" in (t.metadata.get("writes") or {})]
    assert len(durations) == 3 and all(t.metadata["source"] == "update" for t in durations)
    run_ids = [t.metadata["writes"]["runtime_run_duration"]["run_ids"][0] for t in durations]
    # each copies the newest checkpoint's metadata, a graph step's, so it holds its own run only
    assert [t.metadata["run_durations"] for t in durations] == [{r: s} for r, s in zip(run_ids, (48, 17, 9))]
    assert all(t.pending_writes == [] for t in durations)


def test_the_goal_is_set_evaluated_and_cleared_through_put(saver):
    tuples = history(saver, "demo-deerflow-current")
    root = tuples[0]
    assert root.metadata["source"] == "input" and root.checkpoint["channel_values"] == {}
    puts = [t for t in tuples if "goal" in next(iter((t.metadata.get("writes") or {"": {}}).values()), {})]
    assert [next(iter(t.metadata["writes"])) for t in puts] == ["goal"] + ["goal_evaluator"] * 3
    goals = [t.metadata["writes"][next(iter(t.metadata["writes"]))]["goal"] for t in puts]
    assert goals[0]["status"] == "active" and set(goals[0]) == {
        "objective", "status", "created_at", "updated_at", "continuation_count", "max_continuations",
        "no_progress_count", "max_no_progress_continuations"}
    assert [g["last_evaluation"]["satisfied"] for g in goals[1:3]] == [False, False] and goals[3] is None
    assert goals[2]["continuation_count"] == 2
    assert puts[-1] is tuples[-1] or puts[-1].checkpoint["id"] == tuples[-1].checkpoint["id"]
    for put, goal in zip(puts, goals):
        assert put.pending_writes == [] and put.checkpoint["channel_values"].get("goal") == goal
    assert puts[0].parent_config["configurable"]["checkpoint_id"] == root.checkpoint["id"]


def test_branch_thread_copies_its_parent_as_deerflow_does(saver, generated):
    out = generated[0].resolve()
    first = history(saver, "demo-branch")[0]
    meta = first.metadata
    assert meta["branch_parent_thread_id"] == "demo-deerflow-current" and meta["deerflow_branch"] is True
    assert meta["branch_parent_message_id"].startswith("demo-deerflow-current-ai-") and meta["branch_created_at"]
    parent_ids = {t.checkpoint["id"] for t in history(saver, "demo-deerflow-current")}
    assert meta["branch_parent_checkpoint_id"] in parent_ids and first.parent_config is None
    assert "sandbox" not in first.checkpoint["channel_values"] and "thread_data" not in first.checkpoint["channel_values"]
    overwritten = {channel for _, channel, value in history(saver, "demo-branch")[0].pending_writes
                   if type(value).__name__ == "Overwrite"}
    assert {"messages", "artifacts", "viewed_images"} <= overwritten
    state = latest(saver, "demo-branch")
    for image in state["viewed_images"].values():  # branched from an earlier turn: files not copied
        assert Path(image["actual_path"]).is_relative_to(out / "threads" / "demo-deerflow-current")
    assert state["thread_data"]["uploads_path"] == str(out / "threads" / "demo-branch" / "user-data" / "uploads")


def test_delta_thread_carries_deerflows_mode_marker(saver):
    assert all(t.metadata.get("deerflow_checkpoint_channel_mode") == "delta" for t in history(saver, "demo-delta"))


def test_long_thread_has_hundreds_of_checkpoints_and_growing_messages(conn, saver):
    count = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = 'demo-long' AND checkpoint_ns = ''"
                         ).fetchone()[0]
    assert count >= 300
    lengths = [len(t.checkpoint["channel_values"].get("messages") or []) for t in history(saver, "demo-long")]
    assert lengths == sorted(lengths) and lengths[-1] >= 100


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


def test_delta_thread_stores_messages_as_snapshots_between_deltas(saver):
    tuples = history(saver, "demo-delta")
    stored = ["messages" in t.checkpoint["channel_values"] for t in tuples]
    assert 2 <= sum(stored) < len(tuples) // 3  # a snapshot every few updates, deltas in between
    newest = tuples[-1]
    assert "messages" in newest.checkpoint["channel_versions"]
    assert "counters_since_delta_snapshot" in newest.metadata
    messages = latest(saver, "demo-delta")["messages"]
    assert len([m for m in messages if isinstance(m, HumanMessage)]) == 3
