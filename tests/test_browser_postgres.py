"""The dashboard opened on a PostgreSQL URL (as the read-only role) shows the research thread
as it does on SQLite: thread list, title and messages."""

from __future__ import annotations

import pytest
from browser_helpers import shot, wait_for_app

from inspector.demo import content

pytestmark = pytest.mark.postgres

TITLE = "EV battery chemistries: cost and outlook"
FIRST_ASK = content.RESEARCH_ASK[:60]
SECOND_ASK = "Add a chart of the pack-price trend to the report."


def visible_text(page) -> str:
    return page.locator("[data-testid='stMain']").inner_text()


def open_research(page, base_url: str) -> str:
    page.goto(f"{base_url}/thread?thread=demo-research")
    wait_for_app(page)
    page.get_by_text(SECOND_ASK, exact=False).first.wait_for(timeout=30_000)
    return visible_text(page)


@pytest.fixture(scope="module")
def urls(pg_demo, demo_db, streamlit_app):
    pg, _ = pg_demo
    return {"postgres": streamlit_app(db_url=pg.readonly_dsn), "sqlite": streamlit_app(db_url=f"sqlite:///{demo_db}")}


def test_thread_list_on_postgres(page, urls, pg_demo):
    page.goto(urls["postgres"])
    wait_for_app(page)
    grid = page.locator("[data-testid='stDataFrame']").first
    grid.locator("td", has_text="demo-research").first.wait_for(state="attached", timeout=30_000)
    text = grid.text_content()  # the grid's accessible cells: drawn on a canvas, present in the DOM
    assert TITLE in text and "demo-delta" in text
    sidebar = page.locator("[data-testid='stSidebar']").inner_text()
    assert "postgresql://inspector_ro:***@" in sidebar and "inspector_ro:inspector_ro@" not in sidebar
    shot(page, "postgres-thread-list")


def test_research_thread_on_postgres_shows_what_sqlite_shows(page, urls):
    on_postgres = open_research(page, urls["postgres"])
    shot(page, "postgres-research-thread")
    for needle in ("demo-research", TITLE, FIRST_ASK, SECOND_ASK):
        assert needle in on_postgres, needle
    on_sqlite = open_research(page, urls["sqlite"])
    for needle in ("demo-research", TITLE, FIRST_ASK, SECOND_ASK):
        assert needle in on_sqlite, needle
    assert "Cannot open the store" not in on_postgres
