"""The small text tables (a one-checkpoint thread's history, DeerFlow's ``thread_data`` folders) in Chromium at
1024 and 1440 px: their labels wrap only between words, their values (long ids, paths) break where they must,
and no table sticks out of its column. On the demo and on a one-checkpoint thread with long hostile ids."""

from __future__ import annotations

import sqlite3

import pytest
from browser_helpers import wait_for_app, wait_for_page_css
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from playwright.sync_api import expect

from inspector.ui.inert import TABLE_KEY

TABLES = f"[class*='st-key-{TABLE_KEY}']"
LONG_ID = "hostile-" + "0123456789abcdef" * 16 + "-\u202eevil"  # 270 characters, no space, a bidi override
WIDTHS = (1024, 1440)

# Per table: label cells (header, first column) with a word laid out over more than one line, and how far the
# table sticks out of its container (px).
LAYOUT = """(selector) => Array.from(document.querySelectorAll(selector)).map(box => {
    const broken = [];
    for (const cell of box.querySelectorAll("th, td:first-child")) {
        const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            for (const match of node.data.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(node, match.index);
                range.setEnd(node, match.index + match[0].length);
                const tops = new Set(Array.from(range.getClientRects()).map(r => Math.round(r.top)));
                if (tops.size > 1) broken.push(match[0]);
            }
        }
    }
    const table = box.querySelector("table").getBoundingClientRect();
    const column = box.closest("[data-testid='stColumn'], [data-testid='stMainBlockContainer']").getBoundingClientRect();
    return {labels: Array.from(box.querySelectorAll("th, td:first-child")).map(c => c.innerText.trim()),
            broken, outside: Math.max(0, table.right - column.right)};
})"""


@pytest.fixture(scope="module")
def long_id_url(tmp_path_factory, streamlit_app):
    """A store of one thread with a long hostile id: one checkpoint (written by the saver's own ``put``) holding
    DeerFlow's ``sandbox`` and ``thread_data``, its folders and ids named by that id."""
    path = tmp_path_factory.mktemp("long-ids") / "long-ids.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        root = f"/srv/deer-flow/backend/.deer-flow/threads/{LONG_ID}/user-data"
        values = {"messages": [HumanMessage("hello", id="m-" + LONG_ID)], "title": "long ids",
                  "sandbox": {"sandbox_id": "sb-" + LONG_ID},  # with thread_data: DeerFlow's evidence
                  "thread_data": {f"{area}_path": f"{root}/{area}" for area in ("workspace", "uploads", "outputs")}}
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = values
        checkpoint["channel_versions"] = {name: 1 for name in values}
        SqliteSaver(conn).put({"configurable": {"thread_id": LONG_ID, "checkpoint_ns": ""}}, checkpoint,
                              {"source": "loop", "step": 0, "parents": {}}, checkpoint["channel_versions"])
    finally:
        conn.close()
    return streamlit_app(f"sqlite:///{path}")


def layout_at(page, width: int) -> list[dict]:
    wait_for_page_css(page)
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(300)  # the columns lay out again
    return page.evaluate(LAYOUT, TABLES)


def test_labels_wrap_between_words_on_a_one_checkpoint_thread_with_long_ids(page, long_id_url):
    from urllib.parse import quote

    page.goto(f"{long_id_url}/thread?thread={quote(LONG_ID)}")
    wait_for_app(page, timeout=120_000)
    expect(page.locator(TABLES)).to_have_count(2)  # the history's one checkpoint and thread_data's folders
    expect(page.locator(TABLES).last.locator("td")).to_have_count(9)
    for width in WIDTHS:
        tables = layout_at(page, width)
        assert {"checkpoint", "namespace", "id"} <= set(tables[0]["labels"]), tables[0]
        assert {"area", "virtual", "physical", "workspace", "uploads", "outputs"} <= set(tables[1]["labels"])
        for table in tables:
            assert table["broken"] == [] and table["outside"] <= 1, (width, table)
    # the values still break: the physical path holds the whole long id, and it fits the column
    assert LONG_ID[:40] in page.locator(TABLES).last.inner_text().replace("\n", "")


def test_labels_wrap_between_words_on_the_demo(page, streamlit_app, demo_db):
    page.goto(f"{streamlit_app(f'sqlite:///{demo_db}')}/thread?thread=demo-research")
    wait_for_app(page, timeout=120_000)
    expect(page.locator(TABLES).locator("td")).to_have_count(9)  # thread_data's three folders
    for width in WIDTHS:
        (table,) = layout_at(page, width)
        assert table["broken"] == [] and table["outside"] <= 1, (width, table)
