"""App profiles: chosen by evidence or named, shown, and no app's reducers where the data does not show that app."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import operator_add_states as apps
import pytest
from altered_copies import rewrite_checkpoint

from inspector import profiles
from inspector.cli import main
from inspector.store import is_internal_channel, open_store

SPECS = {apps.DATACLASS_THREAD: "operator_add_states:DataclassState",
         apps.PYDANTIC_THREAD: "operator_add_states:PydanticState",
         apps.OVERWRITE_THREAD: "operator_add_states:overwrite_graph"}


@pytest.fixture(scope="module")
def apps_db(tmp_path_factory) -> Path:
    return apps.write_store(tmp_path_factory.mktemp("operator-add") / "apps.db")


def _replay(capsys, db: Path, thread: str, *flags: str) -> tuple[int, dict]:
    code = main(["replay", "--db", str(db), thread, "--json", "--quiet", *flags])
    return code, json.loads(capsys.readouterr().out)


def test_profiles_register_in_one_list_with_the_generic_base_last():
    names = [p.name for p in profiles.profiles()]
    assert names[-1] == profiles.BASE and "deerflow" in names
    assert len(names) == len(profiles.PROFILE_MODULES) == len(set(names))
    with pytest.raises(profiles.ProfileError, match="known profiles are"):
        profiles.name_profile("nope")


@pytest.mark.parametrize("thread", list(SPECS))
def test_operator_add_fields_named_like_deerflows_replay_without_a_mismatch(apps_db, thread, capsys):
    code, payload = _replay(capsys, apps_db, thread)
    assert code == 0 and payload["verdict"]["mismatched"] == 0
    assert payload["profile"]["name"] == "langgraph" and "DeerFlow" not in payload["schema"]
    unknown = set(payload["verdict"]["unknown_reducer_fields"])
    assert "messages" in unknown and unknown <= {"messages", "todos", "artifacts"}
    inferred = payload["verdict"]["inferred"]  # what the unknown reducers are consistent with: shown, not verified
    assert inferred and all(what.startswith("consistent with operator.add on all") for what in inferred.values())
    assert payload["verdict"]["verified"] < sum(len(s["fields"]) for s in payload["steps"])
    code, payload = _replay(capsys, apps_db, thread, "--schema", SPECS[thread])
    assert code == 0 and payload["verdict"]["mismatched"] == 0 and payload["verdict"]["unverified"] == 0


def _alter_newest_artifacts(db: Path) -> str:
    """Drop one path from the newest checkpoint's artifacts (the step that wrote them)."""
    def drop_last(values):
        values["artifacts"] = values["artifacts"][:-1]
    return rewrite_checkpoint(db, apps.DATACLASS_THREAD, drop_last)


def test_an_altered_copy_flags_exactly_the_altered_step_and_field_when_the_schema_is_known(apps_db, tmp_path, capsys):
    db = tmp_path / "altered.db"
    shutil.copyfile(apps_db, db)
    altered = _alter_newest_artifacts(db)
    code, payload = _replay(capsys, db, apps.DATACLASS_THREAD, "--schema", SPECS[apps.DATACLASS_THREAD])
    assert code == 1
    bad = [(s["checkpoint_id"], f["field"]) for s in payload["steps"] for f in s["fields"] if f["status"] == "mismatch"]
    assert bad == [(altered, "artifacts")]
    code, payload = _replay(capsys, db, apps.DATACLASS_THREAD)  # no schema, no app's profile: unknown, never wrong
    assert code == 0 and payload["verdict"]["mismatched"] == 0


def test_the_deerflow_profile_reads_deerflow_threads_and_says_why(demo_db):
    with open_store(str(demo_db)) as store:
        profiles.forget(store, "demo-branch")  # read afresh: a page run before in this process chose with other rows
        chosen = profiles.reading_for(store, "demo-branch")
        assert chosen.name == "deerflow" and not chosen.named
        assert "branch_parent_thread_id" in chosen.reason and "ThreadState channels" in chosen.reason
        with profiles.reading(store, "demo-branch") as inside:
            assert profiles.current() is inside
        assert profiles.current() is None


def test_a_store_named_deerflow_db_is_deerflows(apps_db, tmp_path):
    db = tmp_path / "deerflow.db"
    shutil.copyfile(apps_db, db)
    with open_store(str(db)) as store:
        chosen = profiles.reading_for(store, apps.DATACLASS_THREAD)
    assert chosen.name == "deerflow" and chosen.reason.startswith("DeerFlow: deerflow.db")


def test_the_operator_names_the_profile(apps_db, capsys):
    code, payload = _replay(capsys, apps_db, apps.DATACLASS_THREAD, "--profile", "deerflow")
    assert payload["profile"]["named"] and payload["profile"]["name"] == "deerflow"
    assert payload["schema"] == "DeerFlow ThreadState"
    assert main(["replay", "--db", str(apps_db), apps.DATACLASS_THREAD, "--profile", "nope"]) == 2
    assert "unknown profile 'nope'" in capsys.readouterr().err


def test_the_thread_page_says_which_profile_reads_it(apps_db, app_on_store):
    from ui_app import all_text, open_page

    app_on_store(f"sqlite:///{apps_db}")
    at = open_page("thread", thread=apps.DATACLASS_THREAD)
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: LangGraph: no app's profile matches the data" in text
    assert "reducer unknown" in text and "DeerFlow" not in text
    at.segmented_control(key="thread_panel").set_value("Size").run()
    assert not at.exception, at.exception
    assert not [w for w in DEERFLOW_WORDS if w in all_text(at)]


DEERFLOW_WORDS = ("DeerFlow", "/mnt/user-data", "viewed_images", "SummarizationMiddleware", "merge_artifacts",
                  "image-context", "data folder")


@pytest.mark.parametrize("thread", list(SPECS))
def test_no_deerflow_text_for_an_app_that_is_not_deerflow(apps_db, thread, capsys):
    for flags in ((), ("--schema", SPECS[thread])):  # with and without the app's own schema
        for command in ("health", "sizes", "images", "artifacts", "state", "diff", "replay"):
            code = main([command, "--db", str(apps_db), thread, "--quiet", *flags])
            out = capsys.readouterr().out
            assert code in (0, 1) and out and not [w for w in DEERFLOW_WORDS if w in out], (command, flags, out)


@pytest.mark.parametrize("thread", list(SPECS))
def test_every_channel_of_an_operator_add_state_is_counted(apps_db, thread, capsys):
    """Every field the thread stored or wrote has its bytes in ``sizes``, with and without the app's schema."""
    with open_store(str(apps_db)) as store:
        rows = store.timeline(thread)
        seen = {c for r in rows for c in r.write_channels if not is_internal_channel(c)}
        seen |= set(store.state(thread, rows[0].checkpoint_id).values)
    assert {"messages"} <= seen
    for flags in ((), ("--schema", SPECS[thread])):
        main(["sizes", "--db", str(apps_db), thread, "--json", "--quiet", *flags])
        fields = {f["field"]: f for f in json.loads(capsys.readouterr().out)["fields"] if not f["internal"]}
        assert seen <= set(fields), (flags, seen - set(fields))
        assert all(fields[name]["stored_bytes"] + fields[name]["written_bytes"] > 0 for name in seen), flags


def test_diff_says_what_the_reducer_did(apps_db, capsys):
    main(["diff", "--db", str(apps_db), apps.DATACLASS_THREAD, "--json"])
    artifacts = next(f for f in json.loads(capsys.readouterr().out)["fields"] if f["field"] == "artifacts")
    assert [c["summary"] for c in artifacts["changes"]] == ["added again: /out/report.md"]
    assert artifacts["note"] is None  # nothing was dropped: operator.add keeps the repeat
    with open_store(str(apps_db)) as store:
        rows = [r for r in store.timeline(apps.OVERWRITE_THREAD) if r.parent_checkpoint_id]
    outputs = []
    for row in rows:
        main(["diff", "--db", str(apps_db), apps.OVERWRITE_THREAD, "--from", row.parent_checkpoint_id,
              "--to", row.checkpoint_id, "--json"])
        outputs.append(json.loads(capsys.readouterr().out))
    overwritten = [f for d in outputs for f in d["fields"] if any(c["kind"] == "overwritten" for c in f["changes"])]
    assert len(overwritten) == 2 and all(len(f["changes"]) == 1 for f in overwritten)
    assert {f["changes"][0]["summary"] for f in overwritten} == {"overwritten (2 items → 1 item)",
                                                                  "overwritten (4 items → 1 item)"}


# -- every channel's bytes counted ----------------------------------------------------


def test_delta_channels_of_any_app_are_counted(deep_agent_db, capsys):
    main(["sizes", "--db", str(deep_agent_db), "deep-report", "--json", "--quiet"])
    report = json.loads(capsys.readouterr().out)
    fields = {f["field"]: f for f in report["fields"] if not f["internal"]}
    assert {"messages", "files", "todos"} <= set(fields)
    assert fields["files"]["written_bytes"] > len("SqliteSaver") and fields["files"]["rebuilt"]
    assert fields["messages"]["rebuilt"] and fields["messages"]["newest_bytes"] > 1000
    assert report["last_total_bytes"] > report["first_total_bytes"]  # the conversation grew: not "209 B -> 99 B"
    main(["sizes", "--db", str(deep_agent_db), "deep-report", "--quiet"])
    assert "delta channel(s), stored as writes" in capsys.readouterr().out


def test_langgraphs_own_channels_are_never_the_field_to_trim():
    from inspector.settings import Settings
    from inspector.sizes.accounting import thread_sizes
    from inspector.sizes.health import oversize_flags
    from inspector.store import CheckpointSizes
    from inspector.store.measure import ChannelSize

    def row(cid, parent, channels, written=None):
        return CheckpointSizes("t", "", cid, parent, None, None, 100, sum((written or {}).values()),
                               {name: ChannelSize(n, f"{name}{n}") for name, n in channels.items()},
                               written=written or {})

    rows = [row("1", None, {"__pregel_tasks": 400_000}, {"notes": 300_000}),
            row("2", "1", {"__pregel_tasks": 1}, {"notes": 300_000}), row("3", "2", {"__pregel_tasks": 1})]
    sizes = thread_sizes("t", rows)
    assert sizes.field("notes").rebuilt and sizes.field("notes").newest_bytes == 600_000
    flags = {f.field: f for f in oversize_flags(sizes, Settings(oversize_field_bytes=256_000))}
    assert "LangGraph's own channel" in flags["__pregel_tasks"].why and "Send" in flags["__pregel_tasks"].why
    assert "no field to trim" in flags["__pregel_tasks"].fix
    assert "delta channel" in flags["notes"].why


# -- DeerFlow's three misreads ----------------------------------------------------------


def test_a_branch_without_a_folder_of_its_own_reads_its_artifacts_from_its_parents(demo_dir, tmp_path):
    from inspector.profiles.deerflow.files.artifacts import list_artifacts
    from inspector.profiles.deerflow.files.user_data import thread_folders

    parent = "demo-deerflow-current"
    shutil.copytree(demo_dir / "threads" / parent, tmp_path / "threads" / parent)  # the branch's folder never made
    metadata = {"branch_parent_thread_id": parent, "source": "branch"}
    found, problems = thread_folders("demo-branch", None, metadata, tmp_path)
    assert found is not None and problems == [] and "has no folder of its own" in found.origin
    [artifact] = list_artifacts(["/mnt/user-data/outputs/plan.md"], found)
    assert artifact.exists and artifact.problems == []
    assert artifact.physical_path.startswith(str(tmp_path / "threads" / parent))
    alone, problems = thread_folders("demo-branch", None, {}, tmp_path)  # no branch record: not found, as before
    assert alone is None and "not found on this machine" in problems[0]


def test_a_delta_channel_is_named_by_its_channel_and_fold(demo_db, capsys):
    main(["state", "--db", str(demo_db), "demo-delta"])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("messages "))
    assert "merge_message_writes (DeltaChannel, rebuilt from writes)" in line and "add_messages" not in line


def test_diff_and_replay_name_a_delta_channel_by_its_channel_and_fold(demo_db, capsys):
    main(["replay", "--db", str(demo_db), "demo-delta", "--json", "--quiet"])
    checks = [f for step in json.loads(capsys.readouterr().out)["steps"] for f in step["fields"]]
    messages = {(f["reducer"], f["channel"]) for f in checks if f["field"] == "messages"}
    assert messages == {("merge_message_writes", "DeltaChannel")}
    assert {f["channel"] for f in checks if f["field"] != "messages"} == {""}
    main(["diff", "--db", str(demo_db), "demo-delta"])
    out = capsys.readouterr().out
    assert "messages (merge_message_writes (DeltaChannel))" in out and "add_messages" not in out
    main(["diff", "--db", str(demo_db), "demo-vision"])  # full mode: LangGraph's reducer, no channel kind
    assert "(add_messages)" in capsys.readouterr().out


def test_field_views_are_the_ones_the_threads_profile_names(demo_db):
    """Every view a profile names is declared by the UI; DeerFlow's views apply only on its threads."""
    from inspector.ui import panels

    assert {view for p in profiles.profiles() for view in p.field_views.values()} <= set(panels.VIEWS)
    with open_store(str(demo_db)) as store:
        with profiles.reading(store, "demo-research"):
            deerflow = panels.field_views()
        with profiles.reading(store, "demo-research", named="langgraph"):
            generic = panels.field_views()
        with profiles.reading(store, "demo-langchain-agent"):
            agent = panels.field_views()
    assert deerflow["thread_data"] is panels.VIEWS["user-data folders"] and deerflow["title"] is panels.VIEWS["heading"]
    assert set(generic) == {"messages"} and generic["messages"] is panels.VIEWS["conversation"]
    assert set(agent) == {"messages", "todos"} and agent["todos"] is panels.VIEWS["todo board"]


def test_the_channels_of_a_thread_without_writes_are_read_once_and_kept_in_the_analysis_cache(tmp_path):
    import sqlite3

    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.cache import AnalysisCache

    db = tmp_path / "put.db"
    with sqlite3.connect(db, check_same_thread=False) as conn:  # put straight into the saver: no writes stored
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": ["hello"], "todos": [], "title": "put"}
        checkpoint["channel_versions"] = {"messages": 1, "todos": 1, "title": 1}
        SqliteSaver(conn).put({"configurable": {"thread_id": "put", "checkpoint_ns": ""}}, checkpoint,
                              {"source": "update", "step": 0}, {"messages": 1, "todos": 1, "title": 1})
    cache = AnalysisCache(tmp_path / "cache")
    store = open_store(str(db))
    rows = store.timeline("put")  # full rows: their metadata needs no second read
    first = profiles.thread_facts(store, "put", rows, cache)
    assert {"messages", "todos", "title"} <= first.channels
    store.close()
    db.rename(tmp_path / "elsewhere.db")  # the store cannot be read again: the channels come from the cache alone
    assert profiles.thread_facts(store, "put", rows, cache).channels == first.channels
    assert profiles.thread_facts(store, "put", rows).channels == frozenset()  # without the cache: unreadable
    cache.close()


def test_every_profile_hook_is_documented_on_the_profile_type():
    """Each field of ``Profile`` (a hook or piece an app may fill) is named in its docstring, as datasette
    declares each hook once with its words."""
    import dataclasses

    from inspector.profiles import Profile

    assert [f.name for f in dataclasses.fields(Profile) if f"``{f.name}" not in Profile.__doc__] == []
