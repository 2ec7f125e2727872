"""The demo store's DeerFlow-shaped threads: the fields, messages, runs, goals and branches DeerFlow's main
branch writes, read back through LangGraph's own SqliteSaver and SQL."""

from __future__ import annotations

from pathlib import Path

from demo_store import history, latest
from langchain_core.messages import ToolMessage
from PIL import Image

from inspector.demo import DEMO_THREADS


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
