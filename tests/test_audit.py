"""The audit trail: one JSON line per action, identifiers only, appended safely by several processes."""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from inspector.safety.audit import ACTIONS, AuditError, AuditTrail, audit_line

PG = "postgresql://inspector_ro:s3cret-pw@db.internal:5432/langgraph"


def test_a_line_names_who_what_and_where_with_the_password_masked():
    when = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=timezone.utc)
    line = audit_line("checkpoint_view", "alice@example.com", PG, "t-1", "cp-9", "", now=when)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    record = json.loads(line)
    assert record == {"time": "2026-01-02T03:04:05.678+00:00", "user": "alice@example.com", "action": "checkpoint_view",
                      "store": "postgresql://inspector_ro:***@db.internal:5432/langgraph", "thread": "t-1", "ns": "",
                      "checkpoint": "cp-9"}
    assert b"s3cret" not in line


def test_only_known_actions_and_identifiers_are_recorded():
    with pytest.raises(ValueError):
        audit_line("browse", "a", "sqlite:///x.db")
    with pytest.raises(TypeError):
        audit_line("export", "a", "sqlite:///x.db", what={"messages": ["the state itself"]})
    assert set(ACTIONS) == {"thread_view", "checkpoint_view", "diff_view", "memory_view", "reveal", "export"}


def test_identifiers_from_the_data_stay_on_one_line_and_are_bounded():
    hostile = "t\n{\"user\": \"mallory\"}\u2028" + "x" * 5000
    line = audit_line("thread_view", "", "sqlite:///x.db", hostile)
    assert line.count(b"\n") == 1 and len(line) < 1000
    record = json.loads(line)
    assert record["user"] == "anonymous" and record["thread"].startswith("t\n{")


def test_trail_appends_and_creates_the_file_private(tmp_path):
    path = tmp_path / "audit.log"
    trail = AuditTrail(str(path), "bob@corp.org", "sqlite:////data/app.db")
    trail.record("thread_view", "t")
    produce = trail.exported(lambda: b"{}", "t", "cp", "", what="state json")
    assert path.read_text().count("\n") == 1  # nothing until the file is produced
    assert produce() == b"{}"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(x["action"], x.get("what")) for x in lines] == [("thread_view", None), ("export", "state json")]
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_without_a_path_nothing_is_written(tmp_path):
    AuditTrail(None, "a").record("thread_view", "t")
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_log_is_an_audit_error(tmp_path):
    with pytest.raises(AuditError, match="cannot write the audit log"):
        AuditTrail(str(tmp_path / "missing-dir" / "audit.log"), "a").record("thread_view", "t")


def _writer(path: str, writer: int, lines: int, go) -> None:
    trail = AuditTrail(path, f"user-{writer}", "sqlite:///x.db")
    go.wait(30)
    for n in range(lines):
        trail.record("checkpoint_view", f"thread-{writer}", f"{n:05d}-" + "c" * 300)


def test_several_processes_appending_at_once_never_interleave(tmp_path):
    path = str(tmp_path / "audit.log")
    writers, lines = 6, 400
    context = multiprocessing.get_context("fork")  # separate processes, each opening the file itself
    go = context.Event()
    procs = [context.Process(target=_writer, args=(path, w, lines, go)) for w in range(writers)]
    for proc in procs:
        proc.start()
    go.set()  # all write at once
    for proc in procs:
        proc.join(60)
        assert proc.exitcode == 0
    records = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]  # every line is whole JSON
    assert len(records) == writers * lines
    for w in range(writers):
        mine = [r["checkpoint"][:5] for r in records if r["user"] == f"user-{w}"]
        assert mine == [f"{n:05d}" for n in range(lines)]  # each process's lines, all there, in its order


def test_cli_commands_that_show_a_thread_are_recorded(demo_db, tmp_path, monkeypatch, capsys):
    from inspector.cli import main

    log = tmp_path / "audit.log"
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    db = f"sqlite:///{demo_db}"
    assert main(["threads", "--db", db]) == 0  # a list of threads is not a look at one
    assert main(["state", "--db", db, "demo-research", "--json"]) == 0
    assert main(["diff", "--db", db, "demo-vision"]) == 0
    records = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(r["action"], r["thread"], r["via"]) for r in records] == [
        ("checkpoint_view", "demo-research", "cli"), ("diff_view", "demo-vision", "cli")]
    assert all(r["user"].startswith("cli:") and r["store"] == db for r in records)
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(tmp_path / "missing" / "audit.log"))
    capsys.readouterr()
    assert main(["state", "--db", db, "demo-research"]) == 2
    assert "cannot write the audit log" in capsys.readouterr().err
