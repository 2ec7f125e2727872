"""What a person reads and copies, at 1440 and 1024 px: each size in a unit of its own with the exact bytes beside,
flagged threads as links, the base64 flag's distinct images and copies, an in-page link that moves the URL, one
replay line, and the Diff page's defaults and step names as the CLI gives them."""

from __future__ import annotations

import json
import re
import time

import pytest
from browser_helpers import MAIN, choose_panel, cut_controls, shot, wait_for_app
from playwright.sync_api import expect

from inspector.cli import main
from inspector.formatting import human_bytes
from inspector.sizes.health import thread_health
from inspector.store import open_store

WIDTHS = [1440, 1024]


@pytest.fixture(scope="module")
def app_url(streamlit_app, demo_db):
    return streamlit_app(f"sqlite:///{demo_db}")


def until_url(page, pattern: str, timeout: float = 60) -> None:
    """Wait until the URL matches (a rerun moves it without a load event)."""
    deadline = time.monotonic() + timeout
    while not re.search(pattern, page.url):
        assert time.monotonic() < deadline, f"the URL stayed {page.url}"
        page.wait_for_timeout(200)


# A data grid draws its cells on a canvas; its accessible cells in the DOM hold the values, not what is drawn. Every
# text drawn on a canvas is recorded instead.
DRAWN = """(() => { const fill = CanvasRenderingContext2D.prototype.fillText; window.__drawn = [];
  CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
    window.__drawn.push(String(text)); return fill.call(this, text, ...rest); }; })()"""


def column(table, header: str) -> list[str]:
    """The values of one column of a data grid (its accessible cells)."""
    headers = [h.strip() for h in table.locator("[role=columnheader]").all_inner_texts()]
    cells = table.locator("[role=gridcell]").all_inner_texts()
    at = headers.index(header)
    return [c.strip() for c in cells[at::len(headers)]]


def cli(capsys, *args: str) -> str:
    main([*args, "--quiet"])
    return capsys.readouterr().out


@pytest.mark.parametrize("width", WIDTHS)
def test_sizes_flags_and_an_in_page_link_on_the_thread_list_and_a_thread(page, app_url, demo_db, width):
    page.set_viewport_size({"width": width, "height": 900})
    page.add_init_script(DRAWN)
    page.goto(f"{app_url}/?sort=stored")
    wait_for_app(page, timeout=120_000)
    table = page.locator("[data-testid='stDataFrame']").first
    table.locator("[role=gridcell]").filter(has_text="demo-bloated").first.wait_for(state="attached", timeout=60_000)
    sizes = [int(v) for v in column(table, "state size")]
    assert sizes == [int(v) for v in column(table, "state size, exact")]  # the cells hold the bytes themselves
    page.wait_for_function("(n) => window.__drawn.length >= n", arg=len(sizes))
    drawn = set(page.evaluate("window.__drawn"))
    shown = {human_bytes(size) for size in sizes}
    assert shown <= drawn and {f"{size:,}" for size in sizes} <= drawn  # each in its own unit, the exact beside
    assert {text.split()[1] for text in shown} >= {"KB", "MB"} and "0.00 MB" not in drawn
    flagged = page.locator(".st-key-flagged_threads")
    expect(flagged).to_contain_text("3 flagged:")
    links = {re.search(r"thread=([^&]+)", a.get_attribute("href")).group(1) for a in flagged.locator("a[href]").all()}
    assert links == {"demo-bloated", "demo-deerflow-current", "demo-vision"}, links  # each flagged name a link
    assert cut_controls(page, ".st-key-flagged_threads") == []
    flagged.locator("a").filter(has_text="demo-vision").first.click()  # the flagged thread's sizes and flags
    until_url(page, r"/thread\?thread=demo-vision&.*panel=size")
    wait_for_app(page, timeout=120_000)
    with open_store(str(demo_db)) as store:
        flag = next(f for f in thread_health(store, "demo-vision").flags if f.code == "base64-in-state")
    counts = re.search(r"\d+ distinct image\(s\), stored \d+ time\(s\) in \d+ checkpoint\(s\)", flag.summary).group()
    expect(page.locator("[data-testid='stExpander']").filter(has_text=counts).first).to_be_visible(timeout=60_000)
    choose_panel(page, "State")
    written = page.get_by_role("button", name=re.compile(r"last written at step 7 by view_image_middleware"))
    written.first.click()  # a link to a step of the page shown: the URL moves with it
    until_url(page, r"[?&]step=7(&|$)")
    wait_for_app(page, timeout=60_000)
    here = page.locator(MAIN).get_by_text(re.compile(r"last written at step 7 by view_image_middleware · this step"))
    expect(here.first).to_be_visible()
    page.reload()  # what the URL names is what is shown
    wait_for_app(page, timeout=120_000)
    expect(here.first).to_be_visible(timeout=60_000)
    assert re.search(r"[?&]step=7(&|$)", page.url)
    shot(page.locator(MAIN), f"numbers-thread-{width}")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_diff_page_says_what_the_cli_says(page, app_url, demo_db, capsys, width):
    db = str(demo_db)
    line = cli(capsys, "replay", "--db", db, "demo-subgraph").strip().splitlines()[-1]
    assert " step(s) replayed in the root graph and 2 subgraph namespace(s): " in line
    alone = json.loads(cli(capsys, "diff", "--db", db, "demo-branch", "--json"))
    across = json.loads(cli(capsys, "diff", "--db", db, "demo-branch", "--against-thread", "demo-subgraph", "--json"))
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{app_url}/diff?thread=demo-branch&replay=1")
    wait_for_app(page, timeout=120_000)
    main_block = page.locator(MAIN)

    def picked(label: str):
        return main_block.get_by_role("combobox", name=label)

    expect(picked("To (the later checkpoint)")).to_have_value(re.compile(f"…{alone['after_id'][-12:]}$"))
    expect(picked("From (the earlier checkpoint)")).to_have_value(re.compile(f"…{alone['before_id'][-12:]}$"))
    expect(main_block.get_by_text(alone["note"]).first).to_be_visible()  # "step 29 · run finished" as the tree says
    expect(main_block.get_by_text(re.compile(r" · \? · | · first · "))).to_have_count(0)
    expect(main_block.get_by_text(re.compile(r"step\(s\) replayed in the root graph: ")).first).to_be_visible()
    page.get_by_label("Against another thread").fill("demo-subgraph")
    page.get_by_label("Against another thread").press("Enter")
    wait_for_app(page, timeout=120_000)
    expect(picked("From: a checkpoint of demo-branch")).to_have_value(re.compile(f"…{across['before_id'][-12:]}$"))
    expect(picked("To: a checkpoint of demo-subgraph")).to_have_value(re.compile(f"…{across['after_id'][-12:]}$"))
    until_url(page, rf"from={across['before_id']}")
    page.goto(f"{app_url}/diff?thread=demo-subgraph&replay=1")
    wait_for_app(page, timeout=120_000)
    expect(main_block.get_by_text(line, exact=False).first).to_be_visible(timeout=120_000)  # the CLI's very words
    expect(main_block.get_by_test_id("stMetricLabel").filter(has_text="Changed without a write")).to_be_visible()
    assert cut_controls(page) == []  # the replay's counts, each label whole
    page.get_by_text("Replay every step of this thread").click()  # off: the URL follows
    until_url(page, r"^(?!.*replay=1)")
    wait_for_app(page, timeout=120_000)
    assert cut_controls(page) == []
