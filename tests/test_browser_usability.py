"""The pages as a support person and an engineer use them, in Chromium at 1440x900 and 1024x768: a search
that keeps every query, findings that open their checkpoint, units on numbers, the replay verdict's look,
files that open, text shown as text, the Diff page's range, and a layout that holds at 1024 px.

One server on the demo store for the module; each test loads few pages and checks what each load shows."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from browser_helpers import MAIN, cut_controls, layout_shot, open_play_settings, wait_for_app
from playwright.sync_api import expect

from inspector.history.lineage import build_history
from inspector.store import open_store

TABLE = "[data-testid='stDataFrame']"
ROW_HEIGHT = 35
expect.set_options(timeout=30_000)  # a busy machine: other suites run beside this one
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
    # every sort and status option whole inside its column, none squeezed or cut by the column beside (at 1024 px too)
    options = "[data-testid='stMain'] [data-testid='stColumn'] [role='radiogroup'] button"
    expect(page.locator(options)).to_have_count(8)  # sort by (3) and status (5), drawn
    cut = page.evaluate("""(options) => Array.from(document.querySelectorAll(options))
      .filter(b => b.getBoundingClientRect().right > b.closest('[data-testid=stColumn]').getBoundingClientRect().right + 0.5
                   || b.scrollWidth > b.clientWidth + 1)
      .map(b => b.innerText)""", options)
    assert cut == []
    # the alternating sequence that used to snap back to the query before
    for text in ("demo-research", "research", "vision", "demo", "demo-research", "research"):
        search(page, text)
        until_url(page, re.compile(f"[?&]q={text}(&|$)"), timeout=20)
        assert params(page) == {"q": text, "sort": "checkpoints"}, text
        expect(page.get_by_role("textbox", name="Search")).to_have_value(text)  # and it stays
    # what the list shows: a title, a checkpoint id
    search(page, "EV battery")  # its title first (best match first); a thread whose messages hold the words after
    assert listed(page, ["demo-research", "demo-subgraph"])[0] == "demo-research"
    middle = store.timeline("demo-vision")[5].checkpoint_id
    search(page, middle)
    assert listed(page, ["demo-vision"]) == ["demo-vision"]
    # nothing found: said, with a way to clear it
    search(page, "no-such-thread-anywhere")
    expect(page.get_by_text("No thread matches “no-such-thread-anywhere”")).to_be_visible()
    waiting = page.locator(f"[data-testid='stExpanderDetails'] {TABLE}").count()  # the waiting list stays
    assert page.locator(TABLE).count() == waiting  # and no thread list
    page.get_by_role("button", name="Clear the search").click()
    wait_for_app(page)
    expect(page.get_by_role("textbox", name="Search")).to_have_value("")
    assert params(page) == {"sort": "checkpoints"}
    # open a thread from the list, then one Back shows the list as it was
    search(page, "vision")
    box = page.locator(TABLE).first.bounding_box()
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


def until_url(page, pattern: re.Pattern, timeout: float = 60) -> None:
    """Wait until the URL matches (a page link moves on without a load event)."""
    deadline = time.monotonic() + timeout
    while not pattern.search(page.url):
        assert time.monotonic() < deadline, f"the URL stayed {page.url}"
        page.wait_for_timeout(200)


def link_to(page, checkpoint_id: str, panel: str):
    return page.locator(f"{MAIN} a[href*='checkpoint={checkpoint_id}'][href*='panel={panel}']").first


def test_thread_page_header_tabs_units_and_the_size_warning_link(sized, base_url, store, tmp_path):
    """demo-bloated's Size panel: nothing cut at this width, read-only said, units shown, and the warning's
    step opens that checkpoint with the Size panel still open."""
    page = sized
    page.goto(f"{base_url}/thread?thread=demo-bloated&panel=size")
    wait_for_app(page, timeout=120_000)
    expect(page.get_by_text("Stored", exact=True).first).to_be_visible(timeout=120_000)
    expect(page.locator(f"{MAIN} [data-testid='stMarkdownContainer']").filter(has_text="Read-only").first).to_be_visible()
    expect(page.get_by_text("since step -1").first).to_be_visible()  # the growth names its baseline
    # the panel tabs and the history's Tree / Table, every option on screen (the step may still be drawing them)
    expect(page.locator(".st-key-thread_panel_tabs [data-testid='stButtonGroup'] button")).to_have_count(8)
    expect(page.locator(".st-key-history_view button")).to_have_count(2)  # drawn after the panel
    tabs = page.locator("[data-testid='stButtonGroup'] button")
    assert tabs.count() >= 10 and all(tabs.nth(i).is_visible() for i in range(tabs.count()))
    assert cut_controls(page) == []
    if page.width == 1024:
        for within, name in ((".st-key-thread_header", "thread-header-1024"),
                             (".st-key-thread_panel_tabs", "panel-tabs-1024")):
            layout_shot(page, within, name, tmp_path)
    # Play's speed and view: in the popover beside Play, which names them
    expect(page.locator(".st-key-nav_settings button:visible").first).to_contain_text("1 step/s · the diff")
    open_play_settings(page)
    speeds = page.locator(".st-key-play_speed button").filter(has_text=re.compile(r"steps?/s$"))
    expect(speeds).to_have_count(4)
    assert all(speeds.nth(i).is_visible() for i in range(4))  # every Play speed on screen
    assert cut_controls(page, ".st-key-nav_choices") == []
    if page.width == 1024:
        layout_shot(page, ".st-key-nav_choices", "play-choices-1024", tmp_path)
    page.keyboard.press("Escape")
    expect(page.locator(".st-key-nav_choices")).to_be_hidden()
    rows = sorted((r for r in store.timeline("demo-bloated") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    from inspector.settings import Settings
    from inspector.sizes.accounting import measure_thread
    from inspector.sizes.chart import first_over

    report = measure_thread(store, "demo-bloated")
    crossing = report.checkpoints[first_over(report, Settings().oversize_state_bytes)]
    assert crossing.checkpoint_id in {r.checkpoint_id for r in rows}
    # on the thread page itself the step is a link-styled button that moves the page
    link = page.locator(f"{MAIN} [data-testid='stAlert']").filter(has_text="passes the").locator("xpath=following::button[1]")
    expect(link).to_have_text(re.compile(f"step {crossing.step}$"))
    link.click()
    until_url(page, re.compile(f"checkpoint={crossing.checkpoint_id}"))
    wait_for_app(page, timeout=120_000)
    assert params(page) == {"thread": "demo-bloated", "checkpoint": crossing.checkpoint_id, "panel": "size",
                            "step": str(crossing.step)}
    expect(page.locator(".si-scrub-value").first).to_have_text(re.compile(f"step {crossing.step}\\b"))
    # the size chart's axes in the timeline's terms
    spec_text = page.locator("[data-testid='stVegaLiteChart']").last.inner_text()
    assert "stored MB per checkpoint" in spec_text and "step (oldest first)" in spec_text


def test_image_history_and_replay_verdict_open_and_look_alike(sized, base_url, store):
    """demo-vision: "ended at step N · cleared" links to that step with the diff open, whose replay box is
    green with what was checked; the thread-wide replay box beside the history looks the same."""
    page = sized
    page.goto(f"{base_url}/thread?thread=demo-vision&panel=images-over-time")
    wait_for_app(page, timeout=120_000)
    cleared = page.locator(f"{MAIN} button").filter(has_text=re.compile(r"step \d+: .* cleared")).first
    expect(cleared).to_be_visible(timeout=120_000)
    step = int(re.search(r"step (\d+)", cleared.inner_text()).group(1))
    cleared.click()
    until_url(page, re.compile("panel=diff-vs-parent"))
    wait_for_app(page, timeout=120_000)
    shown = params(page)["checkpoint"]
    assert next(r for r in store.timeline("demo-vision") if r.checkpoint_id == shown).step == step
    expect(page.get_by_text("viewed_images").first).to_be_visible()
    verdict = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text="Replay matches").first
    expect(verdict).to_be_visible()
    expect(page.get_by_text(re.compile("^What was checked: each step's stored writes")).first).to_be_visible()
    page.get_by_text("Check every step's replay").click()
    wait_for_app(page, timeout=120_000)
    boxes = page.locator("[data-testid='stAlertContentSuccess']").filter(has_text="Replay matches")
    expect(boxes).to_have_count(2)
    assert "step(s) replayed" in boxes.first.inner_text() + boxes.last.inner_text()
    assert cut_controls(page) == []


def test_health_flags_and_table_open_their_thread(sized, base_url, store, tmp_path):
    page = sized
    page.goto(f"{base_url}/health")
    wait_for_app(page, timeout=180_000)
    flag = page.locator("[data-testid='stExpander'] summary").filter(has_text="oversized-state").first
    expect(flag).to_be_visible(timeout=180_000)
    # the metrics whole at this width: "20.34 MB", never "20.22 …"
    metrics = page.locator(".st-key-health_metrics [data-testid='stMetricValue']")
    expect(metrics.first).to_have_text(re.compile(r"^\d+(\.\d+)? (B|KB|MB|GB)$"))
    expect(metrics).to_have_count(4)
    assert cut_controls(page) == []
    if page.width == 1024:
        layout_shot(page, ".st-key-health_metrics", "health-metrics-1024", tmp_path)
    flag.click()
    link = page.locator("[data-testid='stExpander']").filter(has_text="oversized-state").first.locator(
        "[data-testid='stPageLink'] a").filter(has_text=re.compile(r"step -?\d+$")).first
    expect(link).to_be_visible(timeout=30_000)
    step = int(re.search(r"step (-?\d+)", link.inner_text()).group(1))
    linked = {k: v[-1] for k, v in parse_qs(urlsplit(link.get_attribute("href")).query).items()}
    assert linked["step"] == str(step) and linked["panel"] == "size" and linked["checkpoint"]
    entries = page.evaluate("history.length")
    # the charts above the flags drawn first: a chart drawn later moves the link from under the pointer
    page.wait_for_function("() => Array.from(document.querySelectorAll(\"[data-testid='stVegaLiteChart']\"))"
                           ".every(c => c.querySelector('canvas, svg'))", timeout=60_000)
    link.click()
    until_url(page, re.compile("/thread\\?"))
    wait_for_app(page, timeout=120_000)
    assert params(page) == linked  # the link named the view whole: the page had nothing to add
    assert page.evaluate("history.length") == entries + 1  # so one Back undoes it
    expect(page.locator(".si-scrub-value").first).to_have_text(re.compile(f"step {step}\\b"))
    page.go_back()
    wait_for_app(page, timeout=180_000)
    table = page.locator(TABLE).first
    table.wait_for()
    box = table.bounding_box()
    page.mouse.click(box["x"] + 12, box["y"] + ROW_HEIGHT * 1.5)  # the largest thread
    until_url(page, re.compile("/thread\\?"))
    wait_for_app(page, timeout=120_000)
    head = build_history(store.timeline("demo-bloated")).head
    step = next(r.step for r in store.timeline("demo-bloated") if r.checkpoint_id == head[1])
    assert params(page) == {"thread": "demo-bloated", "checkpoint": head[1], "step": str(step), "panel": "size"}
    expect(page.get_by_role("heading", name="demo-bloated")).to_be_visible()


def test_diff_page_picker_range_and_ways_back_then_retention_words(sized, base_url, store, tmp_path):
    """/diff with no thread: pick one by typing part of its title, From left of To on the newest step that
    wrote something; a typed id that is no thread is said, with a way back to the list. /retention?keep=abc
    names the parameter and asks for a policy in the page's words."""
    from inspector.history.thread_history import ThreadHistory

    page = sized
    page.goto(f"{base_url}/diff")
    wait_for_app(page)
    expect(page.get_by_text("Choose a thread above").first).to_be_visible()
    picker = page.locator(".st-key-diff_thread input")
    picker.click()
    picker.fill("EV batt")  # a title, not the id: the suggestions carry both
    option = page.get_by_role("option").filter(has_text="demo-research")
    expect(option).to_have_count(1)
    option.click()
    until_url(page, re.compile("[?&]to="))
    wait_for_app(page, timeout=120_000)
    thread = ThreadHistory(store, "demo-research")
    wrote = thread.newest_writing(store, thread.history.head)
    assert params(page)["thread"] == "demo-research" and params(page)["to"] == wrote.key[1]
    expect(page.get_by_text(f"showing the newest step that did: step {wrote.step}").first).to_be_visible()
    labels = page.locator(f"{MAIN} [data-testid='stWidgetLabel']")
    for _ in range(50):  # the two columns settle once the run that drew them has finished
        from_box = labels.filter(has_text="From (the earlier checkpoint)").bounding_box()
        to_box = labels.filter(has_text="To (the later checkpoint)").bounding_box()
        if from_box and to_box and abs(from_box["y"] - to_box["y"]) < 2:
            break
        page.wait_for_timeout(200)
    assert from_box["x"] < to_box["x"] and abs(from_box["y"] - to_box["y"]) < 2  # side by side, From first
    assert cut_controls(page) == []
    if page.width == 1024:
        # the picker and the range, from the title down to From and To (not the diff below them)
        layout_shot(page, MAIN, "diff-picker-1024", tmp_path,
                    span=("h1", "[data-testid='stHorizontalBlock']:has([class*='st-key-diff-from-'])"))
    picker.click()
    picker.fill("no-such-thread-typed")
    picker.press("Enter")
    until_url(page, re.compile("thread=no-such-thread-typed"))
    wait_for_app(page)
    expect(page.get_by_text("There is no thread 'no-such-thread-typed' in this store.")).to_be_visible()
    assert "to" not in params(page) and "from" not in params(page)
    page.locator(f"{MAIN} [data-testid='stPageLink'] a").filter(has_text="Back to the thread list").click()
    until_url(page, re.compile(r"/(threads)?(\?|$)"))
    wait_for_app(page)
    expect(page.get_by_role("heading", name="Threads")).to_be_visible()

    page.goto(f"{base_url}/retention?keep=abc")
    wait_for_app(page)
    expect(page.get_by_text(re.compile(r"^keep='abc' in the link: keep .* must be a whole number"))).to_be_visible()
    expect(page.get_by_text(re.compile("^Choose a policy above, then press Preview"))).to_be_visible()
    assert "--keep-latest" not in page.locator(MAIN).inner_text()
