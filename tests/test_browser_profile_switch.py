"""The profile switched in the page, in Chromium: picking the generic LangGraph reading for a DeerFlow thread
takes its todo board away, and the choice stays in the URL across another checkpoint, Back and Refresh."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from browser_helpers import MAIN, shot, wait_for_app
from playwright.sync_api import expect

THREAD = "demo-research"


def params(page) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(page.url).query).items()}


def test_switching_the_profile_changes_the_panel_and_is_kept_across_back_and_refresh(page, streamlit_app, demo_db):
    base_url = streamlit_app(f"sqlite:///{demo_db}")
    page.goto(f"{base_url}/thread?thread={THREAD}")
    wait_for_app(page, timeout=120_000)
    board = page.locator(f"{MAIN} .st-key-field-todos").get_by_text("Completed (", exact=False)
    caption = page.locator(f"{MAIN} .st-key-thread_profile_row")
    expect(board.first).to_be_visible()
    expect(caption).to_contain_text("Profile: DeerFlow:")
    assert "profile" not in params(page)

    page.locator(".st-key-thread_profile input:visible").first.click()
    page.get_by_role("option", name="LangGraph", exact=True).click()
    wait_for_app(page, timeout=120_000)
    expect(caption).to_contain_text("Profile: LangGraph (chosen on this page")
    expect(page.locator(f"{MAIN} .st-key-field-todos")).to_contain_text("reducer unknown")
    expect(board).to_have_count(0)  # the todos are shown as stored, not as DeerFlow's board
    assert params(page)["profile"] == "langgraph"
    shot(page, "profile-switched")
    step = params(page)["step"]

    page.locator(".st-key-nav_prev button:visible").first.click()  # another checkpoint: the choice moves with it
    wait_for_app(page, timeout=120_000)
    assert params(page)["step"] != step and params(page)["profile"] == "langgraph"
    page.go_back()
    wait_for_app(page, timeout=120_000)
    assert params(page)["step"] == step and params(page)["profile"] == "langgraph"
    expect(caption).to_contain_text("Profile: LangGraph (chosen on this page")
    expect(board).to_have_count(0)

    page.reload()
    wait_for_app(page, timeout=120_000)
    assert params(page)["profile"] == "langgraph"
    expect(caption).to_contain_text("Profile: LangGraph (chosen on this page")
    expect(page.locator(".st-key-thread_profile input").first).to_have_value("LangGraph")
    expect(page.locator(f"{MAIN} .st-key-field-todos")).to_contain_text("reducer unknown")
    expect(board).to_have_count(0)
