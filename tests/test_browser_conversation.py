"""In Chromium: a DeerFlow thread's conversation hides and strips what DeerFlow's UI does; a toggle shows all."""

from __future__ import annotations

import pytest
from browser_helpers import shot, wait_for_app
from playwright.sync_api import expect

from inspector.state.conversation import conversation
from inspector.store import open_store

THREAD = "demo-deerflow-current"
MESSAGE = "[data-testid='stChatMessage'], .si-msg"  # a Streamlit bubble, or one drawn as HTML


@pytest.fixture(scope="module")
def moment(demo_db):
    """The checkpoint of the current thread holding the transient image message, and its turns."""
    with open_store(f"sqlite:///{demo_db}") as store:
        rows = sorted((r for r in store.timeline(THREAD) if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
        for row in reversed(rows):
            messages = store.state(THREAD, row.checkpoint_id).values["messages"]
            if any(str(m.get("id")).startswith("view-image-context:") for m in messages):
                return row.checkpoint_id, conversation(messages)
    raise AssertionError("the current thread never holds a view-image-context message")


@pytest.fixture(scope="module")
def base_url(demo_db, streamlit_app):
    return streamlit_app(db_url=f"sqlite:///{demo_db}")


def test_deerflow_thread_hides_and_strips_as_deerflow_and_shows_all_on_request(page, base_url, moment):
    checkpoint, turns = moment
    hidden = [t for t in turns if t.hidden]
    reasons = " ".join(t.hidden for t in hidden)
    assert "transient image context" in reasons and "dynamic-context middleware's reminder" in reasons
    page.goto(f"{base_url}/thread?thread={THREAD}&checkpoint={checkpoint}")
    wait_for_app(page)
    field = page.locator(".st-key-field-messages")
    field.wait_for()
    messages = field.locator(MESSAGE)

    # DeerFlow's view: hidden messages left out, injected blocks stripped, files and subagent results shown
    expect(messages).to_have_count(len(turns) - len(hidden))
    expect(field.get_by_text(f"{len(hidden)} message(s) hidden as in DeerFlow's UI", exact=False)).to_be_visible()
    expect(field.get_by_text("Work out a cost-cutting plan.", exact=False).first).to_be_visible()
    expect(field.get_by_text("removes the <current_uploads> block", exact=False).first).to_be_visible()
    expect(field.get_by_text("chart.png", exact=False).first).to_be_visible()
    for injected in ("The following files were uploaded", "<current_date>", "The user runs logistics",
                     "Here are the images you've viewed"):
        expect(field.get_by_text(injected, exact=False)).to_have_count(0)
    shot(field, "conversation-deerflow-view")

    # everything as stored: the hidden messages come back, marked, and the upload block is shown
    field.locator("label").filter(has_text="Show everything").click()  # the switch input sits under its label
    wait_for_app(page)
    expect(messages).to_have_count(len(turns))
    for injected in ("The following files were uploaded", "<current_date>", "The user runs logistics",
                     "Here are the images you've viewed"):
        expect(field.get_by_text(injected, exact=False).first).to_be_visible()
    expect(field.get_by_text("hidden in DeerFlow's UI", exact=True)).to_have_count(len(hidden))
    expect(field.get_by_text("DeerFlow's UI hides it: marked hide_from_ui: the view-image middleware's "
                             "transient image context", exact=False).first).to_be_visible()
    shot(field, "conversation-everything")


def test_task_results_show_the_subagents_status_model_and_tokens(page, base_url, demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        turns = conversation(store.state(THREAD).values["messages"])
    [task] = [t for t in turns if t.subagent is not None]
    page.goto(f"{base_url}/thread?thread={THREAD}")
    wait_for_app(page)
    badge = page.locator(".st-key-field-messages").get_by_text(f"subagent {task.subagent.summary}", exact=False)
    expect(badge.first).to_be_visible()
    assert "model demo-scripted-mini" in task.subagent.summary and "tokens" in task.subagent.summary
