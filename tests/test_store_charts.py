"""The Health page's charts (``inspector.sizes.store_charts``) and the Retention chart: sizes drawn in one unit
chosen from the data and named on the axis, dates on a UTC time axis, tooltips with a person's size and the
exact bytes. On a store LangGraph's saver wrote over five simulated days (``growth_store``)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from growth_store import CLOCKS, DAY, DAYS, day_start, write_sqlite

from inspector.formatting import human_bytes
from inspector.operations.growth import growth_report, growth_table
from inspector.sizes.chart import byte_unit
from inspector.sizes.store_charts import field_chart, field_frame, growth_chart, growth_frame
from inspector.store import open_store


@pytest.fixture(scope="module", params=list(CLOCKS))
def now(request) -> float:
    """The clock pinned early and late in a UTC day: the newest simulated day is the day before or the same."""
    return CLOCKS[request.param]


@pytest.fixture(scope="module")
def growth_db(growth_sqlite, now):
    return growth_sqlite(now)


def report_of(path, bucket: str, days: int, now: float):
    with open_store(str(path)) as store:
        return growth_report(store, "store", bucket, days, now=now)


def data_of(spec: dict) -> list[dict]:
    return spec["datasets"][spec["data"]["name"]]


def millis(moment: datetime) -> int:
    return round(moment.timestamp() * 1000)


@pytest.mark.parametrize("bucket, length", [("day", 86_400_000), ("hour", 3_600_000)])
def test_growth_bars_span_their_bucket_in_the_unit_of_the_largest(growth_db, now, bucket, length):
    report = report_of(growth_db, bucket, 7, now)
    assert len(report.points) >= 5  # five simulated days
    spec = growth_chart(report).to_dict()
    bars, lines = spec["layer"]
    unit, scale = byte_unit(max(p.bytes for p in report.points))
    assert bars["encoding"]["y"]["title"] == f"stored ({unit}) per {bucket}" and unit != "B"
    rows = data_of(spec)
    table = growth_table(report)
    assert [r["bytes"] for r in rows] == [p.bytes for p in report.points] == [t["stored bytes"] for t in table]
    for row, point, line in zip(rows, report.points, table):
        assert row["start"] == millis(point.start) and row["end"] - row["start"] == length
        assert row["middle"] == row["start"] + length // 2
        assert abs(row["shown"] - point.bytes / scale) < 1e-9 and row["stored"] == human_bytes(point.bytes)
        assert row["when"] == f"{line[bucket]} UTC"  # the tooltip names the bucket as the table does
    x = bars["encoding"]["x"]
    assert x["type"] == "temporal" and x["scale"]["type"] == "utc" and x["title"] == f"{bucket} (UTC)"
    assert bars["encoding"]["x2"]["field"] == "end" and bars["encoding"]["y2"] == {"datum": 0}
    assert x["axis"]["format"] == ("%b %d" if bucket == "day" else "%b %d %H:%M")
    # a line in each bucket's middle, on the same axis, in the bars' colour: an hour of 90 days is under a pixel
    assert lines["mark"]["type"] == "rule" and lines["mark"]["color"] == bars["mark"]["color"]
    assert lines["encoding"]["x"]["field"] == "middle" and lines["encoding"]["x"]["scale"] == x["scale"]
    assert lines["encoding"]["y"] == bars["encoding"]["y"] and lines["encoding"]["tooltip"] == bars["encoding"]["tooltip"]


def test_the_growth_axis_spans_the_whole_window_and_the_tooltip_the_exact_bytes(growth_db, now):
    report = report_of(growth_db, "day", 30, now)
    spec = growth_chart(report).to_dict()
    encoding = spec["layer"][0]["encoding"]
    first, last = encoding["x"]["scale"]["domain"]
    start = report.window_start.astimezone(timezone.utc)
    assert (first["year"], first["month"], first["date"], first["hours"], first["utc"]) == (
        start.year, start.month, start.day, 0, True)
    axis_end = millis(datetime(last["year"], last["month"], last["date"], tzinfo=timezone.utc))
    assert axis_end == (int(now // DAY) + 1) * DAY * 1000  # the day after now's: now's own day is whole
    newest = data_of(spec)[-1]  # the bar of the newest simulated day, whole: its day's end
    assert newest["end"] == (int(day_start(now, DAYS - 1) // DAY) + 1) * DAY * 1000
    assert (newest["end"] == axis_end) == (now % DAY >= DAY / 2 + 4 * 3600)  # late in the day: that day is now's
    tips = {t["title"]: t for t in encoding["tooltip"]}
    assert tips["stored"]["field"] == "stored" and tips["bytes"] == {"field": "bytes", "format": ",", "title": "bytes",
                                                                      "type": "quantitative"}
    assert tips["day"]["field"] == "when"


def test_an_empty_store_draws_an_empty_chart(tmp_path):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(tmp_path / "empty.db")
    SqliteSaver(conn).setup()
    conn.close()
    report = report_of(tmp_path / "empty.db", "day", 7, CLOCKS["late"])
    assert growth_frame(report).empty
    assert growth_chart(report).to_dict()["layer"][0]["encoding"]["y"]["title"] == "stored (B) per day"


def test_bytes_per_field_largest_first_in_one_unit_with_exact_bytes_in_the_tooltip():
    named = {"title": 120, "messages": 4_500_000, "viewed_images": 2_250_000, "todos": 900}
    frame = field_frame(named, limit=3)
    assert list(frame["field"]) == ["messages", "viewed_images", "todos"]
    assert list(frame["shown"]) == [4.5, 2.25, 0.0009] and list(frame["stored"]) == ["4.50 MB", "2.25 MB", "900 B"]
    spec = field_chart(named, limit=3).to_dict()
    assert spec["encoding"]["x"] == {"field": "shown", "title": "stored (MB)", "type": "quantitative"}
    assert {"field": "bytes", "format": ",", "title": "bytes", "type": "quantitative"} in spec["encoding"]["tooltip"]
    assert field_chart({"title": 640}).to_dict()["encoding"]["x"]["title"] == "stored (B)"
    assert field_chart({}).to_dict()["encoding"]["x"]["title"] == "stored (B)"


def test_the_retention_chart_speaks_in_a_unit_too(demo_db):
    from inspector.retention import Policy, plan_store
    from inspector.retention.chart import bytes_chart, bytes_frame

    with open_store(f"sqlite:///{demo_db}") as store:
        plan = plan_store(store, Policy(keep_latest=2))
    frame = bytes_frame(plan)
    unit, scale = byte_unit(int(frame["bytes"].max()))
    spec = bytes_chart(plan).to_dict()
    assert spec["encoding"]["x"]["title"] == f"reclaimed ({unit})" and unit != "B"
    assert all(abs(r["shown"] - r["bytes"] / scale) < 1e-9 for r in data_of(spec))
    assert {"field": "bytes", "format": ",", "title": "bytes", "type": "quantitative"} in spec["encoding"]["tooltip"]


def test_a_checkpoint_dated_after_now_draws_inside_the_axis(tmp_path, now):
    """A writer whose clock runs ten days ahead: its bar is drawn, inside the axis, which ends after it."""
    import sqlite3

    from growth_store import build_graph, simulated_clock
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = write_sqlite(tmp_path / "ahead.db", now)
    with sqlite3.connect(path, check_same_thread=False) as conn, simulated_clock(now + 10 * DAY):
        build_graph(SqliteSaver(conn)).invoke({"messages": [HumanMessage("from the future")]},
                                              {"configurable": {"thread_id": "ahead"}})
    report = report_of(path, "day", 30, now)
    spec = growth_chart(report).to_dict()
    ahead = [r for r in data_of(spec) if r["start"] > millis(report.now)]
    assert ahead, data_of(spec)
    last = spec["layer"][0]["encoding"]["x"]["scale"]["domain"][1]
    assert millis(datetime(last["year"], last["month"], last["date"], tzinfo=timezone.utc)) == max(r["end"] for r in ahead)
