"""The history tree's layout rows and its Vega-Lite spec."""

from __future__ import annotations

import altair as alt

from inspector.history.lineage import build_history
from inspector.history.timeline_rows import timeline_records, written_channels
from inspector.history.tree_chart import SELECTION, tree_chart, tree_data
from inspector.store import open_store


def test_fork_thread_tree_has_two_lanes_and_labels(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        h = build_history(store.timeline("demo-time-travel"))
    data = tree_data(h, h.page(0, 40), h.head)
    assert data.lanes == 2
    assert {label["text"] for label in data.labels} == {"main", "fork at step 6"}
    assert sum(p["selected"] for p in data.points) == 1
    assert sum(p["kind"] == "fork" for p in data.points) == 1
    assert sum(e["cross"] for e in data.edges) == 1  # the fork's first child leaves the main lane
    spec = tree_chart(data)
    alt.LayerChart.from_dict(spec)  # a valid Vega-Lite spec (raises on any schema error)
    params = spec.get("params", []) + [p for layer in spec["layer"] for p in layer.get("params", [])]
    assert [p["name"] for p in params] == [SELECTION]
    assert params[0]["select"]["fields"] == ["checkpoint", "ns"]


def test_edges_to_parents_off_the_page_are_stubs(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        h = build_history(store.timeline("demo-long"))
    keys = h.page(0, 40)
    data = tree_data(h, keys, None)
    assert len(data.points) == 40
    assert max(e["row2"] for e in data.edges) == 39.5


def test_timeline_records_hide_plumbing(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        h = build_history(store.timeline("demo-subgraph"))
    records = timeline_records(h, h.ordered)
    assert len(records) == len(h)
    assert all("branch:" not in r["wrote"] for r in records)
    assert {r["namespace"] for r in records} >= {"root"}
    assert written_channels(("messages", "branch:to:x"), include_internal=True) == "messages, branch:to:x"


def test_each_row_is_clickable_from_its_dot_across_its_label(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        h = build_history(store.timeline("demo-time-travel"))
    data = tree_data(h, h.page(0, 40), h.head)
    spec = tree_chart(data)
    layers = [layer for layer in spec["layer"] if layer.get("params")]
    assert len(layers) == 1 and layers[0]["mark"]["type"] == "rect" and spec["layer"][-1] is layers[0]  # on top
    bands = layers[0]["data"]["values"]
    assert [(b["checkpoint"], b["ns"]) for b in bands] == [(p["checkpoint"], p["ns"]) for p in data.points]
    domain = spec["layer"][0]["encoding"]["x"]["scale"]["domain"]
    for band, point in zip(bands, data.points):
        assert band["left"] < point["lane"] < band["right"] == domain[1]  # the dot and the label to its right
        assert band["top"] < point["row"] < band["bottom"]
    assert not any(layer.get("encoding", {}).get("tooltip") for layer in spec["layer"][:-1])  # one aria label a row


def test_a_branch_label_has_a_row_of_its_own(flow_db):
    # each subgraph and the fork start a branch below the top: its label must not sit on the row above, whose
    # step label ("4 · research → found, summary") runs across the lanes to its right
    with open_store(f"sqlite:///{flow_db}") as store:
        h = build_history(store.timeline("flow-thread"))
    data = tree_data(h, h.page(0, 40), h.head)
    assert len(data.labels) == len(h.branches) == 4
    for label in data.labels:
        assert all(abs(point["row"] - label["row"]) > 0.5 for point in data.points), label["text"]
    assert data.rows == len(data.points) + len(data.labels) - 1  # the top branch's label is in the headroom
    assert tree_chart(data)["height"] == (data.rows + 2) * 24
    bands = tree_chart(data)["layer"][-1]["data"]["values"]
    assert sorted(b["top"] + 0.5 for b in bands) == sorted(p["row"] for p in data.points)


def test_labels_from_the_data_are_drawn_escaped(tmp_path):
    """A namespace stored as bytes that are not UTF-8 and one holding ESC and U+202E: the chart (drawn as its spec
    says) names them as ids are quoted, ``sub-\\xfe (not UTF-8)``, never a lone surrogate, a control or a bidi
    override; the selection still carries the ids as stored."""
    import hostile_corpus as corpus

    db = corpus.write_corpus(tmp_path, cases=["invalid-utf8-ids", "escapes"])
    texts = []
    with open_store(f"sqlite:///{db}") as store:
        for thread in (corpus.BAD_IDS_INSIDE, corpus.ESCAPES_THREAD):
            h = build_history(store.timeline(thread))
            data = tree_data(h, h.page(0, 40), h.head)
            texts += [label["text"] for label in data.labels]
            texts += [p[name] for p in data.points for name in ("label", "branch", "namespace", "id", "source", "wrote")]
            assert {(p["ns"], p["checkpoint"]) for p in data.points} <= set(h.nodes)
    assert "subgraph sub-\\xfe (not UTF-8)" in texts
    assert any("\\x1b[2J" in t for t in texts)
    assert not [t for t in texts if not t.isprintable()]
    tooltip = [layer for layer in tree_chart(data)["layer"] if "tooltip" in layer.get("encoding", {})]
    assert {t["field"] for layer in tooltip for t in layer["encoding"]["tooltip"]}.isdisjoint({"ns", "checkpoint"})


def test_branches_are_named_by_their_lane_labels_not_by_a_legend(flow_db):
    with open_store(f"sqlite:///{flow_db}") as store:
        h = build_history(store.timeline("flow-thread"))
    data = tree_data(h, h.page(0, 40), h.head)
    points = next(layer for layer in tree_chart(data)["layer"] if layer["mark"]["type"] == "point")
    assert points["encoding"]["color"]["legend"] is None  # a legend of long names ran off a narrow column
    assert {label["text"] for label in data.labels} == {p["branch"] for p in data.points}
