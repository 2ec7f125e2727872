"""AppTest: the presenter view (``present=1``: one row of controls and the frame, every move keeping the view,
its profile and its graph mode in the URL; Leave goes back), the Graph panel's two modes and the step timeline's
lanes, on the demo store and on a real graph's flow thread."""

from __future__ import annotations

import re

import pytest
from flow_graph import FLOW_THREAD
from ui_app import html_text, open_page


def params(at) -> dict[str, str]:
    return {k: at.query_params[k][0] if isinstance(at.query_params[k], list) else at.query_params[k]
            for k in at.query_params}


def dot(at) -> str:
    [spec] = [el.proto.spec for el in at.get("graphviz_chart")]
    return spec


@pytest.mark.usefixtures("app_on_demo")
def test_the_presenter_view_is_one_row_of_controls_and_the_frame_and_keeps_the_view_in_the_url():
    at = open_page("thread", thread="demo-research", step="6", present="1", profile="langgraph")
    assert not at.exception, at.exception
    assert not at.title and not at.selectbox  # no title, header or profile picker: the frame fills the screen
    keys = {b.key for b in at.button}
    assert {"nav_play", "nav_prev", "nav_next", "present_leave"} <= keys and "present_enter" not in keys
    assert {s.key for s in at.segmented_control} == {"play_speed", "play_show", "graph_mode"}
    frame = html_text(at)
    assert 'data-step="6"' in frame and ">tools</span>" in frame and "What the state became" in frame
    lit = re.search(r'"tools" \[label="tools\\n×\d+".*class="(n\d+)"', dot(at)).group(1)
    assert f"g.node.{lit} >" in frame  # the graph beside it, the step's node lit
    at.button(key="nav_next").click().run(timeout=120)
    assert not at.exception, at.exception
    assert params(at)["step"] == "7" and params(at)["present"] == "1" and params(at)["profile"] == "langgraph"
    at.segmented_control(key="graph_mode").set_value("Expanded").run(timeout=120)
    assert params(at)["graph"] == "expanded" and 'class="k' in dot(at) and "7 · view_image_middleware" in dot(at)
    at.button(key="nav_play").click().run(timeout=120)  # Play in the presenter view: the same frames
    assert not at.exception, at.exception
    assert at.button(key="nav_play").label == "Pause" and 'class="si-frame"' in html_text(at)
    at.button(key="present_leave").click().run(timeout=120)
    assert not at.exception, at.exception
    assert "present" not in params(at) and params(at)["profile"] == "langgraph" and at.title
    at.button(key="present_enter").click().run(timeout=120)
    assert params(at)["present"] == "1" and not at.title


@pytest.fixture
def app_on_flow(flow_db, app_on_store):
    app_on_store(f"sqlite:///{flow_db}")


@pytest.mark.usefixtures("app_on_flow")
def test_the_graph_panel_draws_the_thread_aggregated_or_its_steps_expanded_and_the_timeline_its_lanes(flow_db):
    at = open_page("thread", thread=FLOW_THREAD, step="2", panel="graph")
    assert not at.exception, at.exception
    aggregated = dot(at)
    assert "rankdir=TB" in aggregated and '"plan" -> "search"' in aggregated  # top to bottom: it fits a column
    at.query_params["step"] = "4"
    at.query_params.pop("checkpoint", None)
    at.run(timeout=120)
    assert dot(at) == aggregated, "the graph's DOT does not depend on the step: no node moves"
    at.segmented_control(key="graph_mode").set_value("Expanded").run(timeout=120)
    expanded = dot(at)
    assert "2 · search" in expanded and "1 · plan" in expanded and '"plan" -> "search"' not in expanded
    assert re.search(r'g\.node\.k\d+ >', html_text(at)) and "Lit: step 4 · research" in html_text(at)
    at.query_params["panel"] = "step-timeline"
    at.run(timeout=120)
    assert not at.exception, at.exception
    import json

    [spec] = [json.loads(el.proto.spec) for el in at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")
              if "step" in el.proto.spec and "took" in el.proto.spec]
    lanes = spec["layer"][0]["encoding"]["y"]["sort"]
    assert "search" in lanes and "search #2" in lanes
