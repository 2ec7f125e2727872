"""Threads written by other apps' real packages (LangChain's ``create_agent`` with middleware, deepagents,
langgraph-swarm, langgraph-supervisor), driven by a scripted chat model: replay agrees with every step, with
and without the app's own schema, and an altered copy flags exactly the altered step and field once the
schema (or the app's profile) is known."""

from __future__ import annotations

import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import pytest
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from inspector import schema as schemas
from inspector.cli import main
from inspector.diff import UNKNOWN_REDUCER, replay_thread
from inspector.store import open_store

# (fixture, thread, the app's graph as an operator names it with --schema)
APPS = {
    "langchain-travel": ("langchain_agent_db", "inspector.demo.langchain_agent:graph"),
    "langchain-travel-answered": ("langchain_agent_db", "inspector.demo.langchain_agent:graph"),
    "deep-report": ("deep_agent_db", "apps.deep_agent:graph"),
    "swarm-trip": ("swarm_db", "apps.swarm_agents:graph"),
    "supervisor-trip": ("supervisor_db", "apps.supervisor_agents:graph"),
}
# (thread, channel altered in one stored write, which of that channel's root writes, the reducer named)
ALTERATIONS = [
    ("langchain-travel", "todos", 1, "replace"),
    ("deep-report", "todos", 0, "replace"),
    ("swarm-trip", "active_agent", 0, "replace"),
    ("supervisor-trip", "messages", 1, "add_messages"),
]


def app_store(request, thread_id: str) -> Path:
    return request.getfixturevalue(APPS[thread_id][0])


@pytest.fixture(scope="module")
def app_schemas():
    return {spec: schemas.load_schema(spec) for _, spec in APPS.values()}


@pytest.mark.parametrize("thread_id", sorted(APPS))
def test_every_step_replays_without_a_mismatch_with_and_without_the_apps_schema(request, app_schemas, thread_id):
    db = app_store(request, thread_id)
    with open_store(str(db)) as store:
        namespaces = sorted({r.checkpoint_ns for r in store.timeline(thread_id)})
        for schema in (None, app_schemas[APPS[thread_id][1]]):
            for ns in namespaces:
                steps = replay_thread(store, thread_id, ns, schema=schema)
                assert [s.checkpoint_id for s in steps if s.status == "mismatch"] == [], (ns, schema)
                if schema is not None:  # without it the generic profile knows no reducer: written fields unverified
                    assert any(f.status == "confirmed" and f.written for s in steps for f in s.fields)
        root = replay_thread(store, thread_id, schema=app_schemas[APPS[thread_id][1]])
    # with the app's own schema every field of the root graph has a known reducer
    assert [(s.step, f.field) for s in root for f in s.fields if f.reason == UNKNOWN_REDUCER] == []
    assert len(namespaces) > 1 or thread_id.startswith("langchain")  # subagents and swarm agents have their own


def test_the_apps_write_their_own_shapes(request):
    """What the packages store, as the readers of these threads rely on it."""
    with open_store(str(request.getfixturevalue("langchain_agent_db"))) as store:
        newest = store.state("langchain-travel", store.timeline("langchain-travel")[0].checkpoint_id)
        interrupt = next(w for w in newest.writes if w.channel == "__interrupt__")
        assert "review_configs" in repr(interrupt.value) and "action_requests" in repr(interrupt.value)
        assert [t["status"] for t in newest.values["todos"]] == ["completed", "completed", "in_progress"]
    with open_store(str(request.getfixturevalue("deep_agent_db"))) as store:
        newest = store.state("deep-report", store.timeline("deep-report")[0].checkpoint_id)
        task = next(m for m in newest.values["messages"] if m.get("type") == "tool" and m.get("name") == "task")
        assert task["status"] == "success" and "SqliteSaver" in task["content"]
        assert "/report.md" in newest.values["files"]
        assert any(r.checkpoint_ns.startswith("tools:") for r in store.timeline("deep-report"))  # the subagent


# -- an altered copy ------------------------------------------------------------------


def alter_write(db: Path, thread_id: str, channel: str, index: int) -> str:
    """Change the ``index``-th root write to ``channel`` through LangGraph's serializer; the checkpoint it
    belongs to (the child of the one it is stored against)."""
    serde = JsonPlusSerializer()
    conn = sqlite3.connect(db)
    try:
        rows = conn.execute(
            "SELECT checkpoint_id, task_id, idx, type, value FROM writes WHERE thread_id = ? AND checkpoint_ns = ''"
            " AND channel = ? ORDER BY checkpoint_id, task_id, idx", (thread_id, channel)).fetchall()
        checkpoint_id, task_id, idx, type_tag, blob = rows[index]
        value = serde.loads_typed((type_tag, blob))
        if isinstance(value, list) and hasattr(value[0], "model_copy"):  # a message: its text changed
            value = [value[0].model_copy(update={"content": "not what the agent wrote"}), *value[1:]]
        else:
            value = [{**value[0], "status": "blocked"}, *value[1:]] if isinstance(value, list) else f"{value}-altered"
        new_type, new_blob = serde.dumps_typed(value)
        conn.execute("UPDATE writes SET type = ?, value = ? WHERE thread_id = ? AND checkpoint_ns = ''"
                     " AND checkpoint_id = ? AND task_id = ? AND idx = ?",
                     (new_type, new_blob, thread_id, checkpoint_id, task_id, idx))
        conn.commit()
        (child,) = conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
                                " AND parent_checkpoint_id = ?", (thread_id, checkpoint_id)).fetchall()
    finally:
        conn.close()
    return child[0]


@pytest.mark.parametrize(("thread_id", "channel", "index", "reducer"), ALTERATIONS)
def test_an_altered_copy_flags_exactly_the_altered_step_and_field(request, app_schemas, tmp_path, thread_id,
                                                                  channel, index, reducer):
    copy = tmp_path / "altered.db"
    shutil.copyfile(app_store(request, thread_id), copy)
    altered_at = alter_write(copy, thread_id, channel, index)
    with open_store(str(copy)) as store:
        steps = replay_thread(store, thread_id, schema=app_schemas[APPS[thread_id][1]])
    flagged = [s for s in steps if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [altered_at]
    assert [(f.field, f.reducer) for f in flagged[0].mismatches] == [(channel, reducer)]


def test_replay_command_with_the_apps_schema(request, capsys):
    db = request.getfixturevalue("deep_agent_db")
    assert main(["replay", "--db", str(db), "--schema", "apps.deep_agent:graph", "deep-report"]) == 0
    out = capsys.readouterr().out
    assert "0 unverified, 0 mismatched" in out and "schema apps.deep_agent:graph" in out


# -- read with their own profiles ------------------------------------------------------

# langgraph-supervisor has no profile of its own: its threads are read on the generic base (every reducer
# unknown: unverified, never a mismatch) unless its schema is named
PROFILES = {"langchain-travel": "langchain-agent", "langchain-travel-answered": "langchain-agent",
            "deep-report": "deepagents", "swarm-trip": "swarm"}


@pytest.mark.parametrize("thread_id", sorted(PROFILES))
def test_each_thread_is_read_with_its_own_profile_chosen_by_evidence(request, thread_id):
    from inspector.profiles import reading_for

    with open_store(str(app_store(request, thread_id))) as store:
        chosen = reading_for(store, thread_id)
        assert chosen.name == PROFILES[thread_id]
        if thread_id != "swarm-trip":  # the package's own marker is named as the evidence
            assert "ls_integration" in chosen.reason
        steps = replay_thread(store, thread_id)
    unknown = {f.field for s in steps for f in s.fields if f.reason == UNKNOWN_REDUCER}
    assert [s.checkpoint_id for s in steps if s.status == "mismatch"] == []
    # an app's profile knows every field of its root graph
    assert chosen.is_app() and unknown == set()


@pytest.mark.parametrize(("thread_id", "channel", "index", "reducer"), [a for a in ALTERATIONS if a[0] in PROFILES])
def test_an_altered_copy_is_flagged_by_the_profile_without_a_schema(request, tmp_path, thread_id, channel, index,
                                                                    reducer):
    copy = tmp_path / "altered.db"
    shutil.copyfile(app_store(request, thread_id), copy)
    altered_at = alter_write(copy, thread_id, channel, index)
    with open_store(str(copy)) as store:
        steps = replay_thread(store, thread_id)
    flagged = [s for s in steps if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [altered_at]
    assert [(f.field, f.reducer) for f in flagged[0].mismatches] == [(channel, reducer)]


def test_the_human_in_the_loop_request_is_the_pending_question(request, capsys):
    db = request.getfixturevalue("langchain_agent_db")
    assert main(["state", "--db", str(db), "langchain-travel"]) == 0
    out = capsys.readouterr().out
    assert "Profile: LangChain agent" in out
    assert "waiting for an answer: Review the call book_hotel(hotel='Rio Tejo', nights=3) (approve, reject)" in out
    assert "todos" in out and "merge_todos" not in out  # LangChain's todo list replaces
    assert main(["state", "--db", str(db), "langchain-travel-answered"]) == 0
    assert "waiting for an answer" not in capsys.readouterr().out
    assert main(["state", "--db", str(db), "langchain-travel", "--json"]) == 0
    (question,) = json.loads(capsys.readouterr().out)["pending_questions"]
    assert question["question"] == "Review the call book_hotel(hotel='Rio Tejo', nights=3) (approve, reject)"


def test_a_huge_or_wide_gated_call_makes_a_one_line_question_naming_what_it_cut():
    from inspector.profiles.langchain_agent import ARGUMENTS, hitl_question

    nested: list = []
    for _ in range(50):
        nested = [nested]
    wide = {f"arg{i}": i for i in range(5_000)}
    huge = {"body": "x" * 2_000_000, "deep": nested}
    question = hitl_question({"action_requests": [{"name": "send", "args": huge}, {"name": "bulk", "args": wide}],
                              "review_configs": [{"action_name": "send", "allowed_decisions": ["approve"]}]})
    first, second = question.split("\n")
    assert first.startswith("Review the call send(body='xxx") and first.endswith(") (approve)") and len(first) < 400
    assert "[[[...]]]" in first  # the deep value cut at its third level
    assert second.startswith("Review the call bulk(arg0=0, arg1=1") and second.endswith(f"… {5_000 - ARGUMENTS:,} more)")


def test_a_deepagents_task_result_shows_the_subagents_own_status(request):
    from inspector.profiles import reading
    from inspector.state.conversation import conversation

    with open_store(str(request.getfixturevalue("deep_agent_db"))) as store, reading(store, "deep-report"):
        newest = store.state("deep-report", store.timeline("deep-report")[0].checkpoint_id)
        results = [t.subagent for t in conversation(newest.values["messages"]) if t.subagent]
    assert [(r.status, r.pill) for r in results] == [("success", "completed")]
    assert "no status" not in results[0].summary


@pytest.mark.parametrize("thread_id", sorted(APPS))
@pytest.mark.parametrize("command", ["replay", "health", "state", "timeline", "sizes", "images"])
def test_no_deerflow_text_for_other_apps(request, capsys, thread_id, command):
    db = app_store(request, thread_id)
    assert main([command, "--db", str(db), thread_id]) in (0, 1)
    out = capsys.readouterr().out.lower()
    assert out and "deerflow" not in out and "user-data" not in out and "merge_" not in out


def test_a_deepagents_thread_is_told_its_files_are_in_its_state(request, capsys, tmp_path):
    """deepagents keeps files in its state's ``files`` channel: the media commands and a bundle say so, in its
    terms, instead of "the profile names no files"."""
    db = request.getfixturevalue("deep_agent_db")
    for command in (["images"], ["artifacts"], ["bundle", "--out", str(tmp_path / "deep.zip")]):
        assert main([*command, "--db", str(db), "deep-report"]) == 0, command
        out = capsys.readouterr().out
        assert "keeps a thread's files in its state (the files channel" in out, (command, out)
        assert "names no files" not in out
    manifest = json.loads(zipfile.ZipFile(tmp_path / "deep.zip").read("manifest.json"))
    assert "deepagents keeps a thread's files in its state" in manifest["user_data"]["files_note"]


def test_langgraphs_own_channels_are_never_advised_to_be_trimmed(request, capsys, monkeypatch):
    """Health on a thread whose large channels include LangGraph's own: what makes each large, and a fix that is
    not trimming a field the app does not have."""
    monkeypatch.setenv("INSPECTOR_OVERSIZE_FIELD_BYTES", "100")
    assert main(["health", "--db", str(request.getfixturevalue("deep_agent_db")), "deep-report", "--json"]) == 1
    flags = {f["field"]: f for f in json.loads(capsys.readouterr().out)["threads"][0]["flags"]
             if f["code"] == "oversized-field"}
    internal = {name: flag for name, flag in flags.items() if name.startswith("__")}
    assert {"__start__", "__pregel_tasks"} <= set(internal), sorted(flags)
    for flag in internal.values():
        assert "LangGraph's own channel" in flag["why"] and "trim it" not in flag["fix"], flag
        assert flag["fix"].endswith("there is no field to trim")
    assert "smaller input" in internal["__start__"]["fix"] and "Send argument" in internal["__pregel_tasks"]["fix"]
    assert "trim it with its reducer" in flags["messages"]["fix"]  # the app's own field: trimming is the advice


STORE_COMMANDS = [["sizes"], ["health"], ["health", "--json"], ["delta-what-if"], ["growth"], ["health", "--store"],
                  ["metrics", "--once", "--json"]]


@pytest.mark.parametrize("fixture", sorted({f for f, _ in APPS.values()}))
def test_no_deerflow_text_for_other_apps_store_wide(request, capsys, fixture):
    db = request.getfixturevalue(fixture)
    for command in STORE_COMMANDS:
        assert main([*command, "--db", str(db), "--quiet"]) in (0, 1), command
        out = capsys.readouterr().out.lower()
        assert out and "deerflow" not in out and "user-data" not in out and "viewed_images" not in out, command


def test_store_wide_field_table_leaves_langgraphs_own_channels_out(swarm_db, capsys):
    assert main(["sizes", "--db", str(swarm_db), "--quiet"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("field  "):out.index("LangGraph's own channels")]
    assert "messages" in table and "active_agent" in table
    assert "__start__" not in table and "branch:to:" not in table and "__pregel_tasks" not in table
    assert main(["sizes", "--db", str(swarm_db), "--quiet", "--json"]) == 0
    assert "__start__" in json.loads(capsys.readouterr().out)["fields"]  # JSON keeps every channel


def test_deerflow_store_wide_what_ifs_still_name_deerflow(deerflow_main_db, capsys):
    assert main(["sizes", "--db", str(deerflow_main_db), "--quiet"]) == 0
    assert "viewed_images copied into later checkpoints" in capsys.readouterr().out
    main(["health", "--db", str(deerflow_main_db), "--quiet", "--json"])
    assert json.loads(capsys.readouterr().out)["schema"] == "DeerFlow ThreadState"


def test_a_compiled_graphs_subgraphs_read_their_own_namespaces_in_their_own_state(tmp_path):
    from apps.nested_graph import THREAD, write_store

    db = write_store(tmp_path / "nested.db")
    named = schemas.load_schema("apps.nested_graph:graph")
    assert list(named.subgraphs) == ["research"] and "notes" in named.subgraphs["research"].fields
    with open_store(str(db)) as store:
        namespaces = sorted({r.checkpoint_ns for r in store.timeline(THREAD)} - {""})
        assert namespaces and all(ns.startswith("research:") for ns in namespaces)
        for ns in namespaces:
            steps = replay_thread(store, THREAD, ns, schema=named)
            notes = [f for s in steps for f in s.fields if f.field == "notes" and f.written]
            assert notes and all(f.status == "confirmed" and f.reducer == "add" for f in notes)
            # the parent's state alone does not know the subgraph's field
            alone = replay_thread(store, THREAD, ns, schema=schemas.schema_of(named_state()))
            assert {f.reason for s in alone for f in s.fields if f.field == "notes" and f.written} == {UNKNOWN_REDUCER}


def named_state():
    from apps.nested_graph import ParentState

    return ParentState


@pytest.mark.parametrize("thread_id", sorted(APPS))
def test_every_channel_s_bytes_are_counted(request, thread_id):
    """Every field the root graph stored or wrote has its bytes in the size table, delta channels (deepagents'
    ``messages`` and ``files``) by their writes."""
    from inspector.sizes.accounting import measure_thread
    from inspector.store import is_internal_channel

    with open_store(str(app_store(request, thread_id))) as store:
        seen = set()
        for row in store.timeline(thread_id):
            if not row.checkpoint_ns:
                seen |= {c for c in row.write_channels if not is_internal_channel(c)}
        newest = store.state(thread_id, store.timeline(thread_id)[0].checkpoint_id)
        seen |= set(newest.values)
        sizes = measure_thread(store, thread_id)
    counted = {f.field: f.stored_bytes + f.written_bytes for f in sizes.fields if not f.internal}
    assert seen and seen <= set(counted), seen - set(counted)
    assert all(counted[name] > 0 for name in seen), counted
