"""AppTest: the thread page on the demo store, deep links and bad links."""

from __future__ import annotations

import pytest

from ui_app import all_text, open_page


@pytest.fixture(autouse=True)
def demo_store(demo_db, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{demo_db}")


def test_unknown_thread_gives_message_and_way_back():
    at = open_page("thread", thread="no-such-thread")
    assert not at.exception
    assert any("no-such-thread" in e.value for e in at.error)
    assert "Back to the thread list" in [link.proto.label for link in at.get("page_link")]


def test_opens_the_research_thread_at_its_newest_checkpoint():
    at = open_page("thread", thread="demo-research")
    assert not at.exception, at.exception
    assert "demo-research" in all_text(at)
    assert "messages" in all_text(at)
