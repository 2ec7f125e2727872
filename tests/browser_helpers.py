"""Helpers for browser tests against the real Streamlit server."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from playwright.sync_api import Locator, Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"
APP = "[data-testid='stApp']"


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


def shot(target: Page | Locator, name: str) -> Path:
    """Save a PNG screenshot of a page or an element to test-artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / (re.sub(r"[^\w.-]+", "_", name) + ".png")
    if isinstance(target, Page):
        target.screenshot(path=path, full_page=True)
    else:
        target.screenshot(path=path)
    return path


def choose_panel(page: Page, title: str) -> None:
    """Pick a panel beside the thread page's history (a segmented control) and wait for it to render."""
    page.locator("[data-testid='stButtonGroup'] button").filter(has_text=title).first.click()
    wait_for_app(page, timeout=120_000)
