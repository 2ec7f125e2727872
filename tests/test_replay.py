"""Replay verification on the real demo store, and on a copy altered through LangGraph's serializer."""

from __future__ import annotations

import operator
import shutil
import sqlite3
from typing import Annotated, TypedDict

import pytest
from altered_copies import rewrite_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.cli import main
from inspector.demo import DEMO_THREADS
from inspector.diff import GENERATED_ID, UNKNOWN_REDUCER, replay, replay_step, replay_thread, verdict
from inspector.diff.replay import NOT_STORED, SANDBOX_CONFLICT
from inspector.store import CheckpointState, WriteRecord, open_store
from inspector.store.decode import OVERWRITE_TYPE


def write(channel, value, task="agent"):
    return WriteRecord(task, f"~__pregel_pull, {task}", 0, channel, value, "msgpack", 0)


def msg(kind, mid, content=""):
    return {"type": kind, "id": mid, "content": content, "name": None, "additional_kwargs": {},
            "response_metadata": {}}


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(str(demo_db)) as opened:
        yield opened


@pytest.mark.parametrize("thread_id", sorted(DEMO_THREADS))
def test_every_step_of_every_demo_thread_replays(store, thread_id):
    namespaces = sorted({r.checkpoint_ns for r in store.timeline(thread_id)})
    for ns in namespaces:
        steps = replay_thread(store, thread_id, ns)
        assert steps[0].status == "first"
        assert [s for s in steps if s.status == "mismatch"] == []
        checked = [s for s in steps if s.status == "match"]
        assert checked and all(f.status == "confirmed" for s in checked for f in s.fields)
        assert any(f.written for s in checked for f in s.fields)


def test_update_state_fork_is_reported_honestly(store):
    steps = replay_thread(store, "demo-time-travel")
    updates = [s for s in steps if s.source == "update"]
    assert len(updates) == 1
    update = updates[0]
    assert update.status == "unverified" and "not stored as writes" in update.note
    by_field = {f.field: f for f in update.fields}
    assert by_field["messages"].status == "unverified" and "not stored" in by_field["messages"].reason
    assert by_field["title"].status == "confirmed"  # not written by the update: must equal the parent


def test_replay_applies_reducers_and_marks_generated_ids():
    parent = {"messages": [msg("human", "h1", "hi")], "artifacts": ["/o/a.md"], "viewed_images": {"/u/x": {}},
              "title": "old"}
    writes = [write("messages", [msg("ai", None, "hello")]), write("artifacts", ["/o/a.md", "/o/b.md"], "tools"),
              write("viewed_images", {}, "clear"), write("title", "new", "title"), write("branch:to:x", None)]
    values = replay(parent, writes)
    assert [m["id"] for m in values["messages"]] == ["h1", GENERATED_ID]
    assert values["messages"][1]["content"] == "hello" and values["messages"][1]["type"] == "ai"
    assert values["artifacts"] == ["/o/a.md", "/o/b.md"]
    assert values["viewed_images"] == {}
    assert values["title"] == "new"
    assert "branch:to:x" not in values


def test_replay_of_remove_all_messages():
    parent = {"messages": [msg("human", "h1", "a"), msg("ai", "a1", "b")]}
    values = replay(parent, [write("messages", [msg("remove", "__remove_all__"), msg("human", "h2", "c")])])
    assert [m["id"] for m in values["messages"]] == ["h2"]


# -- a store altered by hand ---------------------------------------------------------


def alter_todos(db_path, thread_id: str, checkpoint_id: str) -> None:
    """Rewrite one checkpoint's ``todos`` the way a buggy writer would, with LangGraph's serializer."""
    def block_first(values):
        values["todos"][0]["status"] = "blocked"
    rewrite_checkpoint(db_path, thread_id, block_first, checkpoint_id)


@pytest.fixture(scope="module")
def altered(demo_db, tmp_path_factory, store):
    """A copy of the demo store where one mid-thread checkpoint's todos were altered.

    The altered checkpoint is one whose own tasks write ``todos`` again, so the
    next step replaces the field and only the altered step can disagree."""
    rows = sorted((r for r in store.timeline("demo-research") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    target = [r for r in rows if "todos" in r.write_channels][1]
    copy = tmp_path_factory.mktemp("altered") / "altered.db"
    shutil.copyfile(demo_db, copy)
    alter_todos(copy, "demo-research", target.checkpoint_id)
    return copy, target.checkpoint_id


def test_altered_step_is_flagged_at_that_step_and_field(altered):
    db, checkpoint_id = altered
    with open_store(str(db)) as opened:
        steps = replay_thread(opened, "demo-research")
    flagged = [s for s in steps if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [checkpoint_id]
    assert [(f.field, f.reducer) for f in flagged[0].mismatches] == [("todos", "merge_todos")]
    assert "todos[0].status" in flagged[0].mismatches[0].first_difference
    assert "'blocked'" in flagged[0].mismatches[0].first_difference


def test_replay_command_exit_codes(demo_db, altered, capsys):
    assert main(["replay", "--db", str(demo_db), "demo-research"]) == 0
    assert "0 replay mismatch(es)" in capsys.readouterr().out
    db, checkpoint_id = altered
    assert main(["replay", "--db", str(db), "demo-research"]) == 1
    out = capsys.readouterr().out
    assert "1 replay mismatch(es)" in out and checkpoint_id in out and "todos[0].status" in out


def test_a_truncated_checkpoint_blob_leaves_its_fields_unverified_never_mismatched(demo_db, store, tmp_path, capsys):
    """A blob cut short (a disk fault; raw SQL, the saver cannot write one) hides the channels after the cut: the
    step into it and the step out of it cannot compare them, so those fields are unverified and the corruption is
    the steps' finding, never a mismatch in the thread's data."""
    from inspector.diff.replay import UNREAD_CHECKPOINT

    rows = sorted((r for r in store.timeline("demo-research") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    target = rows[len(rows) // 2].checkpoint_id
    copy = tmp_path / "truncated.db"
    shutil.copyfile(demo_db, copy)
    with sqlite3.connect(copy) as conn:
        conn.execute("UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, length(checkpoint) / 3) "
                     "WHERE thread_id = 'demo-research' AND checkpoint_ns = '' AND checkpoint_id = ?", [target])
    with open_store(str(copy)) as opened:
        steps = {s.checkpoint_id: s for s in replay_thread(opened, "demo-research")}
    assert [s.checkpoint_id for s in steps.values() if s.status == "mismatch"] == []
    touched = [s for s in steps.values() if any(f.reason == UNREAD_CHECKPOINT for f in s.fields)]
    assert target in {s.checkpoint_id for s in touched} and len(touched) <= 2  # into the cut blob, and out of it
    for step in touched:
        assert step.status == "unverified" and any(target in f and "corrupt or truncated" in f for f in step.findings)
    assert main(["replay", "--db", str(copy), "demo-research"]) == 0
    assert "0 replay mismatch(es)" in capsys.readouterr().out


def test_thread_page_marks_the_step_whose_replay_does_not_match(altered, monkeypatch):
    from ui_app import open_page

    from inspector.ui import connection

    db, checkpoint_id = altered
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{db}")
    connection.settings.clear()
    at = open_page("thread", thread="demo-research", checkpoint=checkpoint_id, history="table")
    assert not at.exception, at.exception
    at.toggle(key="replay_marks_demo-research").set_value(True).run()
    assert any("1 step(s) whose replay does not match" in w.value for w in at.warning)
    table = next(d.value for d in at.dataframe if "replay" in d.value.columns)
    marks = dict(zip(table["checkpoint"], table["replay"]))
    assert marks[checkpoint_id].endswith("replay does not match")
    assert all(not m.endswith("replay does not match") for cid, m in marks.items() if cid != checkpoint_id)
    connection.settings.clear()


# -- LangGraph's channel rules, on plain states -----------------------------------------

def state(cid, values, writes=(), parent=None, source="loop", versions=None):
    return CheckpointState("t", "", cid, parent, dict(values), {}, {"source": source, "step": 1}, list(writes), [],
                           header={"channel_versions": versions or {}})


def overwrite(value):
    return {"__type__": OVERWRITE_TYPE, "value": {"value": value, "type": "__overwrite__"}}


def test_a_channel_the_schema_lacks_is_unverified_never_a_mismatch():
    parent = state("p", {"score": 3, "mood": "calm"}, [write("score", 5)])
    child = state("c", {"score": 4, "mood": "calm"}, parent="p")
    checks = {f.field: f for f in replay_step(parent, child).fields}
    assert (checks["score"].status, checks["score"].reason, checks["score"].reducer) == ("unverified", UNKNOWN_REDUCER, "unknown")
    assert checks["mood"].status == "confirmed"  # not written and unchanged: carried over
    changed = replay_step(state("p", {"mood": "calm"}), state("c", {"mood": "tense"}, parent="p"))
    assert changed.status == "unverified" and changed.fields[0].reason == UNKNOWN_REDUCER
    assert verdict([changed]).matches


def test_overwrite_bypasses_the_reducer_and_later_writes_in_the_step():
    parent = state("p", {"artifacts": ["/o/a"]}, [write("artifacts", ["/o/b"], "a"),
                                                  write("artifacts", overwrite(["/o/z"]), "b"),
                                                  write("artifacts", ["/o/c"], "c")])
    good = replay_step(parent, state("c", {"artifacts": ["/o/z"]}, parent="p"))
    assert good.status == "match" and good.fields[0].written
    bad = replay_step(parent, state("c", {"artifacts": ["/o/z", "/o/c"]}, parent="p"))
    assert bad.status == "mismatch"


def test_a_reducer_channel_without_a_value_takes_its_first_write_as_it_is():
    parent = state("p", {}, [write("promoted", {"catalog_hash": "h", "names": ["a", "a"]})])
    child = state("c", {"promoted": {"catalog_hash": "h", "names": ["a", "a"]}}, parent="p")
    assert replay_step(parent, child).status == "match"  # LangGraph does not call merge_promoted on the first write


def test_an_overwrite_into_an_empty_channel_stores_its_value():
    """DeerFlow's branch copies write every reducer field as Overwrite(...); into a channel with no value yet it
    stores the value (DeerFlow patches LangGraph's BinaryOperatorAggregate so), and later writes are ignored."""
    parent = state("p", {}, [write("promoted", overwrite({"catalog_hash": "h", "names": ["a"]}), "a"),
                             write("promoted", {"catalog_hash": "h", "names": ["b"]}, "b")])
    child = state("c", {"promoted": {"catalog_hash": "h", "names": ["a"]}}, parent="p")
    assert replay_step(parent, child).status == "match"
    # a saver that kept the wrapper itself holds the same value: verified
    wrapped = state("c", {"promoted": overwrite({"catalog_hash": "h", "names": ["a"]})}, parent="p")
    assert replay_step(parent, wrapped).status == "match"
    wrong = state("c", {"promoted": overwrite({"catalog_hash": "h", "names": ["b"]})}, parent="p")
    assert replay_step(parent, wrong).status == "mismatch"


def test_a_sandbox_conflict_is_a_finding_on_its_step_not_an_error():
    parent = state("p", {"sandbox": {"sandbox_id": "sb-1"}}, [write("sandbox", {"sandbox_id": "sb-2"})])
    child = state("c", {"sandbox": {"sandbox_id": "sb-1"}}, parent="p")
    check = replay_step(parent, child)
    assert check.status == "unverified" and check.fields[0].reason == SANDBOX_CONFLICT
    assert len(check.findings) == 1 and "'sb-1' != 'sb-2'" in check.findings[0] and "lifecycle bug" in check.findings[0]
    assert verdict([check]).findings == 1 and verdict([check]).matches


def test_update_state_writes_are_replayed_for_the_parents_only_child():
    update = WriteRecord("u", "~__interrupt__, 0000000000", 0, "todos", overwrite([{"content": "x"}]), "msgpack", 0)
    parent = state("p", {"todos": [{"content": "old"}], "title": "t"}, [update], versions={"todos": "1", "title": "1"})
    child = state("c", {"todos": [{"content": "x"}], "title": "t"}, parent="p", source="update",
                  versions={"todos": "2", "title": "1"})
    assert replay_step(parent, child, sole_child=True).status == "match"
    unsure = replay_step(parent, child)  # another child of the parent may be the one the writes made
    assert unsure.status == "unverified" and {f.field: f.reason for f in unsure.fields}["todos"] == NOT_STORED
    other = state("c", child.values, parent="p", source="update", versions={"todos": "2", "title": "2"})
    assert replay_step(parent, other, sole_child=True).status == "unverified"  # the writes do not explain title


class Items(TypedDict):
    items: Annotated[list, operator.add]


def test_an_overwrite_stored_as_langgraph_stores_it_is_verified(tmp_path):
    """A real graph: an Overwrite into an empty reducer channel, then a reducer write; every step verifies."""
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Overwrite

    from inspector.schema import schema_of, using

    graph = StateGraph(Items)
    graph.add_node("seed", lambda _: {"items": Overwrite(["a", "b"])})
    graph.add_node("more", lambda _: {"items": ["c"]})
    graph.add_edge(START, "seed")
    graph.add_edge("seed", "more")
    graph.add_edge("more", END)
    db = tmp_path / "overwrite.db"
    with SqliteSaver.from_conn_string(str(db)) as saver:
        graph.compile(checkpointer=saver).invoke({}, {"configurable": {"thread_id": "t"}})
    store = open_store(f"sqlite:///{db}")
    try:
        stored = [store.state("t", row.checkpoint_id).values.get("items") for row in store.timeline("t")]
        assert ["a", "b"] in stored and ["a", "b", "c"] in stored
        with using(schema_of(Items)):
            steps = replay_thread(store, "t")
        result = verdict(steps)
        assert result.mismatched == 0 and any(f.field == "items" and f.status == "confirmed"
                                              for s in steps for f in s.fields)
    finally:
        store.close()
