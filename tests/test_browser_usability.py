"""The pages as a support person and an engineer use them, in Chromium at 1440x900 and 1024x768: a search
that keeps every query, findings that open their checkpoint, units on numbers, the replay verdict's look,
files that open, text shown as text, the Diff page's range, and a layout that holds at 1024 px.

One server on the demo store for the module; each test loads few pages and checks what each load shows."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import wait_for_app
from playwright.sync_api import expect

from inspector.history.lineage import build_history
from inspector.store import open_store

TABLE = "[data-testid='stDataFrame']"
ROW_HEIGHT = 35
VIEWPORTS = {"1440": {"width": 1440, "height": 900}, "1024": {"width": 1024, "height": 768}}


@pytest.fixture(scope="module")
def base_url(demo_db, streamlit_app):
    return streamlit_app(db_url=f"sqlite:///{demo_db}")


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as s:
        yield s


@pytest.fixture(params=list(VIEWPORTS))
def sized(page, request):
    page.set_viewport_size(VIEWPORTS[request.param])
    page.width = VIEWPORTS[request.param]["width"]
    return page


def params(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


def search(page, text: str) -> None:
    box = page.get_by_role("textbox", name="Search")
    box.fill(text)
    box.press("Enter")
    wait_for_app(page)
    expect(box).to_have_value(text)


def listed(page, expected: list[str], timeout: float = 15) -> list[str]:
    """The thread ids in the list once they equal ``expected`` (the grid redraws a moment after the run)."""
    deadline = time.monotonic() + timeout
    while True:
        page.locator(TABLE).first.wait_for()
        cells = page.locator(TABLE).first.locator("[role=gridcell]").all_inner_texts()
        shown = [c for c in cells if c.startswith("demo-")]
        if shown == expected or time.monotonic() > deadline:
            return shown
        page.wait_for_timeout(200)


def test_search_keeps_every_query_and_back_returns_to_the_list(sized, base_url, store):
    page = sized
    page.goto(f"{base_url}/threads?sort=checkpoints")
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Threads")).to_be_visible()
    # the alternating sequence that used to snap back to the query before
    for text in ("demo-research", "research", "vision", "demo", "demo-research", "research"):
        search(page, text)
        assert params(page) == {"q": text, "sort": "checkpoints"}, text
    # what the list shows: a title, a checkpoint id
    search(page, "EV battery")
    assert listed(page, ["demo-research"]) == ["demo-research"]
    middle = store.timeline("demo-vision")[5].checkpoint_id
    search(page, middle)
    assert listed(page, ["demo-vision"]) == ["demo-vision"]
    # nothing found: said, with a way to clear it
    search(page, "no-such-thread-anywhere")
    expect(page.get_by_text("No thread matches “no-such-thread-anywhere”")).to_be_visible()
    assert page.locator(TABLE).count() == 0
    page.get_by_role("button", name="Clear the search").click()
    wait_for_app(page)
    expect(page.get_by_role("textbox", name="Search")).to_have_value("")
    assert params(page) == {"sort": "checkpoints"}
    # open a thread from the list, then one Back shows the list as it was
    search(page, "vision")
    box = page.locator(TABLE).bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + ROW_HEIGHT * 1.5)
    page.get_by_role("heading", name="demo-vision").wait_for()
    wait_for_app(page)
    head = build_history(store.timeline("demo-vision")).head
    assert urlsplit(page.url).path.endswith("/thread") and params(page)["checkpoint"] == head[1]
    page.go_back()
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Threads")).to_be_visible()
    expect(page.get_by_role("textbox", name="Search")).to_have_value("vision")
    assert params(page) == {"q": "vision", "sort": "checkpoints"}
    assert listed(page, ["demo-vision"]) == ["demo-vision"]
