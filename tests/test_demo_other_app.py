"""The demo holds one thread that is not DeerFlow's: a LangChain agent waiting at a human-in-the-loop
request, read with the LangChain agent profile beside the DeerFlow threads of the same store."""

from __future__ import annotations

import pytest
from ui_app import all_text, open_page

from inspector.cli import main
from inspector.profiles import reading_for
from inspector.store import open_store

THREAD = "demo-langchain-agent"
QUESTION = "Review the call book_hotel(hotel='Rio Tejo', nights=3) (approve, reject)"


def test_the_demo_store_reads_each_thread_with_its_own_profile(demo_db):
    with open_store(str(demo_db)) as store:
        assert reading_for(store, THREAD).name == "langchain-agent"
        assert reading_for(store, "demo-deerflow-current").name == "deerflow"


def test_its_pending_question_and_replay_on_the_cli(demo_db, capsys):
    assert main(["state", "--db", str(demo_db), THREAD]) == 0
    out = capsys.readouterr().out
    assert "Profile: LangChain agent" in out and f"waiting for an answer: {QUESTION}" in out
    assert main(["replay", "--db", str(demo_db), THREAD]) == 0
    out = capsys.readouterr().out
    assert "0 mismatched" in out and "LangChain create_agent state" in out and "deerflow" not in out.lower()


@pytest.mark.usefixtures("app_on_demo")
def test_the_thread_page_shows_the_profile_and_the_request():
    at = open_page("thread", thread=THREAD)
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: LangChain agent" in text and QUESTION in text
    assert "carries no question text" not in text
