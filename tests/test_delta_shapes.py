"""Every shape LangGraph's DeltaChannel has stored, read and classified per checkpoint: today's snapshots, full rows
from before the channel was a DeltaChannel, LangGraph 1.2 alpha's sentinel (which the installed LangGraph reads as
empty), a chain whose seed was deleted (never shown as empty), and a replay far past the snapshot frequency; the
retention preview's delta break is the chain a policy would cut."""

from __future__ import annotations

import shutil
import sqlite3

import pytest
from delta_modes_store import build_graph
from delta_shapes_store import CUT, FREQUENCY, MIGRATED, RAISED, SENTINEL, SENTINEL_MESSAGES, SNAPSHOTS, write_shapes
from test_retention_sqlite import apply, cli

from inspector.sizes.delta_chains import delta_chains
from inspector.state.fields import field_summary
from inspector.store import open_store
from inspector.store.decode import Opaque, decode_typed
from inspector.store.delta import NOT_REBUILT


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    return write_shapes(tmp_path_factory.mktemp("delta-shapes") / "shapes.db")


def chains(db, thread_id):
    with open_store(str(db)) as store:
        return delta_chains(store, thread_id)


def forms(report) -> list[tuple[int, str]]:
    return [(r.step, r.form) for r in report.rows]


def test_the_alpha_sentinel_decodes_as_a_marker_not_as_a_value():
    import ormsgpack

    assert decode_typed("msgpack", ormsgpack.packb(ormsgpack.Ext(8, b""))).value == {"__type__": "langgraph.DeltaSentinel"}


def test_todays_snapshots_and_the_rebuilds_between_them(shapes):
    report = chains(shapes, SNAPSHOTS)
    snapshots = [step for step, form in forms(report) if form == "snapshot"]
    assert report.channels == ["messages"] and report.frequencies["messages"] == FREQUENCY
    assert snapshots == [2, 6, 10, 13] and report.lints == []
    assert {form for _, form in forms(report)} == {"snapshot", "rebuilt"}
    rebuilt = [r for r in report.rows if r.form == "rebuilt"]
    assert all(1 <= r.replayed <= FREQUENCY for r in rebuilt if r.step > 2)
    assert rebuilt[0].source.startswith("no seed: starts empty at the thread's first checkpoint")
    assert any(r.source.startswith("seed: snapshot at step 6 + ") for r in rebuilt)
    with open_store(str(shapes)) as store:
        state = store.state(SNAPSHOTS, next(r.checkpoint_id for r in rebuilt if r.step == 12))
        snapshot = store.state(SNAPSHOTS)
    assert "rebuilt from deltas (seed: snapshot at step 10 + 2 replayed write(s))" in field_summary(
        "messages", state.values["messages"], state)
    assert "snapshot stored at this checkpoint (step 13)" in field_summary("messages", snapshot.values["messages"], snapshot)


def test_full_rows_then_delta_rows_read_the_last_full_value_as_the_seed_and_are_linted(shapes):
    report = chains(shapes, MIGRATED)
    kinds = [form for _, form in forms(report)]
    switch = kinds.index("rebuilt")
    assert set(kinds[:switch]) == {"full"} and "full" not in kinds[switch:] and "snapshot" in kinds[switch:]
    assert report.rows[switch].source.startswith(f"seed: full value stored at step {report.rows[switch - 1].step}")
    [lint] = report.lints
    assert lint.kind == "mixed-rows" and f"{switch} checkpoint(s) store its whole value" in lint.message
    with open_store(str(shapes)) as store:  # the values are LangGraph's own
        mine = [m["id"] for m in store.state(MIGRATED).values["messages"]]
    conn = sqlite3.connect(shapes, check_same_thread=False)
    try:
        from langgraph.checkpoint.sqlite import SqliteSaver

        theirs = build_graph(SqliteSaver(conn), FREQUENCY).get_state({"configurable": {"thread_id": MIGRATED}})
    finally:
        conn.close()
    assert mine == [m.id for m in theirs.values["messages"]] and len(mine) == 16


def test_the_alpha_sentinel_is_rebuilt_where_the_installed_langgraph_reads_nothing(shapes):
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(shapes, check_same_thread=False)
    try:
        theirs = build_graph(SqliteSaver(conn), FREQUENCY).get_state({"configurable": {"thread_id": SENTINEL}})
    finally:
        conn.close()
    assert theirs.values["messages"] is None  # the form the installed LangGraph can no longer read
    report = chains(shapes, SENTINEL)
    assert {form for _, form in forms(report)} == {"sentinel"}
    assert [lint.kind for lint in report.lints] == ["sentinel"] and "no longer reads" in report.lints[0].message
    with open_store(str(shapes)) as store:
        state = store.state(SENTINEL)
    assert [m["content"] for m in state.values["messages"]] == [f"message {i}" for i in range(SENTINEL_MESSAGES)]
    assert state.problems == [] and "sentinel stored at this checkpoint" in field_summary(
        "messages", state.values["messages"], state)


def test_a_chain_that_lost_its_seed_cannot_be_rebuilt_and_says_so(shapes):
    report = chains(shapes, CUT)
    cut = [r for r in report.rows if r.form == "cut"]
    assert [r.step for r in cut] == [3, 4, 5] and all(r.source.startswith(NOT_REBUILT) for r in cut)
    assert [step for step, form in forms(report) if form != "cut"][0] == 6  # the next snapshot restores the chain
    assert [lint.kind for lint in report.lints] == ["cut-chain"]
    with open_store(str(shapes)) as store:
        state = store.state(CUT, cut[-1].checkpoint_id)
        streamed = {s.checkpoint_id: s for s in store.iter_states(CUT)}[cut[-1].checkpoint_id]
    for read in (state, streamed):
        value = read.values["messages"]
        assert isinstance(value, Opaque) and value.reason == NOT_REBUILT  # never an empty or partial list
        [problem] = read.problems_for("messages")
        assert problem.kind == "delta-cut" and "silently short" in problem.message
        assert field_summary("messages", value, read).count("cannot be rebuilt: no seed") == 1


def test_a_replay_far_past_the_snapshot_frequency_is_linted(shapes):
    report = chains(shapes, RAISED)
    [lint] = report.lints
    deepest = max(r.replayed for r in report.rows)
    assert lint.kind == "deep-replay" and deepest > 2 * FREQUENCY and f"replays {deepest} updates" in lint.message
    assert f"snapshot frequency of {FREQUENCY} (as observed" in lint.message


def test_the_cli_prints_the_chains_and_exits_1_on_a_lint(shapes):
    clean = cli("delta-chains", "--db", str(shapes), SNAPSHOTS)
    linted = cli("delta-chains", "--db", str(shapes), CUT)
    missing = cli("delta-chains", "--db", str(shapes), "no-such-thread")
    assert clean.returncode == 0 and "snapshot stored at this checkpoint" in clean.stdout
    assert linted.returncode == 1 and "lint [cut-chain]" in linted.stdout and "cannot be rebuilt" in linted.stdout
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1


def test_the_size_panel_reads_the_chains_when_asked(shapes, monkeypatch):
    from test_ui_sizes import open_panel
    from ui_app import open_page

    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{shapes}")
    connection.settings.clear()
    try:
        at = open_panel(open_page("thread", thread=CUT), "Size")
        [button] = [b for b in at.button if b.label == "Read the chains"]
        assert not at.exception and not any("cannot be rebuilt" in w.value for w in at.main.warning)
        at = button.click().run()
    finally:
        connection.settings.clear()
    assert not at.exception, at.exception
    assert sum("cannot be rebuilt at 3 checkpoint(s)" in w.value for w in at.main.warning) == 1
    [frame] = [d.value for d in at.dataframe if "where the value comes from" in d.value.columns]
    forms = dict(zip(frame["step"], frame["form"]))
    assert [forms[step] for step in (3, 4, 5)] == ["cut"] * 3 and forms[6] != "cut"
    assert frame.loc[frame["form"] == "cut", "where the value comes from"].str.startswith(NOT_REBUILT).all()


@pytest.mark.parametrize("safe", [False, True])
def test_a_retention_policy_that_cuts_a_delta_chain_is_a_break_and_the_safe_one_keeps_it(shapes, tmp_path, safe):
    copy = tmp_path / "copy.db"
    shutil.copy(shapes, copy)
    policy = ["--keep-latest", "2", "--threads", SNAPSHOTS, *(["--safe"] if safe else [])]
    preview = cli("prune-preview", "--db", str(copy), *policy)
    assert "`messages` is stored as deltas" in preview.stdout
    apply(copy, cli("prune-preview", "--db", str(copy), *policy, "--sql").stdout)
    after = chains(copy, SNAPSHOTS)
    assert bool([r for r in after.rows if r.form == "cut"]) is not safe
    assert [lint.kind for lint in after.lints] == ([] if safe else ["cut-chain"])


@pytest.mark.postgres
def test_postgres_reads_the_same_forms_and_the_cut(postgres_dsn):
    """PostgresSaver's blob rows: snapshots, rebuilds, and a chain cut by deleting the oldest checkpoints."""
    import psycopg
    from conftest import written_database
    from delta_modes_store import write_postgres
    from delta_shapes_store import CUT_STEPS, _turns

    def write(dsn: str) -> None:
        write_postgres(dsn, lambda saver: (_turns(build_graph(saver, FREQUENCY), SNAPSHOTS, 0, 3),
                                           _turns(build_graph(saver, FREQUENCY), CUT, 0, 3)))
        with psycopg.connect(dsn, autocommit=True) as conn:
            ids = [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s "
                                              "ORDER BY checkpoint_id", [CUT]).fetchall()][:CUT_STEPS]
            for table in ("checkpoints", "checkpoint_writes"):
                conn.execute(f"DELETE FROM {table} WHERE thread_id = %s AND checkpoint_id = ANY(%s)", [CUT, ids])

    _, readonly = written_database(postgres_dsn, "inspector_delta_shapes", write)
    snapshots, cut = chains(readonly, SNAPSHOTS), chains(readonly, CUT)
    assert [step for step, form in forms(snapshots) if form == "snapshot"] == [2, 6, 10, 13]
    assert {form for _, form in forms(snapshots)} == {"snapshot", "rebuilt"} and snapshots.lints == []
    assert [r.step for r in cut.rows if r.form == "cut"] == [3, 4, 5] and [lint.kind for lint in cut.lints] == ["cut-chain"]
