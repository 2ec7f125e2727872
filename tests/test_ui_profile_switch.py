"""AppTest: the profile switched in the page (``?profile=``): every panel, Play, the Diff page and Export read the
thread with the profile picked, the URL keeps it, links to the same thread carry it, cached results never cross
from one profile to another, and an unknown name in a link is said and left out."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from ui_app import all_text, html_text, open_page

from inspector import profiles
from inspector.store import open_store
from inspector.ui import play_view

THREAD = "demo-research"  # a DeerFlow thread: todos, artifacts, uploads, viewed images


def param(at, name):
    value = at.query_params.get(name)
    return value[-1] if isinstance(value, list) else value


def links(at) -> dict[str, dict[str, str]]:
    """Page link label -> its query parameters."""
    return {link.proto.label: {k: v[-1] for k, v in parse_qs(link.proto.query_string).items()}
            for link in at.get("page_link")}


def files_named(at) -> list[str]:
    """The rows of the tables the Images over time panel draws (images and artifacts, by path)."""
    return [p for df in at.dataframe if "path" in df.value.columns for p in df.value["path"]]


@pytest.mark.usefixtures("app_on_demo")
def test_a_deerflow_thread_switched_to_generic_langgraph_loses_deerflows_views_and_back():
    at = open_page("thread", thread=THREAD)
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: DeerFlow:" in text and "**Completed**" in text and "reducer merge_todos" in text
    assert "Preview" in [s.label for s in at.selectbox]  # DeerFlow's artifacts, opened from its folders
    assert param(at, "profile") is None
    box = at.selectbox(key="thread_profile")
    assert box.options[0].startswith("Automatic (DeerFlow)") and {"DeerFlow", "LangGraph", "LangChain agent"} <= set(
        box.options)

    at = box.set_value("langgraph").run()
    assert not at.exception, at.exception
    assert param(at, "profile") == "langgraph"
    text = all_text(at)
    assert "Profile: LangGraph (chosen on this page; automatic: DeerFlow:" in text
    assert "**Completed**" not in text and "merge_" not in text and "reducer unknown" in text
    assert "Preview" not in [s.label for s in at.selectbox]
    # links to this thread keep the choice: a field's last writing step (on this page, a button that moves
    # the URL), and the Diff page from its panel
    written = [b for b in at.button if str(b.key or "").startswith("link-written-")]
    assert written
    at = written[0].click().run()
    assert not at.exception, at.exception
    assert param(at, "profile") == "langgraph" and param(at, "thread") == THREAD and param(at, "checkpoint")
    at.segmented_control(key="thread_panel").set_value("Diff vs parent").run()
    assert not at.exception, at.exception
    assert param(at, "profile") == "langgraph" and param(at, "panel") == "diff-vs-parent"
    assert links(at)["Compare with another checkpoint"]["profile"] == "langgraph"

    # a cached panel follows the switch both ways: never a result computed under the other profile
    at.segmented_control(key="thread_panel").set_value("Images over time").run()
    assert "read with the LangGraph profile, which names no files" in all_text(at) and not files_named(at)
    at.selectbox(key="thread_profile").set_value("automatic").run()
    assert not at.exception, at.exception
    assert param(at, "profile") is None and param(at, "panel") == "images-over-time"
    assert "/mnt/user-data/outputs/report.md" in files_named(at) and "names no files" not in all_text(at)
    at.selectbox(key="thread_profile").set_value("langgraph").run()
    assert "read with the LangGraph profile, which names no files" in all_text(at) and not files_named(at)


def test_a_langchain_agent_thread_read_as_deerflow_gets_deerflows_reading(langchain_agent_db, app_on_store):
    app_on_store(f"sqlite:///{langchain_agent_db}")
    own = all_text(open_page("thread", thread="langchain-travel"))
    assert "Profile: LangChain agent:" in own and "reducer merge_todos" not in own
    assert "Review the call book_hotel" in own  # its human-in-the-loop question, as LangChain's middleware asks it
    at = open_page("thread", thread="langchain-travel", profile="deerflow")
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: DeerFlow (chosen on this page; automatic: LangChain agent:" in text
    assert "reducer merge_todos" in text and "(DeerFlow ThreadState)" in text  # DeerFlow's reducers and schema
    assert "Review the call book_hotel" not in text
    assert param(at, "profile") == "deerflow" and at.selectbox(key="thread_profile").value == "deerflow"


@pytest.mark.usefixtures("app_on_demo")
def test_an_unknown_profile_in_the_link_is_named_and_left_out():
    at = open_page("thread", thread=THREAD, profile="no-such-app")
    assert not at.exception, at.exception
    warned = [w.value for w in at.main.warning if "no-such-app" in w.value]
    assert warned and "known profiles are deerflow" in warned[0], [w.value for w in at.main.warning]
    assert "Profile: DeerFlow:" in all_text(at) and param(at, "profile") is None
    diff = open_page("diff", thread=THREAD, profile="no-such-app")
    assert not diff.exception, diff.exception
    assert any("no-such-app" in w.value for w in diff.main.warning) and "Profile: DeerFlow:" in all_text(diff)


@pytest.mark.usefixtures("app_on_demo")
def test_the_diff_page_reads_the_thread_with_the_profile_of_the_link():
    own = open_page("diff", thread=THREAD)
    assert "Profile: DeerFlow:" in all_text(own) and "`add_messages`" in all_text(own)
    at = open_page("diff", thread=THREAD, profile="langgraph")
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Profile: LangGraph (chosen on this page" in text and "`add_messages`" not in text and "`unknown`" in text
    assert param(at, "profile") == "langgraph" and param(at, "to")  # kept beside the checkpoints the page names
    # its way back to the thread carries it
    lost = open_page("diff", thread=THREAD, profile="langgraph", to="no-such-checkpoint")
    assert links(lost)["Open the thread"]["profile"] == "langgraph"
    assert "profile" not in links(open_page("diff", thread=THREAD, to="no-such-checkpoint"))["Open the thread"]
    # across threads, the first thread's profile (the one picked) reads both
    across = open_page("diff", thread=THREAD, against="demo-vision", profile="langgraph")
    assert not across.exception, across.exception
    assert "Profile: LangGraph (chosen on this page" in all_text(across) and "merge_" not in all_text(across)


@pytest.mark.usefixtures("app_on_demo")
def test_export_bundles_the_thread_as_the_page_reads_it():
    at = open_page("thread", thread=THREAD, profile="langgraph")
    (button,) = [b for b in at.button if b.label == "Export thread"]
    at = button.click().run()
    assert not at.exception, at.exception
    text = all_text(at)
    assert "The bundle holds" in text and "No files: read with the LangGraph profile" in text
    assert not [df for df in at.dataframe if "masked" in df.value.columns]  # no file table: none was looked for


@pytest.mark.usefixtures("app_on_demo")
def test_play_frames_are_read_with_the_profile_picked():
    at = open_page("thread", thread=THREAD, step="8", profile="langgraph")  # the frame's diff names the reducers
    at.button(key="nav_play").click().run(timeout=120)
    assert not at.exception, at.exception
    assert at.button(key="nav_play").label == "Pause" and param(at, "profile") == "langgraph"
    frame = html_text(at)  # the frame's words: the diff names each field's reducer
    assert "What the state became" in frame and ">unknown · " in frame and "add_messages" not in frame


def test_the_frames_play_reads_ahead_are_read_with_the_pages_profile(demo_db, monkeypatch):
    """Play's background reader reads the next frames with the profile the page reads the thread with, into
    the cache keyed by it: the frame then finds its diff there, and the automatic reading never gets it."""
    from inspector.ui import data, play_frames

    computed = []
    real = play_frames.diff
    monkeypatch.setattr(play_frames, "diff", lambda *a, **k: computed.append(1) or real(*a, **k))  # counts, then diffs
    with open_store(f"sqlite:///{demo_db}") as store:
        thread = data.thread_history(store, "demo-vision")
        path = thread.history.path_through(thread.history.head)
        with profiles.asking(store, "demo-vision", "langgraph"):
            worker = play_view.prefetch(store, thread, path, 2, play_view.DIFF)
        assert worker is not None
        worker.join(timeout=120)
        assert computed, "the reader diffed the frames ahead"
        ahead = thread.history.node(path[3]).row
        done = len(computed)
        with profiles.asking(store, "demo-vision", "langgraph"), profiles.reading(store, "demo-vision"):
            frame = play_view.compare(store, ahead)
        assert len(computed) == done, "the frame's diff was read ahead"
        assert {f.reducer_label for f in frame.fields} == {"unknown"}
        with profiles.reading(store, "demo-vision"):  # the evidence's choice: DeerFlow, its own cache entries
            automatic = play_view.compare(store, ahead)
        assert len(computed) == done + 1 and "add_messages" in {f.reducer_label for f in automatic.fields}
