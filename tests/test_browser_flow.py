"""The flow panels in a real Chromium: the graph drawn by Streamlit's own Graphviz renderer with no request
leaving the machine, the flow grid and the step timeline, on the demo store."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from browser_helpers import shot, wait_for_app

from inspector.history.lineage import build_history
from inspector.store import open_store

LOCAL = {"127.0.0.1", "localhost", "::1"}


@pytest.fixture
def outside(page):
    """Every request the page makes that would leave localhost: recorded and aborted."""
    left: list[str] = []

    def route(request_route):
        url = request_route.request.url
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname not in LOCAL:
            left.append(url)
            request_route.abort()
        else:
            request_route.continue_()

    page.route("**/*", route)
    return left


def step_key(demo_db, thread_id: str, step: int) -> str:
    with open_store(str(demo_db)) as store:
        history = build_history(store.timeline(thread_id))
    return next(k for k in history.ordered if k[0] == "" and history.node(k).row.step == step)[1]


def panel_column(page):
    """The thread page's right-hand column: the panel picker and the panel."""
    return page.locator("[data-testid='stColumn']").filter(has=page.locator("[data-testid='stButtonGroup']")).last


def open_panel(page, base: str, thread_id: str, checkpoint: str, panel: str) -> None:
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.goto(f"{base}/thread?thread={thread_id}&checkpoint={checkpoint}&panel={panel}")
    wait_for_app(page, timeout=120_000)


def test_graph_renders_locally_with_the_step_highlighted(page, streamlit_app, demo_db, outside):
    base = streamlit_app(f"sqlite:///{demo_db}")  # the demo server the other browser tests use
    open_panel(page, base, "demo-research", step_key(demo_db, "demo-research", 6), "graph")
    chart = page.locator("[data-testid='stGraphVizChart']")
    chart.locator("svg g.node").first.wait_for(timeout=60_000)
    texts = chart.locator("svg").text_content()
    for name in ("agent", "tools", "view_image_middleware", "__start__", "__end__", "×9", "×7"):
        assert name in texts, name
    assert chart.locator("svg g.node").count() >= 9 and chart.locator("svg g.edge").count() >= 9
    lit = page.evaluate("""() => Array.from(document.querySelectorAll("[data-testid='stGraphVizChart'] g.node"))
      .filter(g => getComputedStyle(g.querySelector('path, polygon, ellipse')).strokeWidth === '3px')
      .map(g => g.querySelector('title').textContent)""")
    assert lit == ["tools"]  # the step's node, lit; what it wrote is said under the graph
    assert "Lit: step 6 · tools → messages, todos" in page.locator("[data-testid='stMainBlockContainer']").inner_text()
    shot(chart, "flow-graph")
    assert outside == []


def test_flow_grid_and_step_timeline_render(page, streamlit_app, demo_db, outside):
    base = streamlit_app(f"sqlite:///{demo_db}")
    head = step_key(demo_db, "demo-research", 20)
    open_panel(page, base, "demo-research", head, "flow-grid")
    grid = page.locator("[data-testid='stVegaLiteChart']").last
    grid.wait_for(timeout=60_000)
    body = page.locator("[data-testid='stMainBlockContainer']").inner_text()
    assert "each cell is the node that wrote that field in that step" in body
    assert "20 · agent → messages" in body  # the selected step's diff of the field it wrote
    shot(panel_column(page), "flow-grid")
    page.locator("g.mark-rect path[aria-label*='field: todos']").first.click()  # the first step that wrote todos
    # the click reruns the step's fragment, which moves the page to step 6: wait for the URL, then for the diff
    page.wait_for_url(re.compile(f"checkpoint={step_key(demo_db, 'demo-research', 6)}"), timeout=60_000)
    wait_for_app(page, timeout=120_000)
    page.wait_for_function("""() => document.querySelector("[data-testid='stMainBlockContainer']")
        .innerText.replace(/\\s+/g, " ").includes("field todos written by tools")""", timeout=60_000)
    body = page.locator("[data-testid='stMainBlockContainer']").inner_text()
    assert "6 · tools → messages, todos" in body and "field todos written by tools" in body.replace("\n", " ")
    open_panel(page, base, "demo-research", head, "step-timeline")
    page.get_by_text("Time by node").wait_for(timeout=60_000)
    body = page.locator("[data-testid='stMainBlockContainer']").inner_text()
    assert "Slowest steps" in body and "most time:" in body
    shot(panel_column(page), "step-timeline")
    assert outside == []
