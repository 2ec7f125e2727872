"""The Health page's growth in Chromium: the chart drawn, the disk-budget forecast and the leftovers."""

from __future__ import annotations

import re

import pytest
from browser_helpers import shot, wait_for_app
from growth_store import LATE

NOW = LATE  # pinned: what the tests assert holds whatever the hour they run at


@pytest.fixture(scope="module")
def sqlite_growth(growth_sqlite):
    return growth_sqlite(NOW)


def test_growth_chart_is_drawn_in_the_browser(sqlite_growth, streamlit_app, page):
    url = streamlit_app(f"sqlite:///{sqlite_growth}", env={"INSPECTOR_DISK_BUDGET_BYTES": "5000000"})
    page.goto(f"{url}/health")
    wait_for_app(page, timeout=120_000)
    heading = page.get_by_role("heading", name="Growth")
    heading.wait_for(timeout=60_000)
    charts = page.locator("[data-testid='stVegaLiteChart']")
    charts.nth(1).wait_for(timeout=60_000)  # bytes per field, then growth
    assert charts.nth(1).locator("canvas, svg").count() > 0
    assert page.get_by_text("Disk budget passed").count() == 1
    assert page.get_by_text(re.compile(r"Forecast: passes the budget of 5\.00 MB in")).count() == 1
    assert page.get_by_role("heading", name="Leftovers").count() == 1
    shot(page.locator("[data-testid='stMainBlockContainer']"), "health-growth")
