"""The Threads page's search, status column and filter, and its "Waiting on a human" section (AppTest), on the
store of a few hundred threads written by SqliteSaver (``remembered_store``)."""

from __future__ import annotations

import pytest
from remembered_store import (
    HITL_THREAD,
    INTERRUPT_THREAD,
    QUESTION,
    SECRET,
    SECRET_THREAD,
    STATUS_THREADS,
    UPLOAD_NAME,
    UPLOAD_THREAD,
)
from ui_app import all_text, open_page

from inspector.ui import thread_search_view

INTERRUPTED = {t for t, status in STATUS_THREADS.items() if status == "interrupted"}


def listed(at) -> list:
    """The thread list's table (the waiting list below it has no ``checkpoints`` column)."""
    return [d for d in at.dataframe if "checkpoints" in d.value.columns]


@pytest.fixture
def on_remembered(remembered_db, app_on_store, monkeypatch, tmp_path):
    """The page on the remembered store, with an analysis cache of its own and time to fill its index."""
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(thread_search_view, "INDEX_SECONDS", 300.0)
    app_on_store(f"sqlite:///{remembered_db}")


def test_a_file_name_finds_its_thread_first_with_where_and_the_step(on_remembered):
    at = open_page("threads", q=UPLOAD_NAME)
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert frame["thread"].iloc[0] == UPLOAD_THREAD
    assert frame["found in"].iloc[0] == "file · uploaded_files" and frame["step"].iloc[0] == 0
    assert UPLOAD_NAME in frame["snippet"].iloc[0]
    columns = list(frame.columns)
    assert columns.index("title") + 1 == columns.index("status") == columns.index("found in") - 1
    assert "best match first" in all_text(at) and at.query_params["q"] == UPLOAD_NAME


def test_a_secret_is_masked_in_the_snippet_and_finds_nothing(on_remembered):
    at = open_page("threads", q="deploy key thanks")
    frame = at.dataframe[0].value
    assert list(frame["thread"]) == [SECRET_THREAD]
    snippet = frame["snippet"].iloc[0]
    assert "[redacted api-key]" in snippet and SECRET not in snippet and "R3member" not in snippet
    at = open_page("threads", q=SECRET)
    assert not listed(at) and "No thread matches" in all_text(at)


def test_hostile_search_text_stays_text(on_remembered):
    search = "![x](http://127.0.0.1:9/beacon.png) <img src=x onerror=alert(1)> **bold**"
    at = open_page("threads", q=search)
    assert not at.exception, at.exception
    info = [str(e.value) for e in at.info]
    assert info and "beacon.png" in info[0] and not listed(at)  # said, and no thread holds those words
    # escaped: Markdown draws no image, no HTML, no bold
    assert "![x](http" not in info[0] and "\\<img" in info[0] and "\\*\\*bold" in info[0]


def test_status_filter_column_and_the_waiting_list(on_remembered):
    at = open_page("threads", status="interrupted")
    assert not at.exception, at.exception
    listed = at.dataframe[0].value
    assert set(listed["thread"]) == INTERRUPTED
    by_thread = dict(zip(listed["thread"], listed["status"]))
    assert by_thread[INTERRUPT_THREAD] == f"interrupted: {QUESTION}"
    assert by_thread[HITL_THREAD].startswith("interrupted: Review the call book_hotel(")
    waiting = at.dataframe[1].value
    assert set(waiting["thread"]) == INTERRUPTED
    assert dict(zip(waiting["thread"], waiting["question"]))[INTERRUPT_THREAD] == QUESTION
    assert all(link.startswith("thread?thread=") or "thread=" in link for link in waiting["open"])
    assert any(e.label.startswith("Waiting on a human: 2 thread(s)") for e in at.expander)
    at.segmented_control(key=thread_search_view.STATUS_KEY).set_value("error").run()
    assert list(at.dataframe[0].value["thread"]) == ["status-error"]
    assert at.query_params["status"] == "error"
    assert open_page("threads", status="sleeping").warning  # a wrong status in a link is said, not a traceback


def test_an_index_still_filling_says_so(remembered_db, app_on_store, monkeypatch, tmp_path):
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "slow-cache"))
    monkeypatch.setattr(thread_search_view, "INDEX_SECONDS", 0.0)
    app_on_store(f"sqlite:///{remembered_db}")
    at = open_page("threads", q="harbor")
    assert not at.exception, at.exception
    assert "still being brought up to date" in all_text(at)
    assert any(b.label == "Go on indexing" for b in at.button)
