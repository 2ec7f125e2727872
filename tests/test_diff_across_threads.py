"""Diffs across threads: two real runs of the demo's research task, compared field by field.

The second run is a real LangGraph run of the demo graph on a copy of the demo
database: the same script under another thread id (so every message and tool
call id differs), with a different final answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from rerun_helpers import FIRST, SECOND
from secret_store import SECRETS, THREAD, build_graph, run_secret_thread

from inspector.cli import main
from inspector.diff import aligned_message_changes, diff_threads
from inspector.diff.state_diff import diff
from inspector.store import NotFound, open_store


@pytest.fixture(scope="module")
def two_runs(demo_two_runs_db) -> Path:
    return demo_two_runs_db


def test_two_runs_differ_only_where_they_really_do(two_runs):
    with open_store(str(two_runs)) as store:
        result = diff_threads(store, FIRST, SECOND)
        first, second = store.state(FIRST), store.state(SECOND)
    assert result.across_threads and result.before_thread_id == FIRST and result.thread_id == SECOND
    assert {m["id"] for m in first.values["messages"]}.isdisjoint(m["id"] for m in second.values["messages"])
    messages = result.field("messages")
    assert messages.status == "changed"
    (change,) = messages.changes  # every other message matched by content, whatever its id
    assert change.kind == "changed" and "lithium prices" in change.after and "price_trend.png" in change.before
    assert messages.note == f"{len(first.values['messages']) - 1} message(s) matched by content although their ids differ"
    changed = {f.field for f in result.changed_fields}
    assert changed == {"messages", "thread_data"}  # the folders carry the thread id
    assert {f.field for f in result.fields if not f.changed} >= {"title", "artifacts", "todos", "uploaded_files"}
    # compared by id, as within one thread, every message would read as removed and added again
    by_id = diff(first, second).field("messages")
    assert len(by_id.changes) == 2 * len(first.values["messages"])


def test_alignment_pairs_changed_messages_and_keeps_extra_ones_apart():
    def msg(mid, kind, text, calls=()):
        return {"id": mid, "type": kind, "content": text, "tool_calls": [
            {"id": f"{mid}-c{i}", "name": n, "args": {"q": n}} for i, n in enumerate(calls)]}

    before = [msg("a1", "human", "hi"), msg("a2", "ai", "", ["search"]), msg("a3", "ai", "done")]
    after = [msg("b1", "human", "hi"), msg("b2", "ai", "", ["search"]), msg("b3", "ai", "all done"),
             msg("b4", "human", "thanks")]
    changes, note = aligned_message_changes(before, after)
    assert [(c.kind, c.key) for c in changes] == [("changed", "b3"), ("added", "b4")]
    assert note == "2 message(s) matched by content although their ids differ"
    changes, note = aligned_message_changes(before, before)
    assert changes == [] and note is None


def test_cli_diff_against_another_thread(two_runs, capsys):
    assert main(["diff", "--db", str(two_runs), FIRST, "--against-thread", SECOND, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["before_thread_id"] == FIRST and data["thread_id"] == SECOND and not data["adjacent"]
    assert [f["field"] for f in data["fields"] if f["status"] != "unchanged"] == ["messages", "thread_data"]

    with open_store(str(two_runs)) as store:
        older = [r for r in store.timeline(FIRST) if r.step == 3 and not r.checkpoint_ns][0]
    assert main(["diff", "--db", str(two_runs), FIRST, "--against-thread", SECOND, "--from", older.checkpoint_id]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"thread {FIRST} at {older.checkpoint_id} -> thread {SECOND} at ")
    assert "only in the second:" in out and "(two threads)" in out

    assert main(["diff", "--db", str(two_runs), FIRST, "--against-thread", "nope"]) == 2
    assert "no checkpoint for thread 'nope'" in capsys.readouterr().err


def test_an_unknown_checkpoint_of_the_other_thread_is_not_found(two_runs):
    with open_store(str(two_runs)) as store, pytest.raises(NotFound):
        diff_threads(store, FIRST, SECOND, to_id="no-such-checkpoint")


def test_diff_page_compares_two_threads_from_a_link(two_runs, app_on_store):
    from ui_app import all_text, open_page

    app_on_store(f"sqlite:///{two_runs}")
    at = open_page("diff", thread=FIRST, against=SECOND)
    assert not at.exception, at.exception
    with open_store(str(two_runs)) as store:
        newest = {t: max((r for r in store.timeline(t) if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
                  for t in (FIRST, SECOND)}
    pickers = [s for s in at.selectbox if s.label != "Profile"]  # the profile picker aside
    assert pickers[0].value == FIRST  # the thread picker, then a checkpoint of each thread
    assert [s.value for s in pickers[1:]] == [newest[FIRST].checkpoint_id, newest[SECOND].checkpoint_id]
    text = all_text(at)
    assert "two threads: messages are matched by content" in text
    assert "**messages**" in text and "**thread_data**" in text and "**todos**" not in text
    assert "lithium prices" in text and not at.success and not at.error  # no replay check between threads
    assert "matched by content although their ids differ" in at.info[0].value
    assert at.query_params["against"] in (SECOND, [SECOND])


# -- secrets, the audit trail, text from the data --------------------------------------------------------

OTHER_SECRET_THREAD = "secret-thread ![again](http://other.invalid/x.png)"
NEW_KEY = "sk-proj-An0therFakeKey0123456789abcdefXYZ"


@pytest.fixture(scope="module")
def secret_runs(tmp_path_factory) -> Path:
    """The secret thread twice (the second under a crafted id), the second with one more message and key."""
    db = tmp_path_factory.mktemp("secret-runs") / "secrets.db"
    with SqliteSaver.from_conn_string(str(db)) as saver:
        run_secret_thread(saver)
        graph = build_graph(saver)
        config = {"configurable": {"thread_id": OTHER_SECRET_THREAD, "api_key": SECRETS[-1]}}
        graph.invoke({"messages": []}, config)
        graph.update_state(config, {"messages": [HumanMessage(f"Rotated: use {NEW_KEY} from now on", id="h2")]})
    return db


def test_a_diff_across_threads_is_computed_raw_and_shown_masked(secret_runs, capsys, tmp_path, monkeypatch):
    log = tmp_path / "audit.log"
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    assert main(["diff", "--db", str(secret_runs), THREAD, "--against-thread", OTHER_SECRET_THREAD, "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert [s for s in (*SECRETS, NEW_KEY) if s in out] == []
    messages = next(f for f in data["fields"] if f["field"] == "messages")
    assert [c["summary"][:47] for c in messages["changes"]] == ["only in the second: Human: 'Rotated: use [redac"]
    assert "[redacted api-key" in messages["changes"][0]["summary"]
    assert data["before_thread_id"] == THREAD and data["thread_id"] == OTHER_SECRET_THREAD
    (line,) = [json.loads(x) for x in log.read_text().splitlines()]
    assert (line["action"], line["thread"], line["from_thread"], line["via"]) == (
        "diff_view", OTHER_SECRET_THREAD, THREAD, "cli")


def test_the_diff_page_across_threads_masks_escapes_and_records(secret_runs, app_on_store, monkeypatch, tmp_path):
    from ui_app import all_text, open_page

    log = tmp_path / "audit.log"
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    app_on_store(f"sqlite:///{secret_runs}")
    at = open_page("diff", thread=THREAD, against=OTHER_SECRET_THREAD)
    assert not at.exception, at.exception
    text = all_text(at)
    assert "Rotated: use [redacted api-key" in text and [s for s in (*SECRETS, NEW_KEY) if s in str(at._tree)] == []
    label = next(s.label for s in at.selectbox if s.label.startswith("To:"))
    assert "!\\[again\\](`http://other.invalid/x.png)`" in label  # the crafted id as text, never an image
    views = [json.loads(x) for x in log.read_text().splitlines() if '"diff_view"' in x]
    assert [(v["thread"], v["from_thread"]) for v in views] == [(OTHER_SECRET_THREAD, THREAD)]
    assert "two threads: messages are matched by content" in text
