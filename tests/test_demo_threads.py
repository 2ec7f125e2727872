"""The demo store's generic threads: each has the shape it is named for, read back through LangGraph's own
SqliteSaver and SQL."""

from __future__ import annotations

import base64
import io
from pathlib import Path

from demo_store import history, latest
from langchain_core.messages import HumanMessage, ToolMessage
from PIL import Image

from inspector.schema.thread_state import merge_artifacts

ONE_MB = 1024 * 1024


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


def test_the_generic_app_has_a_field_of_its_own(saver):
    from inspector.schema import DEFAULT_SCHEMA

    state = latest(saver, "demo-subgraph")
    assert state["search_log"] == ["EU Batteries Regulation 2025 obligations"]
    assert not DEFAULT_SCHEMA.declares("search_log")


def test_delta_thread_carries_deerflows_mode_marker(saver):
    assert all(t.metadata.get("deerflow_checkpoint_channel_mode") == "delta" for t in history(saver, "demo-delta"))


def test_long_thread_has_hundreds_of_checkpoints_and_growing_messages(conn, saver):
    count = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = 'demo-long' AND checkpoint_ns = ''"
                         ).fetchone()[0]
    assert count >= 300
    lengths = [len(t.checkpoint["channel_values"].get("messages") or []) for t in history(saver, "demo-long")]
    assert lengths == sorted(lengths) and lengths[-1] >= 100


def test_delta_thread_stores_messages_as_snapshots_between_deltas(saver):
    tuples = history(saver, "demo-delta")
    stored = ["messages" in t.checkpoint["channel_values"] for t in tuples]
    assert 2 <= sum(stored) < len(tuples) // 3  # a snapshot every few updates, deltas in between
    newest = tuples[-1]
    assert "messages" in newest.checkpoint["channel_versions"]
    assert "counters_since_delta_snapshot" in newest.metadata
    messages = latest(saver, "demo-delta")["messages"]
    assert len([m for m in messages if isinstance(m, HumanMessage)]) == 3
