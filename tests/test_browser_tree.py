"""The history tree in Chromium: a checkpoint's label is as clickable as its dot, a step moves the mark in the
drawing the browser has, and the keyboard reaches every checkpoint of the page through the tree's labels."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import wait_for_app
from playwright.sync_api import expect

from inspector.history.lineage import build_history
from inspector.store import open_store

TREE = ".si-tree"  # the history tree (``history_tree``)
THREAD = "demo-research"


@pytest.fixture(scope="module")
def base_url(demo_db, streamlit_app):
    return streamlit_app(db_url=f"sqlite:///{demo_db}")


@pytest.fixture(scope="module")
def path(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        history = build_history(store.timeline(THREAD))
    return history, history.path_through(history.head)


def checkpoint(page) -> str:
    return parse_qs(urlsplit(page.url).query)["checkpoint"][-1]


def row(page, checkpoint_id: str):
    return page.locator(f"{TREE} [data-checkpoint='{checkpoint_id}']")


def test_a_label_selects_its_checkpoint_and_says_what_it_is(page, base_url, path):
    history, keys = path
    target = keys[-5]
    page.goto(f"{base_url}/thread?thread={THREAD}")
    wait_for_app(page, timeout=120_000)
    band = row(page, target[1])
    band.first.wait_for(state="attached")  # the tree draws after the script's run
    assert band.count() == 1, "one clickable row per checkpoint"
    tip = band.locator("title").text_content()  # the browser's tooltip over the row
    assert f"step: {history.node(target).row.step}" in tip and f"checkpoint: {target[1]}" in tip
    band.locator(".si-tree-label").click()  # on the label, right of the dot
    page.wait_for_url(re.compile(f"checkpoint={target[1]}"))
    wait_for_app(page)
    assert checkpoint(page) == target[1]
    expect(page.locator(f"{TREE} .si-tree-selected")).to_have_attribute("data-checkpoint", target[1])


def test_the_keyboard_reaches_and_selects_a_checkpoint(page, base_url, path):
    history, keys = path
    page.goto(f"{base_url}/thread?thread={THREAD}")
    wait_for_app(page, timeout=120_000)
    picker = page.get_by_role("combobox", name=re.compile("the tree's labels"))
    expect(picker.locator("option:checked")).to_have_text(re.compile(r"^\d+ · "))  # the selected (newest) one
    picker.focus()
    page.keyboard.press("ArrowDown")  # the next option of the native list: the checkpoint before it
    page.wait_for_url(re.compile(f"checkpoint={keys[-2][1]}"))
    wait_for_app(page)
    assert checkpoint(page) == keys[-2][1]


def test_stepping_moves_the_mark_in_the_same_drawing_and_a_clicked_point_can_be_clicked_again(page, base_url,
                                                                                                   path):
    """Prev / Next update the tree the browser has (its rows change, the drawing stays); after a click and a
    step, a click on the same point goes back to it."""
    history, keys = path
    target = keys[-5]
    page.goto(f"{base_url}/thread?thread={THREAD}&checkpoint={target[1]}")
    wait_for_app(page, timeout=120_000)
    row(page, target[1]).first.wait_for(state="attached")
    page.locator(TREE).evaluate("svg => { svg.dataset.kept = 'yes'; }")
    page.locator(".st-key-nav_next button:visible").click()
    page.wait_for_url(re.compile(f"checkpoint={keys[-4][1]}"))
    wait_for_app(page)
    # the selected row is marked in the same element: the browser did not build a new tree
    expect(page.locator(f"{TREE}[data-kept='yes']")).to_have_count(1)
    selected = page.locator(f"{TREE} .si-tree-selected")
    expect(selected).to_have_count(1)
    expect(selected).to_have_attribute("data-checkpoint", keys[-4][1])
    expect(selected.locator(".si-tree-label")).to_have_css("font-weight", "600")
    # a click on a point, a step away, and the same click again
    for goal, then in ((keys[-6], keys[-5]), (keys[-6], None)):
        row(page, goal[1]).locator(".si-tree-dot").click()
        page.wait_for_url(re.compile(f"checkpoint={goal[1]}"))
        wait_for_app(page)
        assert checkpoint(page) == goal[1]
        if then is not None:
            page.locator(".st-key-nav_next button:visible").click()
            page.wait_for_url(re.compile(f"checkpoint={then[1]}"))
            wait_for_app(page)


def test_the_branch_slider_moves_one_step_per_key_and_picks_any_step(page, base_url, path):
    """The slider is the browser's own range: its caption names the step under the thumb; an arrow key moves it
    (and the page) one step, not two (the page's Left / Right are off while it has the focus); any step can be
    picked."""
    history, keys = path
    page.goto(f"{base_url}/thread?thread={THREAD}")
    wait_for_app(page, timeout=120_000)
    slider = page.get_by_role("slider", name="Checkpoint on this branch")
    expect(slider).to_have_value(str(len(keys) - 1))
    newest = history.node(keys[-1]).row.step
    expect(page.locator(".si-scrub-value")).to_have_text(re.compile(f"^step {newest} · "))
    slider.focus()
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(f"checkpoint={keys[-2][1]}"))
    wait_for_app(page)
    assert checkpoint(page) == keys[-2][1]
    expect(slider).to_have_value(str(len(keys) - 2))
    expect(page.locator(".si-scrub-value")).to_have_text(re.compile(f"^step {history.node(keys[-2]).row.step}\\b"))
    slider.fill("0")
    page.wait_for_url(re.compile(f"checkpoint={keys[0][1]}"))
    wait_for_app(page)
    assert checkpoint(page) == keys[0][1]
    expect(page.get_by_role("combobox", name=re.compile("the tree's labels")).locator("option:checked")) \
        .to_have_text(re.compile(f"^{history.node(keys[0]).row.step} · "))


def test_on_another_page_of_the_history_the_list_says_the_selected_checkpoint_is_not_in_it(page, base_url):
    page.goto(f"{base_url}/thread?thread=demo-long")
    wait_for_app(page, timeout=120_000)
    listed = page.get_by_role("combobox", name=re.compile("the tree's labels"))
    expect(listed.locator("option:checked")).to_have_text(re.compile(r"^\d+ · "))
    number = page.get_by_label(re.compile(r"^History page \(of \d+, newest first\)"))
    number.fill("2")
    number.press("Enter")
    expect(listed.locator("option:checked")).to_have_text("Choose a checkpoint of this page")
    assert listed.locator("option:checked").get_attribute("disabled") is not None
    first = listed.locator("option:not([disabled])").first.inner_text()
    listed.select_option(index=1)  # the page's newest checkpoint
    page.wait_for_url(re.compile(f"step={first.split(' · ')[0]}(&|$)"))
    wait_for_app(page)
    expect(listed.locator("option:checked")).to_have_text(first)
