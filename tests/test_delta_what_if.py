"""The delta-mode what-if against what delta mode really stores: one graph written by LangGraph's
SqliteSaver in full mode and with ``messages`` as ``DeltaChannel`` at snapshot frequencies 2 and 5
(``delta_modes_store``). Predictions from the full thread, and from a delta thread for another
frequency, are within 10% of the delta threads' stored bytes; the writes a read replays at most equal
the longest history LangGraph's own ``get_delta_channel_history`` walk gives. The same on PostgreSQL,
where full mode keeps one blob row per version of ``messages`` (PostgresSaver).
"""

from __future__ import annotations

import json

import pytest
from conftest import written_database
from delta_modes_store import FULL_THREAD, delta_thread, write_modes, write_modes_postgres

from inspector.cli import main
from inspector.sizes.delta_what_if import delta_what_if
from inspector.store import open_store

FREQUENCIES = (2, 5)


PG_DATABASE = "inspector_delta_modes"


@pytest.fixture(scope="module")
def modes_db(tmp_path_factory):
    return write_modes(tmp_path_factory.mktemp("modes") / "modes.db", FREQUENCIES)


@pytest.fixture(scope="module")
def modes_pg(postgres_dsn):
    return written_database(postgres_dsn, PG_DATABASE, lambda admin: write_modes_postgres(admin, FREQUENCIES))[1]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def modes_url(request):
    return str(request.getfixturevalue("modes_db")) if request.param == "sqlite" else request.getfixturevalue("modes_pg")


def stored(store, thread_id: str) -> int:
    return next(t.stored_bytes for t in store.threads(limit=10) if t.thread_id == thread_id)


@pytest.mark.parametrize("source", [FULL_THREAD, delta_thread(2), delta_thread(5)])
def test_prediction_within_ten_percent_of_delta_mode_at_two_frequencies(modes_url, source):
    with open_store(modes_url) as store:
        report = delta_what_if(store, source, FREQUENCIES)
        actual = {f: stored(store, delta_thread(f)) for f in FREQUENCIES}
        assert report.stored_bytes == stored(store, source)
        full = stored(store, FULL_THREAD)
    assert report.mode == ("full" if source == FULL_THREAD else "delta")
    for option in report.options:
        assert option.stored_bytes == pytest.approx(actual[option.frequency], rel=0.10)
        assert option.saved_bytes == report.stored_bytes - option.stored_bytes
    assert max(actual.values()) < full * 0.6  # the prediction is not trivially "the same as now"


def test_max_replayed_writes_equal_langgraphs_own_history_walk(modes_url):
    with open_store(modes_url) as store:
        report = delta_what_if(store, FULL_THREAD, FREQUENCIES)
        for option in report.options:
            thread = delta_thread(option.frequency)
            rows = [r for r in store.timeline(thread) if r.checkpoint_ns == ""]
            longest = max(len(store.delta_history(thread, r.checkpoint_id, ["messages"])["messages"].writes)
                          for r in rows)
            assert option.max_replayed_writes == longest
            # one stored copy per snapshot (PostgreSQL: checkpoints after it share its blob row)
            snapshots = len({s.channels["messages"].blob_key or s.checkpoint_id
                             for s in store.iter_field_sizes(thread, "") if "messages" in s.channels})
            assert option.snapshots == snapshots


def test_delta_what_if_cli(modes_db, capsys):
    assert main(["delta-what-if", "--db", str(modes_db), FULL_THREAD, "--frequency", "5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["frequency"] for o in data["options"]] == [5] and data["mode"] == "full"
    assert main(["delta-what-if", "--db", str(modes_db), FULL_THREAD, "--frequency", "0"]) == 2
    assert "positive" in capsys.readouterr().err
    assert main(["delta-what-if", "--db", str(modes_db), "no-such-thread"]) == 2
    capsys.readouterr()
    assert main(["delta-what-if", "--db", str(modes_db), FULL_THREAD, "--channel", "mesages"]) == 2
    assert "stores no channel 'mesages'" in capsys.readouterr().err


def test_the_channel_is_named_as_ids_are_quoted(tmp_path, capsys):
    """The thread line and the basis name ``--channel`` as error lines quote an id: one spelling for a quote in
    it, and a very long name cut with its length."""
    import sqlite3

    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.store.not_utf8 import quoted

    channel, path, parent = "it's " + "L" * 300, tmp_path / "channel.db", {}
    with sqlite3.connect(path, check_same_thread=False) as conn:
        for step in range(2):
            checkpoint = empty_checkpoint()
            checkpoint["channel_values"], checkpoint["channel_versions"] = {channel: ["x"] * (step + 1)}, {channel: step + 1}
            saved = SqliteSaver(conn).put({"configurable": {"thread_id": "t", "checkpoint_ns": "", **parent}}, checkpoint,
                                          {"source": "loop", "step": step, "parents": {}}, checkpoint["channel_versions"])
            parent = {"checkpoint_id": saved["configurable"]["checkpoint_id"]}
    assert main(["delta-what-if", "--db", str(path), "t", "--channel", channel]) == 0
    out = capsys.readouterr().out
    assert quoted(channel).endswith("…' (305 characters)") and out.count(quoted(channel)) == 4 and channel not in out


def test_a_share_below_one_percent_is_never_minus_zero():
    from inspector.cli.operations_commands import share

    assert [share(x) for x in (-0.0048, 0.0, 0.004, 0.31, -0.58)] == ["-0.5%", "0%", "0.4%", "31%", "-58%"]


def test_store_what_if_sums_the_largest_threads(modes_db, capsys):
    from inspector.sizes.delta_what_if import store_delta_what_if

    with open_store(str(modes_db)) as store:
        report = store_delta_what_if(store, 2, (5,))
        singles = [delta_what_if(store, tid, (5,)) for tid in (FULL_THREAD, delta_thread(2))]  # the two largest
    assert [r.thread_id for r in report.threads] == [FULL_THREAD, delta_thread(2)]
    assert report.options[0].stored_bytes == sum(r.options[0].stored_bytes for r in singles)
    assert report.measured_bytes < report.store_bytes and "2 largest thread(s)" in report.basis
    assert main(["delta-what-if", "--db", str(modes_db), "--frequency", "5"]) == 0
    assert "would store" in capsys.readouterr().out


def test_size_panel_prices_delta_mode_when_asked(modes_db, app_on_store):
    from ui_app import open_page

    app_on_store(f"sqlite:///{modes_db}")
    at = open_page("thread", thread=FULL_THREAD)
    at.segmented_control(key="thread_panel").set_value("Size").run()
    assert not at.exception
    at.button(key=f"delta_what_if_{FULL_THREAD}").click().run()
    assert not at.exception
    table = next(d.value for d in at.dataframe if "snapshot every" in d.value.columns)
    with open_store(str(modes_db)) as store:
        report = delta_what_if(store, FULL_THREAD)
    assert list(table["would store"]) == [o.stored_bytes for o in report.options]  # bytes; each cell its own unit
    assert list(table["would store, exact"]) == [o.stored_bytes for o in report.options]
    assert list(table["max writes a read replays"]) == [o.max_replayed_writes for o in report.options]
