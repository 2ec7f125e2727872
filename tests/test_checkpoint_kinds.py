"""DeerFlow's own checkpoints named: run finished, goal set, title set, branch copies; delta mode; branch links."""

from __future__ import annotations

import json
import operator
import sqlite3
from typing import Annotated, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages

from inspector.demo.deerflow_writes import branch_thread, persist_run_durations, write_thread_goal
from inspector.history.checkpoint_kinds import branch_origin, checkpoint_kind, delta_marker, kind_at, seconds, step_label
from inspector.history.lineage import build_history
from inspector.history.timeline_rows import timeline_records
from inspector.store import CheckpointRow, open_store


class State(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    artifacts: Annotated[list[str], operator.add]
    goal: dict | None
    sandbox: dict | None


def reply(state: State) -> dict:
    n = len(state["messages"])
    return {"messages": [AIMessage(f"answer {n}", id=f"ai-{n}")], "artifacts": [f"/mnt/user-data/outputs/{n}.md"],
            "sandbox": {"sandbox_id": "local"}}


@pytest.fixture(scope="module")
def store_path(tmp_path_factory):
    """A parent thread with two runs, a run-duration checkpoint, a goal write and two branches."""
    path = tmp_path_factory.mktemp("kinds") / "store.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    graph = StateGraph(State)
    graph.add_node("agent", reply)
    graph.add_edge(START, "agent")
    app = graph.compile(checkpointer=saver)
    config = {"configurable": {"thread_id": "parent"}}
    app.invoke({"messages": [HumanMessage("first", id="user-1")]}, config)
    first_turn = app.get_state(config).config
    persist_run_durations(saver, "parent", {"run-aaaa1111": 12})
    app.invoke({"messages": [HumanMessage("second", id="user-2")]}, config)
    persist_run_durations(saver, "parent", {"run-bbbb2222": 185})
    write_thread_goal(saver, "parent", {"id": "g1", "objective": "Ship the report", "status": "active"})
    branch_thread(saver, State, "parent", first_turn, "parent-branch-1", "ai-1", "2026-08-20T10:00:00Z")
    branch_thread(saver, State, "parent", app.get_state(config).config, "parent-branch-2", "ai-3",
                  "2026-08-21T10:00:00Z", base_point=first_turn)
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def store(store_path):
    with open_store(f"sqlite:///{store_path}") as opened:
        yield opened


def test_run_duration_checkpoints_are_named_with_their_durations(store):
    history = build_history(store.timeline("parent"))
    kinds = [kind_at(history, key) for key in history.ordered]
    finished = [k.label for k in kinds if k and k.name == "run finished"]
    assert finished == ["run finished (run run-bbbb: 3 min 05 s)", "run finished (run run-aaaa: 12 s)"]


def test_goal_writes_are_named(store):
    newest = store.timeline("parent")[0]
    assert newest.source == "update" and newest.write_channels == ()
    assert checkpoint_kind(newest.metadata).label == "goal set (active · Ship the report)"
    assert store.state("parent").values["goal"]["objective"] == "Ship the report"


def test_branches_are_linked_both_ways(store):
    branches = store.branch_threads("parent")
    assert [b.thread_id for b in branches] == ["parent-branch-1", "parent-branch-2"]
    parent_ids = {r.checkpoint_id for r in store.timeline("parent")}
    assert all(b.parent_checkpoint_id in parent_ids for b in branches)
    assert [b.parent_message_id for b in branches] == ["ai-1", "ai-3"]
    origin = branch_origin(store.timeline("parent-branch-2"))
    assert (origin.parent_thread_id, origin.parent_checkpoint_id) == ("parent", branches[1].parent_checkpoint_id)
    assert branch_origin(store.timeline("parent")) is None
    assert store.branch_threads("parent-branch-1") == [] and store.branch_threads("no-such-thread") == []


def test_branch_copies_hold_the_parents_state_without_its_sandbox(store):
    rows = store.timeline("parent-branch-2")
    assert len(rows) == 2 and all(checkpoint_kind(r.metadata).label == "branch copy (from parent)" for r in rows)
    # LangGraph keeps update_state's own "update" source; DeerFlow's "branch" stays in its config metadata
    assert {r.source for r in rows} == {"update"} and all(r.metadata["deerflow_branch"] is True for r in rows)
    state = store.state("parent-branch-2")
    assert [m["content"] for m in state.values["messages"]] == ["first", "answer 1", "second", "answer 3"]
    assert "sandbox" not in state.values
    overwrites = [w for w in store.state("parent-branch-2", rows[1].checkpoint_id).writes if w.channel == "messages"]
    assert overwrites and "Overwrite" in json.dumps(overwrites[0].value, default=str)


def test_timeline_table_and_tree_show_the_kinds(store):
    history = build_history(store.timeline("parent"))
    records = timeline_records(history, history.ordered)
    assert records[0]["kind"].startswith("goal set") and records[0]["mode"] == ""
    assert sum(r["kind"].startswith("run finished") for r in records) == 2
    assert not any(r["kind"] for r in records if r["source"] in ("input", "loop"))
    assert step_label(history, history.ordered[0]).endswith("· goal set")


def test_cli_timeline_names_kinds_and_branch_links(store_path, capsys):
    from inspector.cli import main

    assert main(["timeline", "--db", str(store_path), "parent", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [b["thread_id"] for b in out["branches"]] == ["parent-branch-1", "parent-branch-2"]
    assert out["branched_from"] is None
    assert any(c["kind"].startswith("run finished") for c in out["checkpoints"])
    assert main(["timeline", "--db", str(store_path), "parent-branch-1"]) == 0
    text = capsys.readouterr().out
    assert "branch copy (from parent)" in text and "branched from thread parent at checkpoint" in text
    assert main(["timeline", "--db", str(store_path), "parent"]) == 0
    assert "branch: thread parent-branch-2 from checkpoint" in capsys.readouterr().out


@pytest.mark.parametrize("metadata, label", [
    ({"source": "update", "run_durations": {"r1": 3, "r2": 7200}, "writes": {"runtime_run_duration": {"run_ids": ["r2"]}}},
     "run finished (run r2: 2 h 00 min)"),
    ({"source": "update", "writes": {"runtime_run_duration": {"run_ids": ["r9"]}}}, "run finished (run r9: duration unknown)"),
    ({"source": "update", "writes": {"goal": {"goal": None}}}, "goal cleared"),
    ({"source": "update", "writes": {"goal_evaluator": {"goal": None}}}, "goal cleared (by goal_evaluator)"),
    ({"source": "update", "writes": {"goal_evaluator": {"goal": {
        "objective": "Ship it", "status": "active", "last_evaluation": {"satisfied": False}}}}},
     "goal set (by goal_evaluator · active · Ship it · evaluated: not yet satisfied)"),
    ({"source": "update", "writes": {"runtime_interrupt_title": {"title": "Trip plan"}}},
     "title set (after an interrupted run: Trip plan)"),
    ({"source": "update", "branch_parent_thread_id": "t0"}, "branch copy (from t0)"),
    ({"source": "branch", "branch_parent_thread_id": "t0"}, "branch copy (from t0)"),
])
def test_kinds_from_metadata(metadata, label):
    assert checkpoint_kind(metadata).label == label


@pytest.mark.parametrize("metadata", [
    {"source": "loop", "step": 3}, {"source": "input", "branch_parent_thread_id": "t0"}, {"source": "update"},
    {"source": "update", "writes": {"agent": {"messages": []}}}, None, "odd",
])
def test_ordinary_checkpoints_have_no_kind(metadata):
    assert checkpoint_kind(metadata) is None


def row(metadata, wrote=()):
    return CheckpointRow("t", "", "c", None, metadata.get("step"), metadata.get("source"), None, 0,
                         write_channels=tuple(wrote), metadata=metadata)


def test_without_stored_writes_metadata_run_durations_and_puts_are_still_told_apart():
    """PostgresSaver drops ``writes`` from stored metadata: what is left still names the checkpoints."""
    end_of_run = row({"source": "loop", "step": 5})
    finished = {"source": "update", "step": 6, "run_durations": {"run-1": 30}}
    assert checkpoint_kind(finished, end_of_run).label == "run finished (run run-1: 30 s)"
    later = {"source": "update", "step": 12, "run_durations": {"run-1": 30, "run-2": 4}}
    assert checkpoint_kind(later, row({"source": "loop", "run_durations": {"run-1": 30}})).label == \
        "run finished (run run-2: 4 s)"
    goal_put = {"source": "update", "step": 7, "run_durations": {"run-1": 30}, "updated_at": "2026-08-21T09:00:00Z"}
    assert checkpoint_kind(goal_put, row(finished)).name == "put"
    # update_state stores its writes on the checkpoint it updates: not a put
    assert checkpoint_kind({"source": "update", "step": 3}, row({"source": "loop"}, wrote=["messages"])) is None
    assert checkpoint_kind({"source": "update", "step": 0}, None) is None
    # where writes are kept, an update that is none of DeerFlow's stays unnamed
    assert checkpoint_kind({"source": "update", "writes": {"agent": {"x": 1}}}, row({"source": "loop"})) is None


def test_delta_mode_comes_from_deerflows_marker_first():
    assert delta_marker({"deerflow_checkpoint_channel_mode": "delta", "counters_since_delta_snapshot": {"messages": 1}}) \
        == "deerflow_checkpoint_channel_mode"
    assert delta_marker({"counters_since_delta_snapshot": {"messages": 2}}) == "counters_since_delta_snapshot"
    assert delta_marker({"deerflow_checkpoint_channel_mode": "full"}) is None and delta_marker(None) is None


def test_seconds():
    assert [seconds(s) for s in (0, 59, 60, 3599, 3600, 3725)] == ["0 s", "59 s", "1 min 00 s", "59 min 59 s",
                                                                   "1 h 00 min", "1 h 02 min"]


def test_deerflows_kinds_and_marker_apply_only_where_its_profile_reads(store):
    """Read with the generic LangGraph profile, DeerFlow's run-duration checkpoints are plain puts or unnamed."""
    from inspector.profiles import reading

    with reading(store, "parent", named="langgraph"):
        history = build_history(store.timeline("parent"))
        names = {kind.name for key in history.ordered if (kind := kind_at(history, key)) is not None}
        assert delta_marker({"deerflow_checkpoint_channel_mode": "delta"}) is None
    with reading(store, "parent", named="deerflow"):
        assert "run finished" in {k.name for key in history.ordered if (k := kind_at(history, key)) is not None}
    assert "run finished" not in names and "goal set" not in names
