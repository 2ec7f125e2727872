"""AppTest: the Health page and the Export dialog on stores other apps wrote (LangChain's ``create_agent``,
deepagents, a plain graph with a subgraph of its own) and on an empty store: no DeerFlow word or advice where the
data does not show DeerFlow (rule 10), no exception, and empty states that say what is (not) there."""

from __future__ import annotations

import sqlite3

import pytest
from ui_app import all_text, open_page

from inspector.store import open_store

# What only DeerFlow's profile says: its name, its tables, its folders, its fields and reducers.
DEERFLOW_WORDS = ("deerflow", "deer-flow", "threads_meta", "user-data", "/mnt/", "viewed_images", "merge_")


@pytest.fixture(scope="module")
def plain_graph_db(tmp_path_factory):
    """A plain LangGraph graph of its own (``tests/apps/nested_graph.py``): messages, and a subgraph keeping notes."""
    from apps.nested_graph import write_store

    return write_store(tmp_path_factory.mktemp("plain-graph") / "plain.db")


@pytest.fixture(scope="module")
def empty_db(tmp_path_factory):
    """A store LangGraph's saver set up and never wrote a checkpoint into."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path_factory.mktemp("empty-store") / "empty.db"
    conn = sqlite3.connect(path)
    try:
        SqliteSaver(conn).setup()
    finally:
        conn.close()
    return path


def no_deerflow(text: str) -> list[str]:
    lowered = text.lower()
    return [word for word in DEERFLOW_WORDS if word in lowered]


def page_text(at) -> str:
    """Everything the page shows, table cells and expander labels included."""
    cells = [" ".join(map(str, df.value.columns)) + " " + df.value.to_string() for df in at.dataframe]
    return "\n".join([all_text(at), *cells, *(e.label for e in at.expander), *(m.label for m in at.metric)])


@pytest.mark.parametrize("fixture, profile", [("langchain_agent_db", "LangChain agent"), ("deep_agent_db", "deepagents"),
                                              ("plain_graph_db", "LangGraph")])
def test_health_and_export_speak_no_deerflow_on_other_apps_stores(request, app_on_store, fixture, profile):
    db = request.getfixturevalue(fixture)
    app_on_store(f"sqlite:///{db}")
    at = open_page("health")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    text = page_text(at)
    assert no_deerflow(text) == [], text
    assert "Leftovers" in text and "No app's own thread table is present or readable" in text
    flags = int(next(m.value for m in at.metric if m.label == "Flags"))
    assert flags or "None: no flag in the" in text  # an empty Flags section says so
    with open_store(f"sqlite:///{db}") as store:
        largest = store.threads(sort="checkpoints", limit=1)[0].thread_id
    at = open_page("thread", thread=largest)
    assert not at.exception, at.exception
    (button,) = [b for b in at.button if b.label == "Export thread"]
    at = button.click().run()
    assert not at.exception, at.exception
    text = page_text(at)
    assert "The bundle holds" in text and "checkpoint(s) and" in text
    assert no_deerflow(text) == [], text
    # no file is looked for; naming the app's profile is advised only where no app's profile reads the thread
    assert f"No files: read with the {profile} profile" in text
    assert ("name the app's profile with --profile" in text) == (profile == "LangGraph"), text


def test_health_on_an_empty_store_says_so_and_still_shows_its_files(app_on_store, empty_db):
    app_on_store(f"sqlite:///{empty_db}")
    at = open_page("health")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert [i.value for i in at.info] == ["This store holds no checkpoint yet: no thread to rank, analyse or flag."]
    text = page_text(at)
    assert "The store's files" in text and "On disk" in text and "Leftovers" in text
    assert "Flags" not in {s.value for s in at.subheader} and not at.get("vega_lite_chart")
    assert no_deerflow(text) == [], text


def test_images_over_time_on_a_thread_whose_profile_names_no_files_says_why_it_is_empty(langchain_agent_db,
                                                                                        app_on_store):
    app_on_store(f"sqlite:///{langchain_agent_db}")
    at = open_page("thread", thread="langchain-travel", panel="images-over-time")
    assert not at.exception, at.exception
    text = page_text(at)
    assert "read with the LangChain agent profile, which names no files in a thread's state" in text
    assert "No image was viewed" not in text  # DeerFlow's viewed images: never looked for on this thread
