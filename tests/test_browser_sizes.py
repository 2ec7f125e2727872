"""What a person sees: the oversize flag in the thread list, the size chart, the Health page."""

import re

import pytest
from browser_helpers import chart_tooltip, choose_panel, shot, wait_for_app
from playwright.sync_api import expect

CHART = "[data-testid='stVegaLiteChart']"


@pytest.fixture(scope="module")
def app_url(streamlit_app, demo_db):
    return streamlit_app(f"sqlite:///{demo_db}")


def test_thread_list_flags_the_bloated_thread(page, app_url):
    page.goto(app_url)
    wait_for_app(page, timeout=120_000)
    table = page.locator("[data-testid='stDataFrame']").first
    table.locator("[role=gridcell]").filter(has_text="demo-bloated").first.wait_for(state="attached", timeout=60_000)
    headers = table.locator("[role=columnheader]").all_inner_texts()
    cells = table.locator("[role=gridcell]").all_inner_texts()
    row = cells.index("demo-bloated") // len(headers)
    flags = cells[row * len(headers) + [h.strip() for h in headers].index("flags")]
    assert "oversized-state" in flags
    note = page.locator(".st-key-flagged_threads")  # the line, its links to each flagged thread in it
    note.get_by_text(re.compile(r"flagged:")).wait_for(timeout=30_000)
    text = note.inner_text()
    assert re.search(r"demo-bloated \([^)]*oversized-state", text)
    assert "demo-research" not in text
    shot(page.locator("[data-testid='stMainBlockContainer']"), "sizes-thread-list")


def test_bloated_thread_shows_the_size_chart_over_the_threshold(page, app_url):
    page.goto(f"{app_url}/thread?thread=demo-bloated")
    wait_for_app(page, timeout=120_000)
    choose_panel(page, "Size")
    panel = page.locator("[data-testid='stMain']")
    chart = panel.locator(CHART).first  # the history tree beside it is drawn as SVG, not a chart
    chart.wait_for(timeout=60_000)
    assert chart.locator("canvas, svg").count() > 0
    alert = panel.get_by_text(re.compile(r"State passes the 1\.00 MB limit at step 13"))
    assert alert.count() == 1
    shot(chart, "sizes-bloated-chart")


def test_health_page_ranks_threads_and_lists_flags(page, app_url):
    page.goto(f"{app_url}/health")
    wait_for_app(page, timeout=120_000)
    page.locator(CHART).first.wait_for(timeout=60_000)
    expect(page.get_by_text("Threads flagged")).to_have_count(1)  # the metrics row may draw after the chart
    expanders = page.locator("[data-testid='stExpander']")
    titles = " ".join(expanders.all_inner_texts())
    assert "oversized-state" in titles and "base64-in-state" in titles
    assert "uncleared-images" in titles
    # The growth chart (the demo is written today: one bar, the tallest) speaks in a unit and in dates.
    tip = chart_tooltip(page, page.locator(CHART).nth(1))
    assert re.search(r"day\s+\d{4}-\d\d-\d\d UTC\s+stored\s+[\d.]+ MB\s+bytes\s+\d{1,3}(,\d{3})+\s+checkpoints", tip), tip
    page.mouse.move(0, 0)
    shot(page.locator("[data-testid='stMainBlockContainer']"), "sizes-health-page")
