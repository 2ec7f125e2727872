"""AppTest: the flow on the thread page — steps named by their tasks, the last write of every field, the
flow grid, the graph and the step timeline panels, on the demo store and on a real graph's flow thread."""

from __future__ import annotations

import json
import re

import pytest
from flow_graph import FLOW_THREAD
from ui_app import html_text, open_page

from inspector.history.lineage import build_history
from inspector.store import open_store


def link_labels(at) -> list[str]:
    from ui_app import in_page_links

    return [el.proto.label for el in at.get("page_link")] + list(in_page_links(at))


@pytest.fixture(scope="module")
def vision(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        return build_history(store.timeline("demo-vision"))


@pytest.mark.usefixtures("app_on_demo")
def test_every_field_says_when_and_by_whom_it_was_last_written(vision):
    head = vision.head
    at = open_page("thread", thread="demo-vision", checkpoint=head[1])
    assert not at.exception
    labels = link_labels(at)
    assert "last written at step 7 by view\\_image\\_middleware" in labels or \
        "last written at step 7 by view_image_middleware" in labels, labels
    assert any(label.startswith("last written at step 16 by agent") for label in labels)
    assert any(label.startswith("last written at step 9 by title") for label in labels)


@pytest.mark.usefixtures("app_on_demo")
def test_the_selected_steps_own_write_says_this_step(vision):
    seven = next(k for k in vision.ordered if k[0] == "" and vision.node(k).row.step == 7)
    at = open_page("thread", thread="demo-vision", checkpoint=seven[1])
    assert not at.exception
    captions = [c.value for c in at.caption]
    assert any("last written at step 7 by view" in c and "this step" in c for c in captions), captions


@pytest.mark.usefixtures("app_on_demo")
def test_a_last_written_link_moves_the_page_and_its_url_to_that_step(vision):
    """The link is on the page it leads to: it moves the URL with the view, so a copied link or a reload opens the
    step shown (a page link there showed the step while the URL stayed on the newest)."""
    from ui_app import in_page_links, param

    seven = next(k for k in vision.ordered if k[0] == "" and vision.node(k).row.step == 7)
    at = open_page("thread", thread="demo-vision", checkpoint=vision.head[1])
    label = next(label for label in in_page_links(at) if label.startswith("last written at step 7 by view"))
    in_page_links(at)[label].click().run()
    assert not at.exception, at.exception
    assert param(at, "checkpoint") == seven[1] and param(at, "step") == "7"
    assert any("last written at step 7 by view" in c.value and "this step" in c.value for c in at.caption)
    again = open_page("thread", **{name: param(at, name) for name in ("thread", "checkpoint", "step")})  # a reload
    assert any("last written at step 7 by view" in c.value and "this step" in c.value for c in again.caption)


@pytest.fixture
def app_on_flow(flow_db, app_on_store):
    app_on_store(f"sqlite:///{flow_db}")


@pytest.fixture(scope="module")
def flow_history(flow_db):
    with open_store(f"sqlite:///{flow_db}") as store:
        return build_history(store.timeline(FLOW_THREAD))


def chart_specs(at) -> list[dict]:
    import json

    return [json.loads(el.proto.spec) for el in at.get("arrow_vega_lite_chart")] + \
        [json.loads(el.proto.spec) for el in at.get("vega_lite_chart")]


def chart_data(at) -> list[list[dict]]:
    """The rows of each chart whose data Streamlit sent beside its spec (as Arrow), and of each named dataset."""
    import pyarrow as pa

    charts = at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")
    return [pa.ipc.open_stream(data.data).read_all().to_pylist()
            for el in charts for data in ([el.proto.data] if el.proto.HasField("data") else [])
            + [dataset.data for dataset in el.proto.datasets]]


def layer_rows(chart, layer: int) -> list[dict]:
    """The rows one layer of a chart draws: in its spec, or in the named dataset it names (as Arrow)."""
    import pyarrow as pa

    data = json.loads(chart.proto.spec)["layer"][layer]["data"]
    if "values" in data:
        return data["values"]
    (found,) = [dataset for dataset in chart.proto.datasets if dataset.name == data["name"]]
    return pa.ipc.open_stream(found.data.data).read_all().to_pylist()


def dot_sources(at) -> list[str]:
    return [el.proto.spec for el in at.get("graphviz_chart")]


@pytest.mark.usefixtures("app_on_flow")
def test_graph_panel_draws_the_nodes_and_edges_taken_with_counts(flow_history):
    step2 = next(k for k in flow_history.ordered if k[0] == "" and flow_history.node(k).row.step == 2)
    at = open_page("thread", thread=FLOW_THREAD, checkpoint=step2[1], panel="graph")
    assert not at.exception
    [dot] = dot_sources(at)
    for edge in ('"plan" -> "search" [label="×2", style=dashed', '"search" -> "research" [label="×2"',
                 '"research/gather" -> "research/summarise" [label="×2"', '"__start__" -> "plan" [label="×1"'):
        assert edge in dot, edge
    search = re.search(r'"search" \[label="search\\n×2", fillcolor="(#[0-9a-f]{6})40", color="\1".*class="(n\d+)"', dot)
    assert search, dot  # the node in its colour; lit by the caption's style, which says what it wrote
    assert f"g.node.{search.group(2)} >" in html_text(at) and "Lit: step 2 · search ×2 → found" in html_text(at)
    assert "cluster_0" in dot and "subgraph research (run by node research)" in dot
    assert 'interrupted ×1' in dot and "next" in dot
    assert any("not the code's whole graph" in c.value for c in at.caption)


@pytest.mark.usefixtures("app_on_flow")
def test_flow_grid_colours_each_written_cell_by_its_node(flow_history):
    head = flow_history.head
    at = open_page("thread", thread=FLOW_THREAD, checkpoint=head[1], panel="flow-grid")
    assert not at.exception
    [cells] = [rows for rows in chart_data(at) if rows and "field" in rows[0]]
    by_step = {(c["step"], c["field"]): c["nodes"] for c in cells}
    assert by_step[(0, "topic")] == "__start__" and by_step[(1, "queries")] == "plan"
    assert by_step[(2, "found")] == "search" and by_step[(4, "summary")] == "research"
    assert (3, "found") not in by_step  # the fork's update stored nothing: an empty cell
    assert any("research → found, summary" in m.value for m in at.markdown)  # the selected step's field diff


@pytest.mark.usefixtures("app_on_flow")
def test_step_timeline_names_the_slowest_steps_and_totals_by_node(flow_history):
    at = open_page("thread", thread=FLOW_THREAD, checkpoint=flow_history.head[1], panel="step-timeline")
    assert not at.exception
    assert any(c.value.startswith("2 step(s)") or "step(s) in" in c.value for c in at.caption)
    frames = [df.value for df in at.dataframe]
    totals = next(f for f in frames if "node" in f.columns and "total" in f.columns)
    assert {"plan", "search", "research"} <= set(totals["node"])
