"""A checkpoint in LangGraph's layout before format 3 is read as LangGraph migrates it on load; a thread run with
``durability="exit"`` names its jumping step numbers "steps not saved (durability exit?)", and replay says they are
unverified, not mismatched."""

from __future__ import annotations

import copy
import sqlite3

import pytest
from delta_modes_store import FullState, build_graph
from old_formats_store import EXIT, OLD, RUNS, write_formats
from test_retention_sqlite import cli

from inspector.history.checkpoint_kinds import STEPS_NOT_SAVED, kind_at
from inspector.history.lineage import build_history
from inspector.store import open_store
from inspector.store.model import is_internal_channel


@pytest.fixture(scope="module")
def formats_db(tmp_path_factory):
    return write_formats(tmp_path_factory.mktemp("formats") / "formats.db")


def langgraph_reads(db, thread_id):
    """The checkpoint as the installed LangGraph loads it (migrated by the compiled graph), and its state."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        graph = build_graph(SqliteSaver(conn), None)
        config = {"configurable": {"thread_id": thread_id}}
        checkpoint = copy.deepcopy(graph.checkpointer.get_tuple(config).checkpoint)
        graph._migrate_checkpoint(checkpoint)
        return checkpoint, graph.get_state(config)
    finally:
        conn.close()


def test_a_pre_format_3_checkpoint_is_read_as_langgraph_migrates_it(formats_db):
    theirs, snapshot = langgraph_reads(formats_db, OLD)
    with open_store(str(formats_db)) as store:
        state = store.state(OLD)
    assert state.header["v"] == 1 and list(state.values) == list(snapshot.values) == ["messages"]
    assert [m["id"] for m in state.values["messages"]] == [m.id for m in snapshot.values["messages"]]
    renamed = {k for k in theirs["channel_versions"] if is_internal_channel(k)}
    assert renamed == {"__start__", "branch:to:agent", "branch:to:tool"}
    assert renamed <= set(state.header["channel_versions"]) and not any(
        k.startswith("start:") or k.count(":") == 3 for k in state.header["channel_versions"])
    assert "branch:to:tool" in state.internal and "agent" in state.internal  # the node channel is plumbing
    [named] = [p for p in state.problems if p.kind == "format"]
    assert named.message.startswith("checkpoint format 1") and "start:agent → branch:to:agent" in named.message


def test_its_metadata_writes_name_the_step(formats_db):
    shown = cli("timeline", "--db", str(formats_db), OLD, "--json")
    [row] = __import__("json").loads(shown.stdout)["checkpoints"]
    assert row["step"] == 1 and row["kind"] == "" and "durability" not in shown.stdout


def test_a_run_saved_only_at_its_end_names_the_steps_not_saved(formats_db):
    with open_store(str(formats_db)) as store:
        history = build_history(store.timeline(EXIT))
    kinds = [(history.node(k).row.step, kind_at(history, k)) for k in history.ordered]
    assert [step for step, _ in kinds] == [4 * RUNS + RUNS - 2 - 5 * i for i in range(RUNS)]
    assert all(kind is not None and kind.name == STEPS_NOT_SAVED and "durability exit?" in kind.label for _, kind in kinds)
    assert kinds[0][1].detail == f"durability exit?: steps {kinds[1][0] + 1}–{kinds[0][0] - 1}"


def test_replay_leaves_the_unsaved_steps_unverified(formats_db):
    schema = f"{FullState.__module__.replace('.', '/')}.py:FullState"
    done = cli("replay", "--db", str(formats_db), EXIT, "--schema", f"tests/{schema}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 replay mismatch(es)" in done.stdout and done.stdout.count("steps not saved (durability exit?") == RUNS - 1
