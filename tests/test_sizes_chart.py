"""The size chart's frame and Vega-Lite spec for the bloated demo thread."""

import json

import pytest

from inspector.sizes.accounting import measure_thread
from inspector.sizes.chart import INTERNAL, byte_unit, first_over, size_chart, size_frame
from inspector.store import open_store


@pytest.fixture(scope="module")
def report(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        return measure_thread(store, "demo-bloated")


def test_frame_stacks_to_each_checkpoint_total(report):
    frame = size_frame(report)
    totals = frame.groupby("checkpoint")["bytes"].sum().tolist()
    assert totals == [c.total_bytes for c in report.checkpoints]
    assert INTERNAL in set(frame["field"]) and not any(f.startswith("branch:") for f in frame["field"])
    newest = frame[frame["checkpoint"] == len(report.checkpoints) - 1].set_index("field")["bytes"]
    assert newest["viewed_images"] == report.checkpoints[-1].fields["viewed_images"]


def test_chart_has_the_threshold_line_and_the_crossing(report):
    position = first_over(report, 1_000_000)
    assert report.checkpoints[position].total_bytes > 1_000_000 >= report.checkpoints[position - 1].total_bytes
    assert first_over(report, 10**9) is None
    spec = size_chart(report, 1_000_000, report.checkpoints[2].checkpoint_id).to_dict()
    marks = [layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"] for layer in spec["layer"]]
    assert marks[0] == "area" and marks.count("rule") == 2
    datasets = spec["datasets"].values()
    assert any(rows and rows[0].get("threshold") == 1_000_000 for rows in datasets)
    assert any(rows and rows[0].get("checkpoint") == 2 and "field" not in rows[0] for rows in datasets)
    assert size_chart(report, 1_000_000).to_dict()["layer"].__len__() == 3


def test_threshold_line_is_left_out_far_below_it(report):
    peak = max(c.total_bytes for c in report.checkpoints)
    near = size_chart(report, peak * 2).to_dict()
    far = size_chart(report, peak * 100).to_dict()
    def rules(spec):
        return sum(1 for layer in spec["layer"] if layer["mark"] == "rule" or layer["mark"].get("type") == "rule")

    assert rules(near) == 1 and rules(far) == 0
    datasets = size_chart(report, 1_000_000).to_dict()["datasets"].values()
    assert any(rows and rows[0].get("label") == "limit 1.00 MB" for rows in datasets)


def test_axes_speak_in_steps_and_a_byte_unit(report):
    """The x axis is labelled with the timeline's steps (not positions 0..N), the y axis in the unit of the
    peak (MB for this thread), and the tooltip keeps exact bytes."""
    spec = size_chart(report, 1_000_000).to_dict()
    area = spec["layer"][0]["encoding"]
    axis = area["x"]["axis"]
    assert axis["title"].startswith("step")
    steps = [c.step for c in report.checkpoints]
    assert json.dumps([str(s) for s in steps]) in axis["labelExpr"] and steps[0] == -1
    assert area["y"]["title"] == "stored MB per checkpoint" and area["y"]["field"] == "shown"
    rows = next(rows for rows in spec["datasets"].values() if rows and "shown" in rows[0])
    assert all(abs(r["shown"] - r["bytes"] / 1_000_000) < 1e-9 for r in rows)
    assert {"format": ",", "title": "bytes"}.items() <= next(t for t in area["tooltip"] if t["field"] == "bytes").items()
    assert byte_unit(999) == ("B", 1) and byte_unit(1_000) == ("KB", 1_000) and byte_unit(2 * 10**9)[0] == "GB"
