"""The dashboard in Chromium against `streamlit run app.py`: what a person sees and clicks."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import shot, wait_for_app
from playwright.sync_api import expect

from inspector.history.attribution import attribute_keys
from inspector.history.checkpoint_kinds import step_label
from inspector.history.lineage import build_history
from inspector.state.conversation import conversation, counts
from inspector.state.todos import todo_board
from inspector.store import open_store
from inspector.ui.timeline_view import LABEL_CHARS

TABLE = "[data-testid='stDataFrame']"
ROW_HEIGHT = 35  # Streamlit's default data grid row height, header included


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as s:
        yield s


@pytest.fixture(scope="module")
def base_url(demo_db, streamlit_app):
    return streamlit_app(db_url=f"sqlite:///{demo_db}")


def open_url(page, url):
    page.goto(url)
    wait_for_app(page)


TREE = ".si-tree"  # the history tree (``history_tree``)


def point(page, checkpoint_id):
    """The dot of a checkpoint in the history tree."""
    return page.locator(f"{TREE} [data-checkpoint='{checkpoint_id}'] .si-tree-dot")


def select_point(page, checkpoint_id):
    """Click a checkpoint in the tree and wait for the page to show it."""
    point(page, checkpoint_id).click()
    page.wait_for_url(re.compile(f"checkpoint={checkpoint_id}"))
    wait_for_app(page)


def params(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


def conversation_caption(state) -> str:
    return " · ".join(f"{n} {role}" for role, n in counts(conversation(state.values["messages"])).items() if n)


def test_threads_page_opens_the_research_thread(page, base_url, store):
    open_url(page, base_url)
    table = page.locator(TABLE).first  # the thread list (the waiting list's table follows it)
    table.locator("[role=gridcell]").first.wait_for(state="attached")
    shot(page.locator("[data-testid='stMainBlockContainer']"), "threads-page")
    # The demo holds more threads than the grid draws at once: the search in the URL brings the one asked for up.
    open_url(page, f"{base_url}/?q=demo-research")
    table.locator("[role=gridcell]").filter(has_text="demo-research").first.wait_for(state="attached")
    cells = table.locator("[role=gridcell]").all_inner_texts()
    columns = len(table.locator("[role=columnheader]").all_inner_texts())
    assert "demo-research" in cells and "EV battery chemistries: cost and outlook" in cells
    index = cells.index("demo-research") // columns
    box = table.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + ROW_HEIGHT * (index + 1) + ROW_HEIGHT / 2)  # the row's selector
    wait_for_app(page)
    page.get_by_role("heading", name="demo-research").wait_for()
    wait_for_app(page)
    history = build_history(store.timeline("demo-research"))
    head = history.head
    # The search is carried along, so the list comes back as it was left.
    assert params(page) == {"thread": "demo-research", "checkpoint": head[1], "step": str(history.node(head).row.step),
                            "q": "demo-research"}
    assert urlsplit(page.url).path.endswith("/thread")


def navigator_label(store, history, key) -> str:
    """The navigator's name of a step: the one attribution (the node that ran and the fields it wrote)."""
    label = f"step {step_label(history, key, attribute_keys(store, history, [key])[key])}"
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def test_select_a_middle_checkpoint_then_share_the_link(page, browser, base_url, store):
    history = build_history(store.timeline("demo-research"))
    path = history.path_through(history.head)
    middle = path[len(path) // 2]
    row = history.node(middle).row
    state = store.state("demo-research", middle[1])
    board = todo_board(state.values.get("todos"))
    assert any(board.values()), "the middle checkpoint of demo-research has todos"

    open_url(page, f"{base_url}/thread?thread=demo-research")
    select_point(page, middle[1])
    label = navigator_label(store, history, middle)
    assert row.source not in label.split(" · ")[1], "the step is named by its node, not by LangGraph's source"
    main = page.locator("[data-testid='stMainBlockContainer']")
    expect(main.get_by_text(label, exact=True).first).to_be_visible()
    expect(page.get_by_text(conversation_caption(state), exact=True)).to_be_visible()
    first_todo = next(t for items in board.values() for t in items)
    todos = page.locator(".st-key-field-todos")
    expect(todos.get_by_text(first_todo.text).first).to_be_visible()
    shot(page, "thread-page")
    shot(page.locator("[data-testid='stChatMessage'], .si-msg").first, "thread-message")
    shot(todos, "thread-todos")

    fresh = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        other = fresh.new_page()
        open_url(other, page.url)
        assert params(other)["checkpoint"] == middle[1]
        expect(other.locator("[data-testid='stMainBlockContainer']").get_by_text(label, exact=True).first).to_be_visible()
        expect(other.get_by_text(conversation_caption(state), exact=True)).to_be_visible()
        assert other.locator("[data-testid='stException']").count() == 0
    finally:
        fresh.close()


def test_fork_thread_shows_both_branches_in_the_tree(page, base_url, store):
    history = build_history(store.timeline("demo-time-travel"))
    assert len(history.branches) == 2
    open_url(page, f"{base_url}/thread?thread=demo-time-travel")
    chart = page.locator(TREE)
    chart.wait_for()
    labels = chart.locator("text").all_text_contents()
    assert "main" in labels and "fork at step 6" in labels
    for branch in history.branches:  # every checkpoint of both branches is drawn
        for key in branch.keys:
            assert point(page, key[1]).count() == 1
    shot(chart, "fork-tree")
    # pick the head of the other branch in the tree
    other_head = history.branches[1].head
    select_point(page, other_head[1])
    assert params(page)["checkpoint"] == other_head[1]
    expect(page.get_by_text(navigator_label(store, history, other_head), exact=True).first).to_be_visible()


def test_interrupted_thread_shows_its_pending_question(page, base_url, store):
    open_url(page, f"{base_url}/thread?thread=demo-interrupt")
    question = page.locator(".st-key-pending-question-0")
    question.wait_for()
    assert re.search(r"Which city .*\?", question.inner_text())
    shot(question, "pending-question")


def test_bad_deep_link_shows_a_message_and_a_way_back(page, base_url):
    open_url(page, f"{base_url}/thread?thread=demo-research&checkpoint=nope")
    expect(page.locator("[data-testid='stAlert']").filter(has_text="nope")).to_be_visible()
    page.get_by_role("link", name="Back to the thread list").click()
    wait_for_app(page)
    page.locator(TABLE).first.wait_for()
    expect(page.get_by_role("heading", name="Threads")).to_be_visible()
    assert urlsplit(page.url).path in ("/", "/threads")  # the thread list is the default page
    assert "checkpoint" not in params(page)
