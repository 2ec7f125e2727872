"""Todos, user-data paths, pending questions, field order and the location in the URL."""

from __future__ import annotations

import pytest

from inspector.formatting import human_bytes
from inspector.history.location import Location, parse_location
from inspector.profiles.deerflow.files.paths import area_rows, both_paths, to_physical, to_virtual
from inspector.state.fields import field_order
from inspector.state.interrupts import pending_questions
from inspector.state.todos import progress, todo_board
from inspector.store import WriteRecord, open_store
from inspector.threads.thread_list import thread_records

DATA = {"workspace_path": "/base/threads/t/user-data/workspace",
        "uploads_path": "/base/threads/t/user-data/uploads",
        "outputs_path": "/base/threads/t/user-data/outputs"}


def test_todo_board_reads_both_shapes():
    board = todo_board([
        {"id": "1", "title": "Read", "status": "completed"},
        {"content": "Compare", "status": "in_progress"},
        {"content": "Write", "status": "pending"},
        {"content": "Odd", "status": "blocked"},
        "plain",
    ])
    assert [t.text for t in board["completed"]] == ["Read"]
    assert [t.text for t in board["in_progress"]] == ["Compare"]
    assert [t.text for t in board["pending"]] == ["Write"]
    assert [t.text for t in board["blocked"]] == ["Odd"]
    assert progress(board) == (1, 5)
    assert set(todo_board(None)) == {"pending", "in_progress", "completed"}


def test_virtual_and_physical_paths():
    assert to_physical("/mnt/user-data/outputs/report.md", DATA) == "/base/threads/t/user-data/outputs/report.md"
    assert to_virtual("/base/threads/t/user-data/uploads/a.csv", DATA) == "/mnt/user-data/uploads/a.csv"
    assert to_physical("/mnt/user-data/outputs/../../etc/passwd", DATA) is None
    assert to_physical("/etc/passwd", DATA) is None
    assert both_paths("/mnt/user-data/workspace", DATA) == ("/mnt/user-data/workspace", DATA["workspace_path"])
    assert [r["physical"] for r in area_rows(DATA)] == [DATA["workspace_path"], DATA["uploads_path"], DATA["outputs_path"]]
    assert [r["physical"] for r in area_rows(None)] == [None, None, None]


@pytest.mark.parametrize("virtual", ["/mnt/user-data/outputs/a\x00b", "/mnt/user-data/secrets/x.txt",
                                     "mnt/user-data/outputs/x.md", "/mnt/user-data-2/outputs/x.md", "", None])
def test_display_paths_refuse_what_the_file_readers_refuse(virtual):
    """The display mapping uses the readers' lexical checks: what they refuse maps to no physical path."""
    from inspector.media.folders import PathRefused
    from inspector.profiles.deerflow.files.user_data import split_virtual

    with pytest.raises(PathRefused):
        split_virtual(virtual)
    assert to_physical(virtual, DATA) is None


def test_pending_question_from_the_interrupt_demo(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        state = store.state("demo-interrupt")
    questions = pending_questions(state.writes)
    assert len(questions) == 1
    assert questions[0].question.endswith("?")
    assert len(questions[0].options) >= 2


def test_pending_question_shapes():
    write = WriteRecord("t", "", -3, "__interrupt__", [{"value": "Continue?", "id": "i1"}], "msgpack", 10)
    assert [(q.question, q.id) for q in pending_questions([write])] == [("Continue?", "i1")]
    other = WriteRecord("t", "", 0, "messages", [], "msgpack", 1)
    assert pending_questions([other]) == []


def test_field_order_keeps_unknown_fields():
    order = field_order(["goal", "todos", "messages", "summary_text", "title"])
    assert order == ["messages", "title", "todos", "goal", "summary_text"]
    assert human_bytes(512) == "512 B" and human_bytes(2048) == "2.0 KB"
    assert human_bytes(1_000_000) == "1.00 MB" and human_bytes(-2048) == "-2.0 KB" and human_bytes(None) == "?"


def test_location_round_trip_and_cleaning():
    loc = parse_location({"thread": " demo-research ", "checkpoint": "abc", "ns": "tools:x"})
    assert loc == Location("demo-research", "abc", "tools:x")
    assert parse_location(loc.params()) == loc
    assert parse_location({"thread": "", "checkpoint": "abc"}) == Location(None, "abc", "")
    assert Location(None, "abc").params() == {}
    assert parse_location(Location("L" * 10_000, "abc").params()) == Location("L" * 10_000, "abc")  # ids are unbounded
    # a value past the bound names nothing, never its prefix (another thread's id, perhaps)
    assert parse_location({"thread": "x" * 70_000, "checkpoint": "abc"}) == Location(None, "abc", "")


def test_thread_records(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        records = thread_records(store.threads())
    by_id = {r["thread"]: r for r in records}
    assert by_id["demo-research"]["title"]
    assert by_id["demo-long"]["checkpoints"] >= 300
