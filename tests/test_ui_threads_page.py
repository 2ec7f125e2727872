"""AppTest: the thread list and the connection sidebar."""

from __future__ import annotations

import pytest
from ui_app import all_text, open_page

from inspector.demo import DEMO_THREADS
from inspector.store.not_utf8 import quoted
from inspector.ui import connection
from inspector.ui.inert import literal


@pytest.fixture(autouse=True)
def fresh_settings():
    connection.settings.clear()
    yield
    connection.settings.clear()


def test_thread_list_on_the_demo_store(demo_db, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{demo_db}")
    at = open_page("threads")
    assert not at.exception
    frame = at.dataframe[0].value
    assert set(frame["thread"]) == set(DEMO_THREADS)
    assert {"title", "checkpoints", "last update", "stored bytes"} <= set(frame.columns)
    assert str(demo_db) in all_text(at)  # the sidebar names the open store
    assert "inspector_switch_url" in [t.key for t in at.text_input]  # the switch is offered


def test_a_thread_id_with_a_bidi_override_cannot_pass_for_another_in_the_list(tmp_path, monkeypatch):
    """An attacker's ``cust-\\u202edcba-4321`` would read as the customer's ``cust-1234-abcd``: the list writes
    the override out."""
    import sqlite3

    from growth_store import build_graph
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    real, spoof = "cust-1234-abcd", "cust-\u202edcba-4321"
    path = tmp_path / "spoof.db"
    with sqlite3.connect(path, check_same_thread=False) as conn:
        graph = build_graph(SqliteSaver(conn))
        for thread_id in (real, spoof):
            graph.invoke({"messages": [HumanMessage("hello")]}, {"configurable": {"thread_id": thread_id}})
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{path}")
    at = open_page("threads")
    assert not at.exception
    assert set(at.dataframe[0].value["thread"]) == {real, "cust-\\u202edcba-4321"}


def test_search_filters_the_list(demo_db, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{demo_db}")
    at = open_page("threads")
    at.text_input[0].input("vision").run()
    assert list(at.dataframe[0].value["thread"]) == ["demo-vision"]


def test_a_store_that_does_not_exist(tmp_path, monkeypatch):
    missing = tmp_path / "nowhere.db"
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{missing}")
    for page in ("threads", "thread"):
        at = open_page(page, thread="demo-research")
        assert not at.exception
        assert any(str(missing) in e.value for e in at.error)
    assert not missing.exists()  # read-only: opening never creates the file


def test_switching_store_from_the_sidebar(demo_db, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{tmp_path / 'first.db'}")
    at = open_page("threads")
    assert at.error
    at.text_input(key="inspector_switch_url").input(f"sqlite:///{demo_db}")
    at.button[[b.label for b in at.button].index("Open")].click().run()
    assert not at.exception and not at.error
    assert len(at.dataframe[0].value) == len(DEMO_THREADS)


def test_the_switch_refuses_saver_factories(demo_db, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{demo_db}")
    marker = tmp_path / "imported.txt"
    factory = tmp_path / "factory.py"
    factory.write_text(f"open({str(marker)!r}, 'w').close()\nsaver = None\n")
    at = open_page("threads")
    at.text_input(key="inspector_switch_url").input(f"{factory}:saver")
    at.button[[b.label for b in at.button].index("Open")].click().run()
    assert not at.exception
    assert [e.value for e in at.error if "saver factory" in e.value] == [
        literal(f"{quoted(f'{factory}:saver')} names a saver factory; those run code, so only the operator can open one "
                "(--db, INSPECTOR_DB or settings).")]
    assert not marker.exists()  # the named module was never imported
    assert len(at.dataframe[0].value) == len(DEMO_THREADS)  # the open store is unchanged


def test_locked_store_hides_the_switch(demo_db, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{demo_db}")
    monkeypatch.setenv("INSPECTOR_LOCK_STORE", "1")
    at = open_page("threads")
    assert not at.exception
    assert "inspector_switch_url" not in [t.key for t in at.text_input]


@pytest.mark.parametrize("url", ["postgresql://[::1", "postgresql://user:secret@host:99999/db"])
def test_a_malformed_store_url_is_an_error_not_an_exception(url, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", url)
    for page in ("threads", "thread", "health", "diff"):
        at = open_page(page, thread="demo-research")
        assert not at.exception, page
        assert any("malformed" in e.value or "Cannot open" in e.value for e in at.error), page
        assert "secret" not in all_text(at)  # the sidebar's store line included
