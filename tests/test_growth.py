"""Growth over time on stores LangGraph's savers wrote over five simulated days (ids dated by uuid6).

What the report says per day, per channel and per thread is checked against the rows themselves, read
here with plain SQL and dated in Python from each id; the forecast is recomputed from its stated basis.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime, timezone

import psycopg
import pytest
from conftest import written_database
from growth_store import CLOCKS, PLAN, write_postgres, write_sqlite

from inspector.cli import main
from inspector.operations.growth import DAY, growth_report
from inspector.store import StoreError, open_store
from inspector.store.model import checkpoint_time
from inspector.store_ops.growth_rows import CHECKPOINT_KEY

PG_DATABASE = "inspector_growth"


@pytest.fixture(scope="module", params=list(CLOCKS))
def now(request) -> float:
    """The clock pinned early and late in a UTC day: the newest simulated day is the day before or the same."""
    return CLOCKS[request.param]


def day_of(checkpoint_id: str) -> str:
    return checkpoint_time(checkpoint_id).strftime("%Y-%m-%d")


@pytest.fixture(scope="module")
def sqlite_growth(growth_sqlite, now):
    return growth_sqlite(now)


@pytest.fixture(scope="module")
def pg_growth(postgres_dsn, now):
    return written_database(postgres_dsn, PG_DATABASE, lambda admin: write_postgres(admin, now))


def sqlite_expected(path) -> dict[str, Counter]:
    """Per day, per (day, channel) and per (day, thread): bytes and checkpoints, from the rows."""
    import sqlite3

    out = {"day": Counter(), "day_checkpoints": Counter(), "channel": Counter(), "thread": Counter()}
    with sqlite3.connect(path) as conn:
        for tid, cid, n in conn.execute(
                "SELECT thread_id, checkpoint_id, length(checkpoint) + coalesce(length(metadata), 0) FROM checkpoints"):
            out["day"][day_of(cid)] += n
            out["day_checkpoints"][day_of(cid)] += 1
            out["channel"][(day_of(cid), CHECKPOINT_KEY)] += n
            out["thread"][(day_of(cid), tid)] += n
        for tid, cid, channel, n in conn.execute(
                "SELECT thread_id, checkpoint_id, channel, coalesce(length(value), 0) FROM writes"):
            out["day"][day_of(cid)] += n
            out["channel"][(day_of(cid), channel)] += n
            out["thread"][(day_of(cid), tid)] += n
    return out


def pg_expected(admin: str) -> dict[str, Counter]:
    """The same from PostgreSQL's rows; a blob row is dated by the first checkpoint naming its version."""
    out = {"day": Counter(), "day_checkpoints": Counter(), "channel": Counter(), "thread": Counter()}
    first: dict[tuple, str] = {}
    with psycopg.connect(admin) as conn:
        for tid, ns, cid, checkpoint, n in conn.execute(
                "SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoint, "
                "pg_column_size(checkpoint) + pg_column_size(metadata) FROM checkpoints"):
            out["day"][day_of(cid)] += n
            out["day_checkpoints"][day_of(cid)] += 1
            out["channel"][(day_of(cid), CHECKPOINT_KEY)] += n
            out["thread"][(day_of(cid), tid)] += n
            for channel, version in checkpoint["channel_versions"].items():
                key = (tid, ns, channel, str(version))
                first[key] = min(first.get(key, cid), cid)
        for tid, ns, channel, version, n in conn.execute(
                "SELECT thread_id, checkpoint_ns, channel, version, octet_length(blob) FROM checkpoint_blobs"):
            cid = first[(tid, ns, channel, version)]
            out["day"][day_of(cid)] += n or 0
            out["channel"][(day_of(cid), channel)] += n or 0
            out["thread"][(day_of(cid), tid)] += n or 0
        for tid, cid, channel, n in conn.execute(
                "SELECT thread_id, checkpoint_id, channel, octet_length(blob) FROM checkpoint_writes"):
            out["day"][day_of(cid)] += n
            out["channel"][(day_of(cid), channel)] += n
            out["thread"][(day_of(cid), tid)] += n
    return out


def reported(store, by: str, now: float) -> tuple[Counter, Counter]:
    report = growth_report(store, by, "day", 10, now=now)
    found, checkpoints = Counter(), Counter()
    for p in report.points:
        day = p.start.strftime("%Y-%m-%d")
        found[day if by == "store" else (day, p.key)] += p.bytes
        checkpoints[day] += p.checkpoints
    return +found, +checkpoints


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def growth_store(request):
    if request.param == "sqlite":
        path = request.getfixturevalue("sqlite_growth")
        return open_store(str(path)), sqlite_expected(path)
    admin, readonly = request.getfixturevalue("pg_growth")
    return open_store(readonly), pg_expected(admin)


def test_growth_per_day_channel_and_thread_equal_the_rows(growth_store, now):
    store, expected = growth_store
    with store:
        by_day, checkpoints = reported(store, "store", now)
        assert by_day == +expected["day"]
        assert checkpoints == +expected["day_checkpoints"]
        assert len(by_day) == 5  # five simulated days, each with checkpoints
        assert reported(store, "channel", now)[0] == +expected["channel"]
        assert reported(store, "thread", now)[0] == +expected["thread"]
        # the thread written only on the newest day grew on that day alone
        assert {day for day, tid in reported(store, "thread", now)[0] if tid == "grow-c"} == {max(by_day)}


def test_the_forecast_is_reproducible_from_its_basis(growth_store, now):
    store, expected = growth_store
    with store:
        budget = store.totals().stored_bytes * 3
        report = growth_report(store, "store", "day", 3, budget_bytes=budget, now=now)
    f = report.forecast
    window_start = datetime.fromtimestamp((int(now - 3 * DAY) // DAY) * DAY, tz=timezone.utc)
    assert f.window_start == window_start and f.now == datetime.fromtimestamp(now, tz=timezone.utc)
    in_window = sum(n for day, n in expected["day"].items() if day >= window_start.strftime("%Y-%m-%d"))
    assert f.window_bytes == in_window > 0
    assert f.current_bytes == sum(expected["day"].values())  # every row is dated: the store is its rows
    assert f.window_days == pytest.approx((now - window_start.timestamp()) / DAY)
    assert f.bytes_per_day == pytest.approx(in_window / f.window_days)
    assert f.days_left == pytest.approx((budget - f.current_bytes) / f.bytes_per_day)
    assert f.passes_at.timestamp() == pytest.approx(now + f.days_left * DAY, abs=1)
    for number in (f"{f.current_bytes:,}", f"{f.window_bytes:,}", f"{f.window_days:.2f} days"):
        assert number in f.basis
    assert f"{f.passes_at:%Y-%m-%d}" in f.verdict
    # the top thread of the window is the one that stored most in it
    threads = Counter()
    for (day, tid), n in expected["thread"].items():
        if day >= window_start.strftime("%Y-%m-%d"):
            threads[tid] += n
    assert [g.key for g in report.top_threads] == [tid for tid, _ in threads.most_common()]


def test_the_top_threads_alone_do_not_set_the_rate_or_the_shares(growth_store, now):
    store, _ = growth_store
    with store:
        budget = store.totals().stored_bytes * 3
        whole = growth_report(store, "store", "day", 3, budget_bytes=budget, now=now)
        top_one = growth_report(store, "thread", "day", 3, top=1, budget_bytes=budget, now=now)
    assert {p.key for p in top_one.points} == {top_one.top_threads[0].key}  # the rows: one thread's
    assert top_one.forecast.window_bytes == whole.forecast.window_bytes
    assert top_one.forecast.days_left == pytest.approx(whole.forecast.days_left)
    assert top_one.top_threads[0].share == pytest.approx(whole.top_threads[0].share)
    assert whole.top_threads[0].share < 1


def test_a_store_younger_than_the_window_grows_over_its_own_life(growth_store, now):
    store, expected = growth_store
    with store:
        budget = store.totals().stored_bytes * 3
        report = growth_report(store, "store", "day", 30, budget_bytes=budget, now=now)
        ancient = growth_report(store, "store", "day", 100_000_000, now=now)  # longer than the clock: since 1970
    f, first = report.forecast, min(report.points, key=lambda p: p.start).start
    assert report.window_start < first == f.window_start and first.strftime("%Y-%m-%d") == min(expected["day"])
    assert f.window_days == pytest.approx((now - first.timestamp()) / DAY)
    assert f.window_days < 6
    assert f.bytes_per_day == pytest.approx(f.window_bytes / f.window_days)
    assert "younger than the window" in f.basis and f"{f.window_days:.2f} days" in f.basis
    assert ancient.window_start.year == 1970 and ancient.forecast.window_bytes == f.window_bytes


def test_past_budget_and_no_budget_are_said(sqlite_growth, now):
    with open_store(str(sqlite_growth)) as store:
        assert growth_report(store, budget_bytes=1, now=now).forecast.verdict.startswith("already past")
        none = growth_report(store, now=now).forecast
    assert none.days_left is None and "disk_budget_bytes" in none.verdict


def test_growth_cli_json_is_the_report(sqlite_growth, capsys, now):
    assert main(["growth", "--db", str(sqlite_growth), "--by", "thread", "--since", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    with open_store(str(sqlite_growth)) as store:
        by_thread = reported(store, "thread", now)[0]
    assert Counter({(p["start"][:10], p["key"]): p["bytes"] for p in data["points"]}) == by_thread
    assert {g["key"] for g in data["top_threads"]} == set(PLAN)
    assert main(["growth", "--db", str(sqlite_growth), "--since", "10", "--budget", "1"]) == 0
    out = capsys.readouterr().out
    assert "forecast: already past" in out and "grow-a" in out


def test_the_channel_table_leaves_out_rows_that_hold_nothing(sqlite_growth, capsys):
    assert main(["growth", "--db", str(sqlite_growth), "--by", "channel", "--json"]) == 0
    points = json.loads(capsys.readouterr().out)["points"]
    empty = [p for p in points if not p["bytes"] and not p["checkpoints"]]
    assert empty and any(p["key"].startswith("branch:to:") for p in empty)  # LangGraph's trigger writes: 0 B
    assert main(["growth", "--db", str(sqlite_growth), "--by", "channel"]) == 0
    out = capsys.readouterr().out
    table = out[:out.index("top threads")]
    assert "branch:to:" not in table and "messages" in table
    assert f"{len(empty)} row(s) of 0 B and no checkpoint left out" in out


def test_growth_refuses_bad_arguments_and_saver_stores(sqlite_growth, capsys):
    assert main(["growth", "--db", str(sqlite_growth), "--since", "0"]) == 2
    assert "--since" in capsys.readouterr().err
    assert main(["growth", "--db", str(sqlite_growth), "--budget", "-5"]) == 2  # never "no disk budget set"
    assert capsys.readouterr().err == "error: --budget must be a positive number of bytes, got -5\n"
    from langgraph.checkpoint.memory import InMemorySaver

    from inspector.store.saver import SaverStore

    with SaverStore(InMemorySaver(), "memory") as store, pytest.raises(StoreError, match="Growth over time"):
        growth_report(store)


def test_ids_that_are_not_uuid6_are_counted_as_undated(tmp_path, now):
    import sqlite3

    path = tmp_path / "odd.db"
    write_sqlite(path, now)
    with sqlite3.connect(path, check_same_thread=False) as conn:  # an id another saver (or an attacker) chose
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(conn)
        newest = saver.get_tuple({"configurable": {"thread_id": "grow-c"}})
        saver.put({"configurable": {"thread_id": "odd", "checkpoint_ns": ""}},
                  {**newest.checkpoint, "id": "not-a-uuid"}, newest.metadata, {})
        size = conn.execute("SELECT length(checkpoint) + length(metadata) FROM checkpoints "
                            "WHERE checkpoint_id = 'not-a-uuid'").fetchone()[0]
    with open_store(str(path)) as store:
        report = growth_report(store, now=now)
    assert report.untimed_checkpoints == 1 and report.untimed_bytes == size
    assert sum(p.bytes for p in report.points) + size == report.forecast.current_bytes


def test_ids_dated_after_now_are_shown_but_left_out_of_the_rate_and_the_last_day(tmp_path, now):
    """A writer whose clock is a year ahead (or an attacker) dates checkpoints in the future: they are in the
    store's bytes and its table, but the window ending now, the forecast's rate and the metrics' last hour and
    day do not count them, and the basis says how much was left out."""
    import sqlite3

    from growth_store import build_graph, simulated_clock
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.operations.metrics import metrics_snapshot

    path = write_sqlite(tmp_path / "ahead.db", now)
    with open_store(str(path)) as store:
        before, written = growth_report(store, now=now).forecast, metrics_snapshot(store, 1, now=now).written_bytes
    with sqlite3.connect(path, check_same_thread=False) as conn, simulated_clock(now + 365 * DAY):
        build_graph(SqliteSaver(conn)).invoke({"messages": [HumanMessage("from the future")]},
                                              {"configurable": {"thread_id": "ahead"}})
    with open_store(str(path)) as store:
        report, snapshot = growth_report(store, now=now), metrics_snapshot(store, 1, now=now)
    ahead = report.forecast.current_bytes - before.current_bytes
    assert ahead > 0 and any(p.start.timestamp() > now for p in report.points)
    assert report.forecast.window_bytes == before.window_bytes
    assert report.forecast.bytes_per_day == pytest.approx(before.bytes_per_day, rel=1e-3)
    assert f"({ahead:,} bytes) dated after" in report.forecast.basis and "clock ahead" in report.forecast.basis
    assert snapshot.written_bytes == written and "clock ahead" in snapshot.forecast_basis


def test_health_page_shows_growth_and_the_forecast(sqlite_growth, app_on_store, monkeypatch):
    from ui_app import open_page

    with open_store(str(sqlite_growth)) as store:
        report = growth_report(store, "store", "day", 30, budget_bytes=10 * store.totals().stored_bytes)
    monkeypatch.setenv("INSPECTOR_DISK_BUDGET_BYTES", str(report.forecast.budget_bytes))
    app_on_store(f"sqlite:///{sqlite_growth}")
    at = open_page("health")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Disk budget passed"] == f"{report.forecast.passes_at:%Y-%m-%d}"
    days = next(d.value for d in at.dataframe if "day" in d.value.columns)
    assert dict(zip(days["day"], days["stored bytes, exact"])) == {p.start.strftime("%Y-%m-%d"): p.bytes
                                                            for p in report.points}
    assert any("Days left = (budget - now) / rate" in c.value for c in at.caption)
    assert len(at.get("vega_lite_chart")) >= 2  # bytes per field, and growth
    at.segmented_control(key="growth_bucket").set_value("hour").run()
    hours = next(d.value for d in at.dataframe if "hour" in d.value.columns)
    assert hours["stored bytes, exact"].sum() == days["stored bytes, exact"].sum() and len(hours) > len(days)
    assert {h[-5:] for h in hours["hour"]} == {"12:00", "13:00", "14:00"}  # one hour per thread
