"""The generic replay verifies what needs no reducer, on stores written by real graphs and LangGraph's saver.

A field no task wrote keeps its value (a channel that forgets, ``EphemeralValue`` or ``Topic``, is cleared
with its version moved): a stored value that changed otherwise is "changed without a write" at exactly its
step and field, on the generic base too, while an ``update_state`` whose writes LangGraph did not store
stays unverified. A written value none of LangGraph's standard folds gives is said so. Nothing is flagged
on an unaltered store: every app store of the suite and the demo, read on the generic base."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from altered_copies import rewrite_checkpoint
from flow_graph import FLOW_THREAD
from langgraph.channels import EphemeralValue, Topic
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from inspector.cli import main
from inspector.diff import replay_thread, verdict
from inspector.diff.model import CHANGED_WITHOUT_WRITE, UNEXPLAINED
from inspector.diff.replay import NOT_STORED
from inspector.profiles.langgraph import GENERIC_SCHEMA
from inspector.store import open_store

STORES = ("demo_db", "deerflow_main_db", "flow_db", "langchain_agent_db", "deep_agent_db", "swarm_db", "supervisor_db",
          "operator_add_db", "nested_db", "forgetting_db")


class Forgetting(TypedDict, total=False):
    note: Annotated[str, EphemeralValue(str)]  # cleared at every step that does not write it
    events: Annotated[list[str], Topic(str)]  # emptied likewise (it does not accumulate)
    count: int


def _first(state: Forgetting) -> dict:
    return {"note": "seen once", "events": ["first ran"], "count": 1}


def _second(state: Forgetting) -> dict:
    return {"count": 2}


@pytest.fixture(scope="module")
def forgetting_db(tmp_path_factory) -> Path:
    graph = StateGraph(Forgetting)
    graph.add_node("first", _first)
    graph.add_node("second", _second)
    graph.add_edge(START, "first")
    graph.add_edge("first", "second")
    graph.add_edge("second", END)
    path = tmp_path_factory.mktemp("forgetting") / "forgetting.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        graph.compile(checkpointer=SqliteSaver(conn)).invoke({"count": 0}, {"configurable": {"thread_id": "forgetting"}})
    finally:
        conn.close()
    return path


@pytest.fixture(scope="module")
def operator_add_db(tmp_path_factory) -> Path:
    from operator_add_states import write_store

    return write_store(tmp_path_factory.mktemp("operator-add") / "apps.db")


@pytest.fixture(scope="module")
def nested_db(tmp_path_factory) -> Path:
    from apps.nested_graph import write_store

    return write_store(tmp_path_factory.mktemp("nested") / "nested.db")


def generic_replays(db: Path, thread_id: str) -> dict[str, list]:
    """Every namespace of a thread replayed on the generic base (no app's reducer known)."""
    with open_store(str(db)) as store:
        namespaces = sorted({r.checkpoint_ns for r in store.timeline(thread_id)})
        return {ns: replay_thread(store, thread_id, ns, schema=GENERIC_SCHEMA) for ns in namespaces}


@pytest.mark.parametrize("fixture", STORES)
def test_nothing_is_flagged_on_an_unaltered_store_read_generically(request, fixture):
    db = request.getfixturevalue(fixture)
    with open_store(str(db)) as store:
        threads = [t.thread_id for t in store.threads(limit=100)]
    checked = 0
    for thread_id in threads:
        for ns, steps in generic_replays(db, thread_id).items():
            result = verdict(steps)
            assert result.mismatched == 0 and result.changed_without_write == 0, \
                (thread_id, ns, [s.detail() for s in steps if s.status == "mismatch"])
            checked += sum(len(s.fields) for s in steps)
    assert checked > 0


def test_channels_that_forget_are_cleared_not_changed(forgetting_db):
    steps = generic_replays(forgetting_db, "forgetting")[""]
    cleared = steps[-1]  # ``second`` wrote only count: LangGraph cleared note and emptied events
    with open_store(str(forgetting_db)) as store:
        state = store.state("forgetting", cleared.checkpoint_id)
    assert "note" not in state.values and state.values["events"] == []
    checks = {f.field: f for f in cleared.fields}
    assert checks["note"].status == checks["events"].status == "confirmed" and not checks["note"].written


def _newest_step_writes(db: Path, thread_id: str) -> tuple[str, set[str]]:
    with open_store(str(db)) as store:
        newest = store.state(thread_id)
        parent = store.state(thread_id, newest.parent_checkpoint_id)
    return newest.checkpoint_id, {w.channel for w in parent.writes}


def test_a_value_altered_where_no_task_wrote_it_is_flagged_at_that_step_and_field(flow_db, tmp_path, capsys):
    copy = tmp_path / "flow.db"
    shutil.copyfile(flow_db, copy)
    newest, wrote = _newest_step_writes(copy, FLOW_THREAD)
    assert "topic" not in wrote and wrote & {"found", "summary"}  # a graph step that wrote other fields

    def retitle(values):
        values["topic"] = "storms"

    assert rewrite_checkpoint(copy, FLOW_THREAD, retitle) == newest
    steps = generic_replays(copy, FLOW_THREAD)[""]
    flagged = [s for s in steps if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [newest]
    (check,) = flagged[0].unexplained
    assert (check.field, check.status, check.reason, check.reducer) == ("topic", UNEXPLAINED, CHANGED_WITHOUT_WRITE,
                                                                          "unknown")
    assert check.first_difference == "topic: 'waves' -> 'storms'"
    result = verdict(steps)
    assert (result.mismatched, result.changed_without_write, result.matches) == (0, 1, False)
    # the CLI on the profile the data shows (the generic base): exit 1, counted in the summary and in JSON
    assert main(["replay", "--db", str(copy), FLOW_THREAD]) == 1
    out = capsys.readouterr().out
    assert "0 mismatched, 1 changed without a write (topic)" in out and "LangGraph" in out
    assert "topic: 'waves' -> 'storms' (changed without a write)" in out
    assert main(["replay", "--db", str(copy), FLOW_THREAD, "--json", "--quiet"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["matches"] is False and payload["verdict"]["changed_without_write"] == 1
    assert [(s["checkpoint_id"], f["field"], f["status"], f["reason"]) for s in payload["steps"] for f in s["fields"]
            if f["status"] == UNEXPLAINED] == [(newest, "topic", UNEXPLAINED, CHANGED_WITHOUT_WRITE)]


def test_a_field_that_appears_or_disappears_without_a_write_is_a_change(operator_add_db, tmp_path):
    from operator_add_states import DATACLASS_THREAD

    copy = tmp_path / "apps.db"
    shutil.copyfile(operator_add_db, copy)
    newest, wrote = _newest_step_writes(copy, DATACLASS_THREAD)
    assert "todos" not in wrote

    def drop_and_plant(values):
        del values["todos"]
        values["planted"] = ["not written by any task"]

    rewrite_checkpoint(copy, DATACLASS_THREAD, drop_and_plant)
    steps = generic_replays(copy, DATACLASS_THREAD)[""]
    flagged = [s for s in steps if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [newest]
    changes = {f.field: f.first_difference for f in flagged[0].unexplained}
    assert set(changes) == {"todos", "planted"}
    assert changes["todos"].startswith("todos removed (was ") and changes["planted"].startswith("planted set to ")


def test_an_update_state_whose_writes_are_not_stored_stays_unverified(flow_db, tmp_path):
    """The fork (``update_state`` on an older checkpoint: LangGraph stores its writes nowhere) is unverified
    even with the value it wrote altered; the step after it, a graph step, shows the change."""
    steps = generic_replays(flow_db, FLOW_THREAD)[""]
    (fork,) = [s for s in steps if s.source == "update" and any(f.reason == NOT_STORED for f in s.fields)]
    assert fork.status == "unverified" and [f.field for f in fork.fields if f.reason == NOT_STORED] == ["topic"]
    copy = tmp_path / "flow.db"
    shutil.copyfile(flow_db, copy)

    def retitle(values):
        values["topic"] = "storms"

    rewrite_checkpoint(copy, FLOW_THREAD, retitle, fork.checkpoint_id)
    steps = generic_replays(copy, FLOW_THREAD)[""]
    by_id = {s.checkpoint_id: s for s in steps}
    assert by_id[fork.checkpoint_id].status == "unverified" and not by_id[fork.checkpoint_id].unexplained
    flagged = [s for s in steps if s.status == "mismatch"]
    assert [s.parent_checkpoint_id for s in flagged] == [fork.checkpoint_id]
    assert [(f.field, f.first_difference) for f in flagged[0].unexplained] == [("topic", "topic: 'storms' -> 'waves'")]


def test_written_values_no_standard_fold_explains_are_said(deerflow_main_db):
    """DeerFlow's thread read on the generic base: the fields whose reducers do more than replace, append or
    fold messages are the ones no standard fold explains (a thread the generic base reads: never an error)."""
    from deerflow_main_graph import FULL_THREAD

    steps = generic_replays(deerflow_main_db, FULL_THREAD)[""]
    result = verdict(steps)
    assert result.matches and result.no_standard_fold > 0
    assert set(result.no_standard_fold_fields) == {"artifacts", "delegations", "promoted", "skill_context",
                                                    "viewed_images"}
    assert "messages" in result.inferred and "add_messages" in result.inferred["messages"]
    assert f"{result.no_standard_fold} written value(s) of unknown reducer: no standard fold explains it" in \
        result.summary()
    said = next(s for s in steps if any(f.no_fold for f in s.fields))
    assert said.status == "unverified" and "no standard fold explains it (replace, operator.add, add_messages)" in \
        said.detail()


def test_pages_say_changed_without_a_write(flow_db, tmp_path, app_on_store):
    from ui_app import all_text, open_page

    copy = tmp_path / "flow.db"
    shutil.copyfile(flow_db, copy)

    def retitle(values):
        values["topic"] = "storms"

    newest = rewrite_checkpoint(copy, FLOW_THREAD, retitle)
    app_on_store(f"sqlite:///{copy}")
    at = open_page("diff", thread=FLOW_THREAD, to=newest)
    assert not at.exception, at.exception
    (box,) = [e.value for e in at.error if "Replay mismatch" in e.value]
    assert "topic" in box and "(changed without a write)" in box and "1 changed without a write" in box
    at = open_page("thread", thread=FLOW_THREAD, history="table")
    at.toggle(key=f"replay_marks_{FLOW_THREAD}").set_value(True).run()
    assert not at.exception, at.exception
    assert "0 mismatched, 1 changed without a write (topic)" in all_text(at)
    table = next(d.value for d in at.dataframe if "replay" in d.value.columns)
    marks = dict(zip(table["checkpoint"], table["replay"]))
    assert marks[newest] == "✗ 1 field(s) changed without a write · replay does not match"
