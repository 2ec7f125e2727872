"""A thread's profile chosen from what its checkpoint holds (channels, shapes of values, metadata markers),
with the store's other threads as context, and checked by its own replay: on stores written by LangGraph's own
graphs and savers, SQLite (``app-state.db``) and PostgreSQL (``tests/profile_stores.py``)."""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from altered_copies import rewrite_checkpoint
from profile_stores import (
    AGENT,
    ALIKE,
    BARE,
    DEEP,
    DEERFLOW_THREADS,
    DELTA,
    OUT,
    PUT,
    SUPERVISOR,
    SWARM,
    UP,
    UPDATED,
    ProfileStore,
    deerflow_graph,
    postgres_store,
    write_updated,
)

from inspector import profiles
from inspector.cli import main
from inspector.store import open_store

# DeerFlow's texts, advice, reducers and folders (the name-alike graph's own fields share DeerFlow's names)
DEERFLOW_WORDS = ("DeerFlow", "deerflow", "/mnt/user-data", "SummarizationMiddleware", "merge_", "image-context",
                  "data folder", "sandbox", "hidden")
BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def deerflow_store(request) -> ProfileStore:
    return request.getfixturevalue(f"deerflow_{request.param}")


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def run_json(capsys, *args: str) -> tuple[int, dict]:
    code, out = run(capsys, *args, "--json", "--quiet")
    return code, json.loads(out)


# -- evidence from the checkpoint itself ------------------------------------------------------


def test_deerflow_threads_whose_fields_have_no_writes_are_read_as_deerflow(deerflow_store):
    with open_store(deerflow_store.url) as store:
        chosen = {thread: profiles.reading_for(store, thread) for thread in DEERFLOW_THREADS}
    assert {thread: c.name for thread, c in chosen.items()} == dict.fromkeys(DEERFLOW_THREADS, "deerflow")
    assert not any(c.named for c in chosen.values())
    for thread in (*UPDATED, PUT):  # no write names thread_data or sandbox: their values, shaped as DeerFlow's, do
        assert "thread_data, sandbox, viewed_images, uploaded_files" in chosen[thread].reason, chosen[thread].reason
        assert "shaped as DeerFlow's" in chosen[thread].reason and chosen[thread].against == ()
    assert "metadata deerflow_checkpoint_channel_mode" in chosen[DELTA].reason


def test_the_update_state_threads_store_no_write_for_their_deerflow_fields(deerflow_store):
    """What the choice must do without: the writes table names none of the DeerFlow fields the state holds."""
    with open_store(deerflow_store.url) as store:
        rows = store.timeline_keys(UPDATED[0])
        written = {c for r in rows for c in r.write_channels}
        held = set(store.state(UPDATED[0]).values)
    assert {"thread_data", "sandbox", "viewed_images", "uploaded_files"} <= held
    assert not written & {"thread_data", "sandbox", "viewed_images", "uploaded_files"}


def test_a_graph_with_deerflows_names_and_other_types_is_not_deerflow(deerflow_store, capsys):
    with open_store(deerflow_store.url) as store:
        chosen = profiles.reading_for(store, ALIKE)
    assert chosen.name == "langgraph"
    assert "viewed_images is a list of str, not DeerFlow's map keyed by path" in chosen.reason
    assert "goal is a str, not DeerFlow's goal map" in chosen.reason
    assert "messages is a list of str, not DeerFlow's LangChain messages" in chosen.reason
    code, payload = run_json(capsys, "replay", "--db", deerflow_store.url, ALIKE)
    assert code == 0 and payload["verdict"]["mismatched"] == 0 and payload["doubt"] is None
    assert payload["profile"]["name"] == "langgraph" and "DeerFlow" not in payload["schema"]
    steps = [s for s in payload["steps"] if s["status"] != "first"]
    assert len(steps) == 11 and all(s["status"] in ("match", "unverified") for s in steps)
    for command in ("health", "sizes", "images", "artifacts", "state", "diff", "replay"):
        code, out = run(capsys, command, "--db", deerflow_store.url, ALIKE, "--quiet")
        said = [line for line in out.splitlines() if not line.startswith("Profile: ")]  # the reason names DeerFlow
        assert code in (0, 1) and said and not [w for w in DEERFLOW_WORDS if w in "\n".join(said)], (command, out)
    code, out = run(capsys, "state", "--db", deerflow_store.url, ALIKE)
    assert "hidden" not in out and "Profile: LangGraph" in out


def test_a_thread_with_no_evidence_of_its_own_is_read_as_the_stores_other_threads(deerflow_store):
    with open_store(deerflow_store.url) as store:
        chosen = profiles.reading_for(store, BARE)
        own = profiles.choose(profiles.thread_facts(store, BARE), named="")
    assert own.name == "langgraph"  # alone, nothing in it names an app
    assert chosen.name == "deerflow" and not chosen.named and chosen.context
    found = re.search(r"as (\d+) of this store's (\d+) newest threads", chosen.reason)
    assert found and (int(found[1]), int(found[2])) == (len(DEERFLOW_THREADS), len(DEERFLOW_THREADS) + 3), chosen.reason
    assert "holds messages, title" in chosen.reason and "nothing in it contradicts DeerFlow" in chosen.reason


def test_a_store_of_mixed_apps_reads_no_bare_thread_as_one_of_them(tmp_path):
    """Without a clear majority the store says nothing of a bare thread: it is read on the generic base, and
    the reason names the mix."""
    import sqlite3
    from contextlib import closing

    from langgraph.checkpoint.sqlite import SqliteSaver
    from profile_stores import write_bare

    from inspector.demo.langchain_agent import run_langchain_agent

    db = tmp_path / "mixed.db"
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        for thread in ("lc-1", "lc-2"):
            run_langchain_agent(saver, thread)
        app = deerflow_graph(saver)
        for thread in ("df-1", "df-2"):
            write_updated(app, tmp_path / "data", thread)
        write_bare(app)
    with open_store(str(db)) as store:
        chosen = profiles.reading_for(store, BARE)
        others = {t: profiles.reading_for(store, t).name for t in ("lc-1", "lc-2", "df-1", "df-2")}
    assert others == {"lc-1": "langchain-agent", "lc-2": "langchain-agent", "df-1": "deerflow", "df-2": "deerflow"}
    assert chosen.name == "langgraph" and "this store mixes apps" in chosen.reason, chosen.reason


# -- the store's mix shown in the thread list ---------------------------------------------------


EXPECTED = {**dict.fromkeys(DEERFLOW_THREADS, "deerflow"), BARE: "deerflow", ALIKE: "langgraph",
            AGENT: "langchain-agent"}


def test_threads_lists_each_threads_profile(deerflow_store, capsys):
    code, payload = run_json(capsys, "threads", "--db", deerflow_store.url)
    assert code == 0
    assert {t["thread_id"]: t["profile"]["name"] for t in payload["threads"]} == EXPECTED
    reasons = {t["thread_id"]: t["profile"]["reason"] for t in payload["threads"]}
    assert "as 6 of this store's 9 newest threads" in reasons[BARE]
    code, out = run(capsys, "threads", "--db", deerflow_store.url)
    assert out.splitlines()[0].split()[:3] == ["thread", "title", "profile"]
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.split()}
    assert "LangChain agent" in rows[AGENT] and "LangGraph" in rows[ALIKE] and "DeerFlow" in rows[UPDATED[0]]


def test_the_threads_page_shows_the_profile_column(deerflow_sqlite, app_on_store):
    from ui_app import open_page

    app_on_store(f"sqlite:///{deerflow_sqlite.url}")
    at = open_page("threads")
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert dict(zip(frame["thread"], frame["profile"])) == {
        t: {"deerflow": "DeerFlow", "langgraph": "LangGraph", "langchain-agent": "LangChain agent"}[p]
        for t, p in EXPECTED.items()}


@pytest.mark.postgres
def test_other_apps_threads_are_read_with_their_own_profiles_on_postgres(apps_postgres, capsys):
    code, payload = run_json(capsys, "threads", "--db", apps_postgres.url)
    assert code == 0
    assert {t["thread_id"]: t["profile"]["name"] for t in payload["threads"]} == {
        DEEP: "deepagents", SWARM: "swarm", SUPERVISOR: "langgraph", AGENT: "langchain-agent"}
    mix = next(t["profile"]["reason"] for t in payload["threads"] if t["thread_id"] == SUPERVISOR)
    assert "no app's profile matches the data" in mix


def test_a_supervisor_thread_is_read_on_the_generic_base(supervisor_db, swarm_db):
    with open_store(str(supervisor_db)) as store:
        assert profiles.reading_for(store, SUPERVISOR).name == "langgraph"
    with open_store(str(swarm_db)) as store:
        chosen = profiles.reading_for(store, SWARM)
    assert chosen.name == "swarm" and chosen.against == ()


# -- DeerFlow's views on threads written without writes -----------------------------------------


def test_every_deerflow_view_works_on_a_thread_written_by_update_state(deerflow_store, capsys, tmp_path):
    thread = UPDATED[1]
    data = ["--data-dir", str(deerflow_store.data_dir)]  # the operator names where the thread's folders are
    _, images = run_json(capsys, "images", "--db", deerflow_store.url, thread, *data)
    assert [(i["path"], i["format"], i["problems"]) for i in images["images"]] == [(f"{UP}/chart.png", "PNG", [])]
    _, artifacts = run_json(capsys, "artifacts", "--db", deerflow_store.url, thread, *data)
    assert [(a["path"], a["exists"]) for a in artifacts["artifacts"]] == [(f"{OUT}/report.md", True)]
    _, uploads = run_json(capsys, "uploads", "--db", deerflow_store.url, thread, *data)
    assert [(u["path"], u["exists"]) for u in uploads["uploads"]] == [(f"{UP}/sales.csv", True)]
    code, state = run_json(capsys, "state", "--db", deerflow_store.url, thread)
    assert code == 0 and state["profile"]["name"] == "deerflow" and state["reducers"]["todos"] == "merge_todos"
    assert [t["content"] for t in state["values"]["todos"]] == ["Load the sales", "Draw the chart"]
    with open_store(deerflow_store.url) as store, profiles.reading(store, thread):
        from inspector.ui import panels

        assert panels.field_views()["todos"] is panels.VIEWS["todo board"]
    out_zip = tmp_path / "bundle.zip"
    code, _ = run(capsys, "bundle", "--db", deerflow_store.url, thread, "--out", str(out_zip), *data)
    assert code == 0
    with zipfile.ZipFile(out_zip) as archive:
        files = sorted(n.split("user-data/")[1] for n in archive.namelist() if "user-data/" in n)
    assert files == ["outputs/report.md", "uploads/chart.png", "uploads/sales.csv"]


def _altered_title(values: dict) -> None:
    values["title"] = "Not what was written"


def test_replay_flags_a_value_altered_without_a_write_at_exactly_its_step_sqlite(deerflow_sqlite, tmp_path, capsys):
    db = tmp_path / "altered.db"
    shutil.copyfile(deerflow_sqlite.url, db)
    thread = UPDATED[2]
    with open_store(str(db)) as store:
        newest = sorted(r.checkpoint_id for r in store.timeline_keys(thread))[-1]  # wrote messages and goal only
    rewrite_checkpoint(db, thread, _altered_title, newest)
    code, payload = run_json(capsys, "replay", "--db", str(db), thread)
    bad = [(s["checkpoint_id"], f["field"]) for s in payload["steps"] for f in s["fields"] if f["status"] == "mismatch"]
    assert code == 1 and payload["doubt"] is None and payload["profile"]["name"] == "deerflow"
    assert bad == [(newest, "title")]


@pytest.mark.postgres
def test_replay_flags_a_value_altered_without_a_write_at_exactly_its_step_postgres(postgres_dsn, tmp_path, capsys):
    import psycopg

    thread = UPDATED[0]
    admin, readonly = postgres_store(postgres_dsn, "profile_altered",
                                     lambda saver: write_updated(deerflow_graph(saver), tmp_path / "data", thread))
    with psycopg.connect(admin, autocommit=True) as conn:
        newest = conn.execute("SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = %s", [thread]).fetchone()[0]
        conn.execute("UPDATE checkpoints SET checkpoint = jsonb_set(checkpoint, '{channel_values,title}', "
                     "'\"Not what was written\"') WHERE thread_id = %s AND checkpoint_id = %s", [thread, newest])
    code, payload = run_json(capsys, "replay", "--db", readonly, thread)
    bad = [(s["checkpoint_id"], f["field"]) for s in payload["steps"] for f in s["fields"] if f["status"] == "mismatch"]
    assert code == 1 and payload["profile"]["name"] == "deerflow" and bad == [(newest, "title")]


# -- the reading checks its own choice --------------------------------------------------------


@pytest.fixture(scope="module")
def misnamed(deerflow_sqlite, tmp_path_factory) -> Path:
    """The store copied to a file named ``deerflow.db``: its name is DeerFlow's evidence for every thread, the
    name-alike graph's too."""
    db = tmp_path_factory.mktemp("misnamed") / "deerflow.db"
    shutil.copyfile(deerflow_sqlite.url, db)
    return db


def test_a_profile_whose_reducers_refuse_the_data_is_doubted_before_the_data(misnamed, capsys):
    with open_store(str(misnamed)) as store:
        chosen = profiles.reading_for(store, ALIKE)
    assert chosen.name == "deerflow" and "; though " in chosen.reason and "viewed_images is a list of str" in chosen.reason
    code, payload = run_json(capsys, "replay", "--db", str(misnamed), ALIKE)
    doubt = payload["doubt"]
    assert code == 0 and payload["verdict"]["mismatched"] == 0 and payload["profile"]["name"] == "deerflow"
    assert doubt["profile"] == "deerflow" and doubt["mismatched_steps"] >= 2 and doubt["refused_writes"] >= 1
    assert doubt["generic_troubled_steps"] == 0 and "LangGraph" in payload["schema"]
    assert doubt["summary"].startswith("The profile may be wrong for this thread: DeerFlow's reducers disagree with")
    code, out = run(capsys, "replay", "--db", str(misnamed), ALIKE)
    assert code == 0 and "The profile may be wrong" in out and "0 mismatched" in out.splitlines()[-1]
    # the operator's word is not doubted: DeerFlow's reducers, and their mismatches, as asked
    code, payload = run_json(capsys, "replay", "--db", str(misnamed), ALIKE, "--profile", "deerflow")
    assert code == 1 and payload["doubt"] is None and payload["verdict"]["mismatched"] == doubt["mismatched_checks"]


def test_one_altered_value_under_a_fitting_profile_raises_no_doubt(misnamed, tmp_path, capsys):
    """A value altered in the middle of a short history: the step that holds it and the next one disagree with
    the store (it changed, then changed back, without a write), on 2 of 3 steps: still the data's fault."""
    db = tmp_path / "deerflow.db"
    shutil.copyfile(misnamed, db)
    with open_store(str(db)) as store:
        middle, after = sorted(r.checkpoint_id for r in store.timeline_keys(UPDATED[3]))[2:4]
    rewrite_checkpoint(db, UPDATED[3], _altered_title, middle)  # the todos update: no title write
    code, payload = run_json(capsys, "replay", "--db", str(db), UPDATED[3])
    bad = [(s["checkpoint_id"], f["field"]) for s in payload["steps"] for f in s["fields"] if f["status"] == "mismatch"]
    assert code == 1 and payload["doubt"] is None and bad == [(middle, "title"), (after, "title")]


def test_the_thread_page_says_the_profile_may_be_wrong(misnamed, app_on_store):
    from ui_app import all_text, open_page

    app_on_store(f"sqlite:///{misnamed}")
    at = open_page("thread", thread=ALIKE)
    assert not at.exception, at.exception
    at.toggle(key=f"replay_marks_{ALIKE}").set_value(True).run()
    assert not at.exception, at.exception
    text = all_text(at)
    assert "The profile may be wrong for this thread" in text and "replay does not match" not in text
    assert "0 mismatched" in text and "schema LangGraph (reducers unknown)" in text
    again = open_page("thread", thread=ALIKE, history="table")  # the check not asked: marks from the analysis cache
    assert not again.exception, again.exception
    table = next(d.value for d in again.dataframe if "replay" in d.value.columns)
    marks = [m for m in table["replay"] if m]
    assert marks and not [m for m in marks if "does not match" in m], marks


def test_the_name_alike_graph_altered_where_no_write_touched_it_is_flagged_at_that_step(deerflow_sqlite, tmp_path,
                                                                                        capsys):
    db = tmp_path / "alike.db"
    shutil.copyfile(deerflow_sqlite.url, db)
    with open_store(str(db)) as store:
        at = max(r.checkpoint_id for r in store.timeline_keys(ALIKE))  # "name" wrote title; nothing wrote goal

    def alter(values: dict) -> None:
        values["goal"] = "not the goal planned"

    rewrite_checkpoint(db, ALIKE, alter, at)
    _, payload = run_json(capsys, "replay", "--db", str(db), ALIKE)
    flagged = {(s["checkpoint_id"], f["field"]) for s in payload["steps"] for f in s["fields"]
               if f["status"] not in ("confirmed", "unverified")}
    assert payload["profile"]["name"] == "langgraph" and flagged == {(at, "goal")}


# -- shapes read from the stored bytes --------------------------------------------------------


def test_shapes_read_from_the_bytes_agree_with_the_decoded_values(deerflow_store, deerflow_main_db):
    """For every root checkpoint of the threads: the held channels are the decoded state's, and each value's kind
    (a LangChain message read from its type, not decoded) and size are the decoded value's."""
    from inspector.store.shapes import shape_of_value

    for url, threads in ((deerflow_store.url, [UPDATED[0], PUT, ALIKE, AGENT]), (str(deerflow_main_db), ["df-full"])):
        with open_store(url) as store:
            for thread in threads:
                keys = [(thread, "", r.checkpoint_id) for r in store.timeline_keys(thread) if r.checkpoint_ns == ""]
                found = store.checkpoint_shapes(keys)
                assert set(found) == set(keys)
                for state in store.iter_states(thread, ""):
                    held = found[(thread, "", state.checkpoint_id)]
                    stored = {k for k in state.values if not k.startswith(("__", "branch:"))}
                    assert set(held.shapes) == stored, (thread, set(held.shapes) ^ stored)
                    for name, shape in held.shapes.items():
                        if name not in state.values:
                            continue
                        decoded = shape_of_value(state.values[name])
                        assert shape.kind in (decoded.kind, "message" if decoded.kind == "map" else decoded.kind)
                        assert shape.size == decoded.size or shape.kind in ("str", "message", "bytes"), (name, shape)
                        if decoded.kind == "list" and decoded.items and decoded.items[0].kind == "map":
                            assert shape.items[0].kind in ("map", "message"), (name, shape)


def test_a_truncated_or_endless_blob_is_walked_within_its_bound():
    import msgpack

    from inspector.store.shape_walk import WALK_VALUES, BytesReader, checkpoint_shapes

    whole = msgpack.packb({"v": 4, "channel_values": {"big": list(range(WALK_VALUES + 10)), "after": {"a_path": "/x"}},
                           "channel_versions": {"big": 1, "after": 1}})
    found = checkpoint_shapes(BytesReader(whole))
    assert found.held == ("big",) and "not walked" in found.problem and found.shapes["big"].size == WALK_VALUES + 10
    small = msgpack.packb({"channel_values": {"a": [1, 2, 3], "b": {"sandbox_id": "x"}}, "channel_versions": {"a": 1}})
    cut = checkpoint_shapes(BytesReader(small[: len(small) - 12]))
    assert cut.problem and "a" in cut.held
    deep = b"\x91" * 100_000 + b"\x01"  # a list in a list ... 100,000 levels down: walked, never recursed into
    nested = b"\x82" + msgpack.packb("channel_values") + b"\x82" + msgpack.packb("deep") + deep + msgpack.packb("ok") \
        + msgpack.packb("x") + msgpack.packb("channel_versions") + msgpack.packb({})
    found = checkpoint_shapes(BytesReader(nested))
    assert found.held == ("deep", "ok") and found.shapes["ok"].kind == "str" and found.shapes["deep"].kind == "list"
    for claim in (b"\xdd\xff\xff\xff\xff" + b"\x01" * 10, b"\xc9\xff\xff\xff\xff\x05\x92\xa3abc"):  # 4 G items, bytes
        lying = b"\x81" + msgpack.packb("channel_values") + b"\x81" + msgpack.packb("liar") + claim
        found = checkpoint_shapes(BytesReader(lying))
        assert found.held == ("liar",) and found.problem == "the stored bytes end early", found
