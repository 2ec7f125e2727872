"""Helpers for browser tests against the real Streamlit server."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import struct
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

# Every browser test imports this module: one patience for all ``expect`` assertions on a busy machine (other
# suites run beside this one), whichever test modules a run happens to collect.
expect.set_options(timeout=30_000)

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
APP = "[data-testid='stApp']"
MAIN = "[data-testid='stMainBlockContainer']"
# A folder to copy the layout screenshots into (scripts/screenshots names docs/screenshots); unset, a test run
# writes only into its own temporary folders and never changes the repository's files.
SCREENSHOTS_ENV = "INSPECTOR_SCREENSHOTS"


def wait_for_app(page: Page, timeout: float = 30_000, start_ms: float = 500) -> None:
    """Wait until Streamlit has finished the current script run.

    Call after page.goto and after every interaction: the script run an
    interaction triggers may start a moment later, so first give it `start_ms`
    to leave the `notRunning` state, then wait for it to return there."""
    page.locator(f"{APP}[data-test-connection-state='CONNECTED']").wait_for(state="attached", timeout=timeout)
    with contextlib.suppress(PlaywrightTimeout):  # the run was quick, or nothing triggered one
        page.locator(f"{APP}:not([data-test-script-state='notRunning'])").wait_for(
            state="attached", timeout=start_ms)
    page.locator(f"{APP}[data-test-script-state='notRunning']").wait_for(state="attached", timeout=timeout)


def wait_for_page_css(page: Page, timeout: float = 30_000) -> None:
    """Wait until the inspector's own stylesheet (``page_css``, drawn by app.py with a script loaded on first use)
    is in force: before it, on a first load, a page is laid out with Streamlit's styles alone."""
    from inspector.ui.page_css import TABLE_WRAP

    page.wait_for_function("""(rule) => Array.from(document.querySelectorAll('style'))
        .some(s => s.textContent.includes(rule))""", arg=TABLE_WRAP.split(" {")[0], timeout=timeout)


def shot(target: Page | Locator, name: str) -> Path:
    """Save a PNG screenshot of a page or an element to test-artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / (re.sub(r"[^\w.-]+", "_", name) + ".png")
    if isinstance(target, Page):
        target.screenshot(path=path, full_page=True)
    else:
        target.screenshot(path=path)
    return path


def cut_controls(page: Page, within: str = MAIN) -> list[str]:
    """Buttons, links, widget labels and metric values inside ``within`` (a CSS selector, the page's main block
    by default) whose text does not fit their box ("R…", "P.", "20.22 …"), that stick out of ``within``, or that
    a clipping container cuts off ("2 ste")."""
    return page.evaluate("""(within) => {
        const cut = [];
        const root = document.querySelector(within);
        const stop = root.closest("[data-testid='stMainBlockContainer']") || document.body;
        const bounds = root.getBoundingClientRect();
        for (const el of root.querySelectorAll("button, a, [data-testid='stWidgetLabel'],"
                                               + " [data-testid='stMetricValue'], [data-testid='stMetricLabel']")) {
            const box = el.getBoundingClientRect();
            if (!box.width || !el.innerText.trim()) continue;
            for (const text of [el, ...el.querySelectorAll("p, span, div")]) {
                if (text.scrollWidth > text.clientWidth + 1 && getComputedStyle(text).overflow !== "visible") {
                    cut.push(el.innerText.trim()); break;
                }
            }
            if (box.right > bounds.right + 1) cut.push("outside: " + el.innerText.trim());
            for (let up = el.parentElement; up && up !== stop; up = up.parentElement) {
                if (getComputedStyle(up).overflowX === "visible") continue;
                const clip = up.getBoundingClientRect();
                if (box.right > clip.right + 1 || box.left < clip.left - 1) {
                    cut.push("clipped: " + el.innerText.trim()); break;
                }
            }
        }
        return cut;
    }""", within)


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height, from its header."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def layout_shot(page: Page, within: str, name: str, folder: Path, span: tuple[str, str] | None = None) -> Path:
    """An element screenshot of ``within`` (a CSS selector) as ``folder``/``name``.png, once nothing in it is cut
    and the picture holds the element whole inside the window's width; with ``span`` (two selectors inside it),
    only the band from the first one's top to the second one's bottom. Copied into $INSPECTOR_SCREENSHOTS when
    that is set (scripts/screenshots sets it to take the README's layout pictures)."""
    wait_for_page_css(page)
    assert cut_controls(page, within) == [], name
    target = page.locator(within).first
    path = folder / f"{name}.png"
    if span is None:
        target.screenshot(path=path)
        box = target.bounding_box()
    else:
        target.scroll_into_view_if_needed()
        outer = target.bounding_box()
        top = target.locator(span[0]).first.bounding_box()["y"] - 8
        bottom = target.locator(span[1]).first.bounding_box()
        box = {"x": outer["x"], "y": top, "width": outer["width"], "height": bottom["y"] + bottom["height"] + 8 - top}
        page.screenshot(path=path, clip=box)
    width, height = png_size(path)
    assert 0 < width <= page.viewport_size["width"] and abs(width - round(box["width"])) <= 2 and height > 0, name
    if os.environ.get(SCREENSHOTS_ENV):
        shutil.copyfile(path, Path(os.environ[SCREENSHOTS_ENV]) / path.name)
    return path


def choose_panel(page: Page, title: str) -> None:
    """Pick a panel beside the thread page's history (a segmented control) and wait for it to render."""
    page.locator("[data-testid='stButtonGroup'] button").filter(has_text=title).first.click()
    wait_for_app(page, timeout=120_000)


def open_play_settings(page: Page) -> Locator:
    """Open the popover beside Play that holds its speed and view; returns its choices (``nav_choices``)."""
    choices = page.locator(".st-key-nav_choices")
    if not choices.is_visible():
        page.locator(".st-key-nav_settings button:visible").first.click()
    expect(choices).to_be_visible()
    return choices


def choose_play_speed(page: Page, speed: str) -> None:
    """Set Play's speed (``2 steps/s``) in the popover beside Play, and close it."""
    open_play_settings(page).locator("[data-testid='stButtonGroup'] button").filter(has_text=speed).first.click()
    wait_for_app(page)
    expect(page.locator(".st-key-nav_settings button:visible").first).to_contain_text(speed)
    page.keyboard.press("Escape")
    expect(page.locator(".st-key-nav_choices")).to_be_hidden()


def chart_tooltip(page: Page, chart: Locator, height_share: float = 0.5, step: int = 4) -> str:
    """The tooltip Vega shows over ``chart`` where the pointer first meets a mark, moving from the chart's right
    edge leftwards at ``height_share`` of its height from the top (a canvas holds no marks to locate); "" when
    none shows."""
    chart.scroll_into_view_if_needed()
    expect(chart.locator("canvas, svg").first).to_be_visible()
    box = chart.bounding_box()
    tip = page.locator("#vg-tooltip-element")
    for dx in range(step, int(box["width"]), step):
        page.mouse.move(box["x"] + box["width"] - dx, box["y"] + box["height"] * height_share)
        if tip.count() and tip.is_visible():
            return tip.inner_text()
    return ""
