"""Health flags on the demo threads and on small stores written by LangGraph's SqliteSaver."""

import base64
import sqlite3

import pytest
from conftest import count_state_reads
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph

from inspector.cli import main
from inspector.schema.thread_state import ThreadState
from inspector.settings import Settings
from inspector.sizes.health import leaf_ids, store_health, thread_health
from inspector.store import open_store


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as s:
        yield s


def codes(health):
    return set(health.codes())


def test_bloated_thread_is_oversized_from_the_first_checkpoint_past_one_megabyte(store):
    health = thread_health(store, "demo-bloated")
    flag = next(f for f in health.flags if f.code == "oversized-state")
    totals = [(r.checkpoint_id, sum(store.state("demo-bloated", r.checkpoint_id).channel_bytes.values()))
              for r in sorted(store.timeline("demo-bloated"), key=lambda r: r.checkpoint_id)]
    first_over = next(i for i, (_, total) in enumerate(totals) if total > 1_000_000)
    assert first_over > 0
    assert flag.first_checkpoint_id == totals[first_over][0]
    assert set(flag.checkpoint_ids) == {cid for cid, total in totals if total > 1_000_000}
    assert not {cid for cid, _ in totals[:first_over]} & set(flag.checkpoint_ids)
    assert flag.why and flag.fix


def test_thresholds_come_from_settings(store):
    loose = thread_health(store, "demo-bloated", Settings(oversize_state_bytes=2_000_000, oversize_field_bytes=2_000_000))
    assert not codes(loose) & {"oversized-state", "oversized-field"}
    strict = thread_health(store, "demo-research", Settings(oversize_state_bytes=5_000))
    assert "oversized-state" in codes(strict)


def test_uncleared_images_flag_the_bloated_thread_not_the_vision_one(store):
    bloated = next(f for f in thread_health(store, "demo-bloated").flags if f.code == "uncleared-images")
    assert bloated.field == "viewed_images" and "scan_1.png" in bloated.summary
    assert "uncleared-images" not in codes(thread_health(store, "demo-vision"))
    # today's DeerFlow keeps files on disk: its viewed_images entries hold no image data
    assert "uncleared-images" not in codes(thread_health(store, "demo-deerflow-current"))


def test_vision_thread_injected_images_are_base64_in_messages(store):
    flag = next(f for f in thread_health(store, "demo-vision").flags if f.code == "base64-in-state")
    assert flag.field == "messages" and "image_url" in flag.summary


def test_interrupted_tool_call_is_waiting_not_dangling(store):
    assert "dangling-tool-call" not in codes(thread_health(store, "demo-interrupt"))


def test_long_conversation_without_summary(store):
    health = thread_health(store, "demo-long", Settings(max_messages_without_summary=50))
    flag = next(f for f in health.flags if f.code == "messages-unsummarised")
    first = store.state("demo-long", flag.first_checkpoint_id)
    assert len(first.values["messages"]) > 50
    previous = store.state("demo-long", first.parent_checkpoint_id)
    assert len(previous.values["messages"]) <= 50
    assert "messages-unsummarised" not in codes(thread_health(store, "demo-long"))


def test_every_leaf_state_is_decoded_once(store, monkeypatch):
    calls = count_state_reads(store, monkeypatch)
    thread_health(store, "demo-time-travel")
    rows = store.field_sizes("demo-time-travel")
    assert set(calls) == set(leaf_ids(rows)) and len(calls) == 2
    assert max(calls.values()) == 1


# --- small stores written by LangGraph ------------------------------------------------


def _write_thread(path, thread_id, updates):
    """Checkpoints written by LangGraph itself: one update_state per dict in ``updates``."""
    graph = StateGraph(ThreadState)
    graph.add_node("agent", lambda state: {})
    graph.add_edge(START, "agent")
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        app = graph.compile(checkpointer=SqliteSaver(conn))
        config = {"configurable": {"thread_id": thread_id}}
        for update in updates:
            app.update_state(config, update, as_node="agent")
    finally:
        conn.close()


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4).decode()


@pytest.fixture(scope="module")
def small_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("health") / "small.db"
    call = {"id": "call-1", "name": "web_search", "args": {"query": "x"}}
    _write_thread(path, "data-url", [
        {"messages": [HumanMessage("look", id="h1")]},
        {"messages": [HumanMessage([{"type": "text", "text": "here"},
                                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}}],
                                   id="h2")]},
        {"messages": [AIMessage("a plain answer", id="a1")]},
    ])
    _write_thread(path, "dangling", [
        {"messages": [HumanMessage("search", id="h1")]},
        {"messages": [AIMessage("", tool_calls=[call], id="a1")]},
        {"messages": [HumanMessage("hello?", id="h2")]},
    ])
    _write_thread(path, "answered", [
        {"messages": [HumanMessage("search", id="h1")]},
        {"messages": [AIMessage("", tool_calls=[call], id="a1")]},
        {"messages": [ToolMessage("result", tool_call_id="call-1", id="t1")]},
        {"messages": [AIMessage("done", id="a2")], "artifacts": ["/mnt/user-data/outputs/report.md"]},
    ])
    _write_thread(path, "messy", [
        {"messages": [HumanMessage("plan", id="h1")],
         "todos": [{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}],
         "artifacts": ["/mnt/user-data/outputs/report.md", "/mnt/user-data/outputs/./report.md",
                       "/etc/passwd"]},
    ])
    with open_store(f"sqlite:///{path}") as s:
        yield s


def test_data_url_in_a_message_is_flagged(small_store):
    health = thread_health(small_store, "data-url")
    flag = next(f for f in health.flags if f.code == "base64-in-state")
    assert flag.field == "messages" and "messages[1].content[1].image_url.url" in flag.summary
    rows = small_store.field_sizes("data-url")
    first_with_image = next(r.checkpoint_id for r in rows if len(r.channels.get("messages").items or ()) >= 2)
    assert flag.first_checkpoint_id == first_with_image
    assert flag.checkpoint_ids[-1] == rows[-1].checkpoint_id


def test_dangling_tool_call_is_flagged(small_store):
    flag = next(f for f in thread_health(small_store, "dangling").flags if f.code == "dangling-tool-call")
    assert "call-1" in flag.summary and flag.field == "messages"
    assert thread_health(small_store, "answered").flags == []


def test_todos_and_artifacts_are_linted(small_store):
    from inspector import profiles

    generic = {f.code for f in thread_health(small_store, "messy").flags}  # no DeerFlow evidence: LangGraph's lints
    assert "todos-in-progress" in generic and not {c for c in generic if c.startswith("artifact-")}
    profiles.name_profile("deerflow")  # the operator's word: DeerFlow's artifact lints too
    found = {f.code: f for f in thread_health(small_store, "messy").flags}
    assert "2 todos in_progress" in found["todos-in-progress"].summary
    assert "/etc/passwd" in found["artifact-outside-outputs"].summary
    assert "/mnt/user-data/outputs/./report.md" in found["artifact-duplicate-path"].summary


def test_store_health_ranks_threads(small_store):
    reports = store_health(small_store)
    assert [r.sizes.stored_bytes for r in reports] == sorted((r.sizes.stored_bytes for r in reports), reverse=True)
    assert {r.thread_id for r in reports} == {"data-url", "dangling", "answered", "messy"}


def test_health_command_exit_codes(small_store, capsys):
    db = f"sqlite:///{small_store.path}"
    assert main(["health", "--db", db, "answered"]) == 0
    assert main(["health", "--db", db, "dangling"]) == 1
    assert "[dangling-tool-call]" in capsys.readouterr().out
    assert main(["health", "--db", db, "no-such-thread"]) == 2
    assert "no thread" in capsys.readouterr().err
    assert main(["health", "--db", db, "--json"]) == 1
    assert '"flag_count"' in capsys.readouterr().out


def test_sizes_command(small_store, capsys):
    import json

    db = f"sqlite:///{small_store.path}"
    assert main(["sizes", "--db", db, "data-url", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["accounting"] == "per-checkpoint-copy" and report["growth_bytes"] > len(PNG)
    assert main(["sizes", "--db", db]) == 0
    assert "data-url" in capsys.readouterr().out


def _shared_row(cid, parent, images):
    from inspector.store import CheckpointSizes
    from inspector.store.measure import ChannelSize

    channels = {} if images is None else {"viewed_images": ChannelSize(images[1], images[0], (), f"vi:{images[0]}")}
    return CheckpointSizes("t", "", cid, parent, None, None, 100, 0, channels)


def test_uncleared_images_on_shared_blob_stores_use_whole_values():
    from inspector.profiles.deerflow.health import uncleared_image_flags

    kept = [_shared_row(f"{i}", f"{i - 1}" if i else None, ("v1", 50_000)) for i in range(6)]
    growing = [_shared_row(f"{i}", f"{i - 1}" if i else None, (f"v{i}", 50_000 * (i + 1))) for i in range(6)]
    cleared = [_shared_row(f"{i}", f"{i - 1}" if i else None, ("v0", 1) if i % 2 else (f"v{i}", 50_000))
               for i in range(8)]
    flags = uncleared_image_flags("t", kept, Settings(uncleared_images_after=3))
    assert uncleared_image_flags("t", growing, Settings(uncleared_images_after=3))[0].checkpoint_ids == ("3", "4", "5")
    assert flags and flags[0].checkpoint_ids == ("3", "4", "5")
    assert uncleared_image_flags("t", cleared, Settings(uncleared_images_after=3)) == []


def test_a_corrupt_checkpoint_blob_is_a_flag_naming_it(demo_db, tmp_path, capsys):
    """A blob cut short (a disk fault; raw SQL) is a flag of its own, at that checkpoint, and ``health`` exits 1;
    the thread's other flags and the untouched threads are as before."""
    import shutil

    copy = tmp_path / "truncated.db"
    shutil.copyfile(demo_db, copy)
    with sqlite3.connect(copy) as conn:
        (target,) = conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'demo-research' AND "
                                 "checkpoint_ns = '' ORDER BY checkpoint_id LIMIT 1 OFFSET 3").fetchone()
        conn.execute("UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 30) WHERE thread_id = 'demo-research' "
                     "AND checkpoint_ns = '' AND checkpoint_id = ?", [target])
    with open_store(str(copy)) as opened, open_store(str(demo_db)) as intact:
        cut, before = thread_health(opened, "demo-research"), thread_health(intact, "demo-research")
    (flag,) = [f for f in cut.flags if f.code == "corrupt-checkpoint"]
    assert flag.checkpoint_ids == (target,) and "corrupt or truncated" in flag.summary
    assert "corrupt-checkpoint" not in before.codes() and set(before.codes()) <= set(cut.codes())
    assert main(["health", "--db", str(copy), "demo-research"]) == 1
    assert "[corrupt-checkpoint]" in capsys.readouterr().out


def test_a_flag_names_each_checkpoint_once(small_store):
    """The unanswered call's first checkpoint taken as a branch's newest: the lint names it once, not as the first
    holder and again as the newest; and a flag built with a repeated id keeps it once."""
    from inspector.sizes.health import Flag
    from inspector.sizes.health_values import dangling_tool_call_flags

    rows = small_store.field_sizes("dangling")
    first = next(r.checkpoint_id for r in sorted(rows, key=lambda r: r.checkpoint_id)
                 if len(small_store.state("dangling", r.checkpoint_id).values.get("messages") or []) == 2)
    (found,) = dangling_tool_call_flags(small_store.state("dangling", first), rows)
    assert found["checkpoint_ids"] == (first,)
    flag = Flag("x", "t", None, ("a", "b", "a", "b"), "", "", "")
    assert flag.checkpoint_ids == ("a", "b")
