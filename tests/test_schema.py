"""The state schema threads are read in: DeerFlow's ThreadState by default, the operator's own with
``--schema`` / ``INSPECTOR_SCHEMA``; drift between a thread and its schema."""

from __future__ import annotations

import json
import operator
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

import custom_schema
import pytest
from altered_copies import rewrite_checkpoint
from langgraph.channels import DeltaChannel
from langgraph.channels.ephemeral_value import EphemeralValue

from inspector import profiles
from inspector import schema as schemas
from inspector.cli import main
from inspector.diff import UNKNOWN_REDUCER, replay_thread, verdict
from inspector.schema.thread_state import ThreadState, merge_artifacts
from inspector.settings import load_settings, schema_flag
from inspector.state.drift import channels_seen, drift_lines, thread_drift
from inspector.store import open_store

SCHEMA_FILE = Path(custom_schema.__file__)


@pytest.fixture(scope="module")
def scored_db(tmp_path_factory):
    return custom_schema.write_store(tmp_path_factory.mktemp("scored") / "scored.db")


# -- reading a schema ------------------------------------------------------------


def test_default_schema_is_deerflows_thread_state():
    default = schemas.active()
    assert default is schemas.DEFAULT_SCHEMA and default.name == "DeerFlow ThreadState"
    assert default.reducer_name("delegations") == "merge_delegations"
    assert default.reducer_name("title") == schemas.REPLACE
    assert default.reducer_name("score") == schemas.UNKNOWN and not default.knows("score")
    assert default.starting_value("artifacts") == (True, []) and default.starting_value("todos") == (False, None)
    assert default.holds_messages("messages") and not default.holds_messages("artifacts")


def keep_max(a, b):
    return max(a or 0, b or 0)


class Notes(TypedDict):
    notes: Annotated[list[str], operator.add]
    best: Annotated[int, keep_max]
    status: str
    scratch: Annotated[str, EphemeralValue]
    log: Annotated[list, DeltaChannel(lambda state, writes: state + [w for batch in writes for w in batch])]


class Extended(ThreadState):
    score: Annotated[int, keep_max]


def test_a_class_is_read_as_langgraph_reads_it():
    read = schemas.schema_of(Notes)
    assert read.fields == ("notes", "best", "status", "scratch", "log")
    assert read.reducer_name("notes") == "add" and read.reducer_for("best") is keep_max
    assert read.reducer_name("status") == schemas.REPLACE
    assert read.reducer_name("scratch") == schemas.UNKNOWN and read.declares("scratch") and not read.knows("scratch")
    assert read.reducer_for("log")(["a"], ["b", "c"]) == ["a", "b", "c"]  # a DeltaChannel reducer, one write at a time
    assert read.starting_value("notes") == (True, []) and read.starting_value("best") == (True, 0)


def test_reducers_follow_a_schema_change():
    assert schemas.reducers_of(Extended)["score"] is keep_max
    assert schemas.reducers_of(Extended)["artifacts"] is merge_artifacts


@pytest.mark.parametrize("spec", ["custom_schema:ScoredState", f"{SCHEMA_FILE}:ScoredState", "custom_schema:graph"])
def test_load_schema_from_a_module_a_file_or_a_graph(spec):
    loaded = schemas.load_schema(spec)
    assert loaded.name == spec
    assert loaded.reducer_name("score") == "keep_max" and loaded.reducer_name("delegations") == "merge_delegations"


@pytest.mark.parametrize("spec, message", [
    ("no_such_module:State", "module 'no_such_module' is not installed in this Python"),
    ("custom_schema:Missing", "has no attribute 'Missing'"),
    ("custom_schema:keep_max", "not a state class or a LangGraph graph"),
    ("custom_schema", "expected module.path:Class"),
    ("/nowhere/state.py:State", "no Python file"),
])
def test_bad_schema_specs_are_one_line_errors(spec, message):
    with pytest.raises(schemas.SchemaError, match=message):
        schemas.load_schema(spec)


def test_schema_is_set_by_flag_or_setting_only():
    assert schema_flag(["--db", "x.db", "--schema", "pkg.mod:State"]) == "pkg.mod:State"
    assert schema_flag(["--db", "x.db"]) is None
    assert load_settings(secrets={}, environ={"INSPECTOR_SCHEMA": "pkg:State"}).schema == "pkg:State"
    assert load_settings(secrets={"inspector": {"schema": "a.py:S"}}, environ={}).schema == "a.py:S"


def test_using_restores_the_previous_schema():
    scored = schemas.load_schema("custom_schema:ScoredState")
    with schemas.using(scored):
        assert schemas.active() is scored
    assert schemas.active() is schemas.DEFAULT_SCHEMA


# -- replay in the schema's terms --------------------------------------------------


def test_without_the_schema_the_custom_field_is_unverified_and_replay_exits_0(scored_db, capsys):
    with open_store(str(scored_db)) as store:
        generic = replay_thread(store, custom_schema.THREAD)  # nothing in the data shows DeerFlow: no reducer known
        assert verdict(generic).unknown_reducer_fields == ("messages", "score") and verdict(generic).mismatched == 0
        profiles.name_profile("deerflow")  # the operator's word: DeerFlow's reducers, not the app's own
        steps = replay_thread(store, custom_schema.THREAD)
    score_checks = [f for s in steps for f in s.fields if f.field == "score" and f.written]
    assert score_checks and all(f.status == "unverified" and f.reason == UNKNOWN_REDUCER for f in score_checks)
    assert all(f.reducer == schemas.UNKNOWN for f in score_checks)
    assert verdict(steps).unknown_reducer_fields == ("score",) and verdict(steps).mismatched == 0
    assert main(["replay", "--db", str(scored_db), custom_schema.THREAD, "--profile", "deerflow"]) == 0
    assert "reducer unknown: score" in capsys.readouterr().out


@pytest.mark.parametrize("spec", ["custom_schema:ScoredState", f"{SCHEMA_FILE}:graph"])
def test_with_the_schema_the_custom_reducer_verifies_the_field(scored_db, spec, capsys):
    assert main(["replay", "--db", str(scored_db), custom_schema.THREAD, "--schema", spec]) == 0
    out = capsys.readouterr().out
    assert "0 unverified, 0 mismatched" in out and f"schema {spec}" in out
    with open_store(str(scored_db)) as store:
        steps = replay_thread(store, custom_schema.THREAD, schema=schemas.load_schema(spec))
    written = [f for s in steps for f in s.fields if f.field == "score" and f.written]
    assert written and all(f.status == "confirmed" and f.reducer == "keep_max" for f in written)


# -- an app folder in LangGraph's layout: the graph file imports a module beside it and one of its package -----

APP_FOLDER = Path(__file__).parent / "apps" / "folder_app"
APP_GRAPH = APP_FOLDER / "src" / "agent" / "graph.py"
APP_MODULES = ("fakemodel", "agent", "agent.state")
WRITE_APP_THREAD = """
import sqlite3, sys
from langgraph.checkpoint.sqlite import SqliteSaver
from graph import build
conn = sqlite3.connect(sys.argv[1], check_same_thread=False)
app = build(SqliteSaver(conn))
for turn in range(3):
    app.invoke({"log": []} if turn == 0 else None, {"configurable": {"thread_id": "folder-app"}})
conn.close()
"""


@pytest.fixture(scope="module")
def folder_app_db(tmp_path_factory):
    """A thread written by the app folder's graph, run from its own folder (as ``python graph.py`` would)."""
    import subprocess

    db = tmp_path_factory.mktemp("folder-app") / "app.db"
    src = APP_GRAPH.parent
    subprocess.run([sys.executable, "-c", WRITE_APP_THREAD, str(db)], cwd=src, check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": f"{src}:{src.parent}"})
    yield db
    for name in APP_MODULES:  # imported by the inspector during the tests: leave no trace for other tests
        sys.modules.pop(name, None)


def test_a_graph_file_that_imports_its_siblings_loads_as_langgraph_json_names_it(folder_app_db, capsys):
    assert json.loads((APP_FOLDER / "langgraph.json").read_text())["graphs"]["agent"] == "./src/agent/graph.py:graph"
    assert not any(name in sys.modules for name in APP_MODULES)  # found through the file's folders, not a cache
    path_before = list(sys.path)
    spec = f"{APP_GRAPH}:graph"
    assert main(["replay", "--db", str(folder_app_db), "folder-app", "--schema", spec]) == 0
    out = capsys.readouterr().out
    assert f"schema {spec}" in out and "0 unverified, 0 mismatched" in out
    assert sys.path == path_before  # the folders were on the path only while the file was imported
    loaded = schemas.load_schema(spec)
    assert loaded.reducer_name("best") == "longest" and loaded.fields == ("log", "best")
    with open_store(str(folder_app_db)) as store:
        steps = replay_thread(store, "folder-app", schema=loaded)
    written = [f for s in steps for f in s.fields if f.field == "best" and f.written]
    assert written and all(f.status == "confirmed" and f.reducer == "longest" for f in written)


def test_a_sibling_that_is_missing_is_still_refused_in_one_line(tmp_path, capsys, folder_app_db):
    app = tmp_path / "app"
    app.mkdir()
    (app / "graph.py").write_text("from not_beside_me import reply\n")
    started = time.perf_counter()
    assert main(["replay", "--db", str(folder_app_db), "folder-app", "--schema", f"{app / 'graph.py'}:graph"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "imports 'not_beside_me', not installed in this Python" in err
    assert time.perf_counter() - started < 5  # answered by the check, before any import
    (app / "not_beside_me.py").write_text("reply = 1\n")  # now beside it: the check and the import find it
    try:
        assert main(["replay", "--db", str(folder_app_db), "folder-app", "--schema", f"{app / 'graph.py'}:graph"]) == 2
        assert "has no attribute 'graph'" in capsys.readouterr().err  # imported; it only lacks the graph
    finally:
        sys.modules.pop("not_beside_me", None)


def test_state_and_diff_name_the_custom_reducer(scored_db, capsys):
    assert main(["state", "--db", str(scored_db), custom_schema.THREAD, "--schema", "custom_schema:ScoredState"]) == 0
    out = capsys.readouterr().out
    assert any(line.split()[:2] == ["score", "keep_max"] for line in out.splitlines())
    assert main(["state", "--db", str(scored_db), custom_schema.THREAD]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("score") and "unknown (not in the schema)" in line for line in out.splitlines())
    assert main(["diff", "--db", str(scored_db), custom_schema.THREAD, "--schema", "custom_schema:ScoredState"]) == 0
    assert "score (keep_max)" in capsys.readouterr().out


def test_a_bad_schema_flag_exits_2_with_one_line(scored_db, capsys):
    assert main(["replay", "--db", str(scored_db), custom_schema.THREAD, "--schema", "custom_schema:nothing"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no attribute 'nothing'" in err


def _alter_score(db: Path) -> str:
    """Lower the score stored in the newest checkpoint whose own step does not write it."""
    def lower(values):
        values["score"] = -1
    return rewrite_checkpoint(db, custom_schema.THREAD, lower)


def test_a_custom_field_altered_without_a_write_is_flagged_with_and_without_its_reducer(scored_db, tmp_path, capsys):
    db = tmp_path / "altered.db"
    shutil.copyfile(scored_db, db)
    altered = _alter_score(db)
    assert main(["replay", "--db", str(db), custom_schema.THREAD, "--schema", "custom_schema:ScoredState"]) == 1
    out = capsys.readouterr().out
    assert altered in out and "1 mismatched (1 of them changed without a write: score)" in out
    # reducer unknown: never a mismatch, but a value no task wrote must not change whatever the reducer
    assert main(["replay", "--db", str(db), custom_schema.THREAD]) == 1
    out = capsys.readouterr().out
    assert "0 mismatched, 1 changed without a write (score)" in out
    assert f"{altered}  mismatch" in out and "score: 12 -> -1 (changed without a write)" in out


# -- drift -------------------------------------------------------------------------


def test_drift_lists_unknown_channels_and_unwritten_fields(scored_db):
    with open_store(str(scored_db)) as store:
        rows = store.timeline(custom_schema.THREAD)
        head = store.state(custom_schema.THREAD)
    seen = channels_seen(rows, [head])
    assert {"messages", "score"} <= seen
    drift = thread_drift(rows, [head])
    assert drift.unknown_channels == ("score",)
    assert "messages" not in drift.unwritten_fields and "delegations" in drift.unwritten_fields
    assert "score" in drift_lines(drift)[0] and "--schema" in drift_lines(drift)[0]
    own = thread_drift(rows, [head], schema=schemas.load_schema("custom_schema:ScoredState"))
    assert own.unknown_channels == () and "score" not in own.unwritten_fields


def test_health_lists_schema_drift_without_flagging_it(scored_db, capsys):
    code = main(["health", "--db", str(scored_db), custom_schema.THREAD, "--json", "--profile", "deerflow"])
    import json

    payload = json.loads(capsys.readouterr().out)
    thread = payload["threads"][0]
    assert thread["schema_drift"]["unknown_channels"] == ["score"]
    assert "schema-drift" not in {f["code"] for f in thread["flags"]}
    assert code == (1 if thread["flags"] else 0)
    main(["health", "--db", str(scored_db), custom_schema.THREAD, "--profile", "deerflow"])
    assert "channels not in the schema (DeerFlow ThreadState): score" in capsys.readouterr().out
    main(["health", "--db", str(scored_db), custom_schema.THREAD])  # read as generic LangGraph: no schema, no drift
    assert "channels not in the schema" not in capsys.readouterr().out


# -- the dashboard ------------------------------------------------------------------


@pytest.fixture
def scored_app(scored_db, monkeypatch):
    from inspector.ui import connection, diff_view

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{scored_db}")
    connection.settings.clear()
    yield monkeypatch
    connection.settings.clear()
    diff_view._thread_replay.clear()


def test_dashboard_reads_the_operators_schema_from_the_environment(scored_app):
    from ui_app import all_text, open_page

    scored_app.setenv("INSPECTOR_SCHEMA", "custom_schema:ScoredState")
    at = open_page("thread", thread=custom_schema.THREAD)
    at.toggle(key=f"replay_marks_{custom_schema.THREAD}").set_value(True).run()  # the check reads every step
    assert not at.exception, at.exception
    text = all_text(at)
    assert "**`score`** · 1 B stored · reducer keep_max" in text
    assert "Schema: custom_schema:ScoredState" in text
    assert "0 unverified, 0 mismatched" in text and "channels not in the schema" not in text


def test_dashboard_reads_the_schema_flag(scored_app):
    from ui_app import all_text, open_page

    scored_app.setattr(sys, "argv", ["app.py", "--schema", f"{SCHEMA_FILE}:ScoredState"])
    at = open_page("thread", thread=custom_schema.THREAD)
    assert "reducer keep_max" in all_text(at)


def test_dashboard_without_the_schema_shows_drift_and_unverified_counts(scored_app):
    from ui_app import all_text, open_page

    scored_app.setenv("INSPECTOR_PROFILE", "deerflow")
    at = open_page("thread", thread=custom_schema.THREAD, history="table")  # the table carries the replay marks
    at.toggle(key=f"replay_marks_{custom_schema.THREAD}").set_value(True).run()
    assert not at.exception, at.exception
    text = all_text(at)
    assert "reducer unknown (not in the schema)" in text
    assert "channels not in the schema (DeerFlow ThreadState): score" in text
    assert "3 unverified (3 reducer unknown: score), 0 mismatched" in text
    table = next(d.value for d in at.dataframe if "replay" in d.value.columns)
    assert any("unverified (reducer unknown)" in mark for mark in table["replay"])


def test_a_schema_that_fails_to_load_is_reported_and_the_default_used(scored_app):
    from ui_app import open_page

    scored_app.setenv("INSPECTOR_SCHEMA", "custom_schema:nothing")
    at = open_page("thread", thread=custom_schema.THREAD)
    assert not at.exception, at.exception
    assert any("has no attribute 'nothing'" in e.value and "its profile's reducers" in e.value for e in at.sidebar.error)


def test_health_page_lists_threads_with_schema_drift(scored_app):
    from ui_app import all_text, open_page

    scored_app.setenv("INSPECTOR_PROFILE", "deerflow")
    at = open_page("health")
    assert not at.exception, at.exception
    assert "Schema drift" in [h.value for h in at.subheader]
    assert "channels not in the schema (DeerFlow ThreadState): score" in "\n".join(t.value for t in at.text)
    assert "Schema: each thread's profile" in all_text(at)
