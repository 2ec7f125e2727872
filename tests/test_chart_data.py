"""Chart specs drawn again and again: rows apart from the spec (``steady``), as Arrow where Arrow holds them and
back in the spec where it does not (``arrow_datasets``)."""

from __future__ import annotations

import json

import pyarrow as pa

from inspector.ui.chart_data import arrow_datasets, steady


def _spec(points: list[dict], labels: list[dict]) -> dict:
    return {"layer": [{"data": {"values": points}, "mark": "point"}, {"data": {"values": points}, "mark": "text"},
                      {"data": {"values": labels}, "mark": "text"}, {"mark": "rule"}]}


def test_steady_keeps_the_spec_the_same_when_only_rows_change():
    one = steady(_spec([{"row": 0, "selected": True}, {"row": 1, "selected": False}], [{"text": "a"}]))
    two = steady(_spec([{"row": 0, "selected": False}, {"row": 1, "selected": True}], [{"text": "a"}]))
    assert {k: v for k, v in one.items() if k != "datasets"} == {k: v for k, v in two.items() if k != "datasets"}
    assert one["layer"][0]["data"] == one["layer"][1]["data"]  # one dataset for layers drawing the same rows
    assert one["datasets"] != two["datasets"] and len(one["datasets"]) == 2


def test_datasets_travel_as_arrow():
    spec = arrow_datasets(steady(_spec([{"row": 0, "label": "7 · agent"}], [{"text": "main"}])))
    assert all(isinstance(data, bytes) for data in spec["datasets"].values())
    name = spec["layer"][0]["data"]["name"]
    assert pa.ipc.open_stream(spec["datasets"][name]).read_all().to_pylist() == [{"row": 0, "label": "7 · agent"}]


def test_rows_arrow_cannot_hold_go_back_into_the_spec_as_json():
    bad = [{"row": 0, "checkpoint": "1f0-bad-\udcff"}]  # an id a hostile store holds that is not UTF-8
    mixed = [{"text": 1}, {"text": "a"}]
    spec = arrow_datasets(steady(_spec(bad, mixed)))
    assert spec["layer"][0]["data"] == {"values": bad} and spec["layer"][1]["data"] == {"values": bad}
    assert spec["layer"][2]["data"] == {"values": mixed}
    assert "datasets" not in spec and spec["layer"][3] == {"mark": "rule"}
    assert "\\udcff" in json.dumps(spec)  # the spec still travels as JSON, the lone surrogate escaped
    good = arrow_datasets(steady(_spec(bad, [{"text": "main"}])))
    assert list(good["datasets"]) == [good["layer"][2]["data"]["name"]]  # only the rows Arrow cannot hold stay
