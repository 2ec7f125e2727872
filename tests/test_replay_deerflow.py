"""Replay on a store written by a graph whose state is DeerFlow main's ThreadState (all nine reducers),
in full and delta channel mode, with update_state/Overwrite steps and a branch thread; and on copies
altered through LangGraph's own serializer, where exactly the altered step and field must be flagged."""

from __future__ import annotations

import json
import shutil

import pytest
from altered_copies import rewrite_checkpoint
from deerflow_main_graph import BRANCH_THREAD, DELTA_THREAD, FULL_THREAD, MODE_KEY
from langgraph.checkpoint.serde.types import _DeltaSnapshot

from inspector.cli import main
from inspector.diff import replay_thread, verdict
from inspector.schema import DEFAULT_SCHEMA
from inspector.store import open_store

THREADS = (FULL_THREAD, DELTA_THREAD, BRANCH_THREAD)


@pytest.fixture(scope="module")
def df_db(deerflow_main_db):
    return deerflow_main_db


@pytest.fixture(scope="module")
def store(df_db):
    with open_store(str(df_db)) as opened:
        yield opened


@pytest.fixture(scope="module")
def replays(store):
    return {thread_id: replay_thread(store, thread_id) for thread_id in THREADS}


@pytest.mark.parametrize("thread_id", THREADS)
def test_every_step_replays_without_a_mismatch(replays, thread_id):
    result = verdict(replays[thread_id])
    assert result.mismatched == 0 and result.matches
    assert result.unverified == 0, [s.detail() for s in replays[thread_id] if s.unverified]
    assert result.verified > 0 and result.steps == len(replays[thread_id]) - 1


@pytest.mark.parametrize("thread_id", [FULL_THREAD, DELTA_THREAD])
def test_every_reducer_is_written_and_verified(replays, thread_id):
    written = {(f.field, f.reducer) for s in replays[thread_id] for f in s.fields if f.written and f.status == "confirmed"}
    reducers = {reducer for _, reducer in written}
    # in delta mode messages is a DeltaChannel named by its fold, merge_message_writes (add_messages' semantics)
    folds = {"add_messages": "merge_message_writes"} if thread_id == DELTA_THREAD else {}
    assert reducers >= {folds.get(r, r) for r in map(DEFAULT_SCHEMA.reducer_name, DEFAULT_SCHEMA.reducers)}
    assert ("messages", "add_messages") not in written or thread_id == FULL_THREAD
    assert len({DEFAULT_SCHEMA.reducer_name(name) for name in DEFAULT_SCHEMA.reducers}) == 9
    assert {"thread_data", "title", "uploaded_files", "summary_text", "background_tasks"} <= {f for f, _ in written}


def test_delta_thread_is_stored_as_deltas(store):
    rows = store.timeline(DELTA_THREAD)
    assert all(r.metadata.get(MODE_KEY) == "delta" for r in rows)
    rebuilt = [r for r in rows if "messages" in store.state(DELTA_THREAD, r.checkpoint_id).rebuilt_channels]
    assert 0 < len(rebuilt) < len(rows)  # snapshots every few updates, rebuilt from writes in between


def test_the_store_exercises_the_reducers_branches(store):
    states = [store.state(FULL_THREAD, r.checkpoint_id) for r in reversed(store.timeline(FULL_THREAD))]
    newest = states[-1].values
    assert len(newest["delegations"]) == 50 and len(newest["skill_context"]) == 8
    assert all(set(s) == {"name", "path", "description", "loaded_at"} for s in newest["skill_context"])
    assert {s["description"] for s in newest["skill_context"]} == {"reads files well"}
    assert newest["promoted"] == {"catalog_hash": "cat-2", "names": ["sql"]}
    ledgers = [{d["id"]: d for d in s.values.get("delegations") or []} for s in states]
    finished = next(ledger for ledger in ledgers if ledger.get("d00", {}).get("status") == "completed")
    assert finished["d00"]["created_at"].startswith("2026-08-01") and finished["d00"]["run_id"] == "run-d00"
    assert finished["d03"]["status"] == "timed_out"
    stale_step = ledgers.index(finished)
    assert all(ledger["d00"]["status"] == "completed" for ledger in ledgers[stale_step:] if "d00" in ledger)
    assert any(s.values.get("todos") == [] for s in states)


def test_update_state_steps_with_overwrite_are_verified(replays):
    compaction = replays[FULL_THREAD][-1]
    assert compaction.source == "update" and compaction.status == "match"
    wrote = {f.field: f for f in compaction.fields if f.written}
    assert set(wrote) == {"messages", "todos", "summary_text"} and all(f.status == "confirmed" for f in wrote.values())
    branch = replays[BRANCH_THREAD]
    assert [s.status for s in branch] == ["first", "match"]
    assert sum(f.written for f in branch[1].fields) >= 9


# -- altered copies --------------------------------------------------------------




def _promoted_before_catalog_change(store) -> str:
    """A checkpoint whose own step replaces ``promoted`` wholesale (a new catalog), so only it can disagree."""
    for row in reversed(store.timeline(FULL_THREAD)):
        state = store.state(FULL_THREAD, row.checkpoint_id)
        current = (state.values.get("promoted") or {}).get("catalog_hash")
        if current and any(w.channel == "promoted" and w.value.get("catalog_hash") != current for w in state.writes):
            return row.checkpoint_id
    raise AssertionError("no catalog change in the test store")


def _last_loop_snapshot(store) -> str:
    """The newest delta-mode checkpoint a graph step stored a ``messages`` snapshot in.

    Later checkpoints rebuild ``messages`` from it, so they agree with it; the only
    later snapshot is the compaction's ``Overwrite``, which does not depend on it.
    (An earlier snapshot would also make the next snapshot disagree with the deltas
    folded over the altered one.)"""
    for row in store.timeline(DELTA_THREAD):  # newest first
        state = store.state(DELTA_THREAD, row.checkpoint_id)
        if row.source == "loop" and "messages" not in state.rebuilt_channels and len(state.values["messages"]) > 2:
            return row.checkpoint_id
    raise AssertionError("no snapshot in the delta thread")


@pytest.fixture(scope="module")
def altered(df_db, store, tmp_path_factory):
    copy = tmp_path_factory.mktemp("altered") / "altered.db"
    shutil.copyfile(df_db, copy)
    promoted_at = _promoted_before_catalog_change(store)
    snapshot_at = _last_loop_snapshot(store)

    def drop_a_name(values):
        values["promoted"]["names"] = values["promoted"]["names"][:-1]

    def edit_a_message(values):
        snapshot = values["messages"]
        messages = list(snapshot.value)
        messages[1] = messages[1].model_copy(update={"content": "edited after the fact"})
        values["messages"] = _DeltaSnapshot(messages)

    rewrite_checkpoint(copy, FULL_THREAD, drop_a_name, promoted_at)
    rewrite_checkpoint(copy, DELTA_THREAD, edit_a_message, snapshot_at)
    return copy, promoted_at, snapshot_at


def test_altered_copy_flags_exactly_the_altered_step_and_field(altered):
    db, promoted_at, snapshot_at = altered
    with open_store(str(db)) as opened:
        full = replay_thread(opened, FULL_THREAD)
        delta = replay_thread(opened, DELTA_THREAD)
    flagged = [s for s in full if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [promoted_at]
    assert [(f.field, f.reducer) for f in flagged[0].mismatches] == [("promoted", "merge_promoted")]
    assert "promoted.names" in flagged[0].mismatches[0].first_difference
    flagged = [s for s in delta if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [snapshot_at]
    assert [(f.field, f.reducer_label) for f in flagged[0].mismatches] == \
        [("messages", "merge_message_writes (DeltaChannel)")]
    assert "edited after the fact" in flagged[0].mismatches[0].first_difference
    assert verdict(full).mismatched == 1 and verdict(delta).mismatched == 1


def test_replay_command_on_the_deerflow_store(df_db, altered, capsys):
    assert main(["replay", "--db", str(df_db), DELTA_THREAD]) == 0
    out = capsys.readouterr().out
    assert "0 unverified, 0 mismatched" in out and "schema DeerFlow ThreadState" in out
    db, promoted_at, _ = altered
    assert main(["replay", "--db", str(db), FULL_THREAD]) == 1
    out = capsys.readouterr().out
    assert promoted_at in out and "1 mismatched" in out


# -- every field's reducer named ------------------------------------------------------

NINE = ("add_messages", "merge_sandbox", "merge_artifacts", "merge_todos", "merge_goal", "merge_viewed_images",
        "merge_promoted", "merge_delegations", "merge_skill_context")


def test_state_and_diff_commands_name_every_reducer(df_db, capsys):
    assert main(["state", "--db", str(df_db), FULL_THREAD, "--json"]) == 0

    reducers = json.loads(capsys.readouterr().out)["reducers"]
    assert set(reducers.values()) == {*NINE, "replace"}
    assert reducers["delegations"] == "merge_delegations" and reducers["skill_context"] == "merge_skill_context"
    assert main(["state", "--db", str(df_db), FULL_THREAD]) == 0
    table = capsys.readouterr().out
    for reducer in NINE:
        assert reducer in table
    assert main(["diff", "--db", str(df_db), FULL_THREAD, "--json"]) == 0
    fields = {f["field"]: f["reducer"] for f in json.loads(capsys.readouterr().out)["fields"]}
    assert {fields[name] for name in ("messages", "promoted", "goal", "sandbox")} == {
        "add_messages", "merge_promoted", "merge_goal", "merge_sandbox"}


def test_thread_page_names_every_reducer_and_counts_the_replay(df_db, monkeypatch):
    from ui_app import all_text, open_page

    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{df_db}")
    connection.settings.clear()
    try:
        at = open_page("thread", thread=FULL_THREAD, history="table")
        at.toggle(key=f"replay_marks_{FULL_THREAD}").set_value(True).run()  # the check reads every step
        assert not at.exception, at.exception
        text = all_text(at)
    finally:
        connection.settings.clear()
    for reducer in NINE:
        assert f"reducer {reducer}" in text
    assert "0 unverified, 0 mismatched" in text and "schema DeerFlow ThreadState" in text
    table = next(d.value for d in at.dataframe if "replay" in d.value.columns)
    assert all(m.startswith("✓") or m == "first checkpoint" for m in table["replay"])
