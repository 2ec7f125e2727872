"""Broken histories named: a copy of a SqliteSaver store whose parent pointers were rewritten into a
cycle, a self-parent and a missing parent. Timeline and replay name the problem and do not replay
across it; the thread page shows it and still renders."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from secret_store import THREAD, write_secret_store
from ui_app import all_text, open_page

from inspector import profiles
from inspector.diff import replay_thread
from inspector.store import open_store

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def broken(tmp_path_factory) -> tuple[Path, list[str]]:
    """Three copies of one thread: ``cycle`` (step 1 -> step 3 -> step 2 -> step 1), ``self`` (step 2 names
    itself) and ``missing`` (step 2's parent is not in the store). Returns the store and the ids, oldest first."""
    folder = tmp_path_factory.mktemp("broken")
    source = write_secret_store(folder / "source.db")
    db = folder / "broken.db"
    shutil.copy(source, db)
    with sqlite3.connect(db) as conn:
        for table in ("checkpoints", "writes"):
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            for copy in ("cycle", "self", "missing"):
                listed = ", ".join(columns)
                picked = ", ".join("?" if c == "thread_id" else c for c in columns)
                conn.execute(f"INSERT INTO {table} ({listed}) SELECT {picked} FROM {table} WHERE thread_id = ?",
                             [copy, THREAD])
        ids = [r[0] for r in conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? ORDER BY checkpoint_id", [THREAD])]
        step = dict(enumerate(ids, start=-1))  # ids by step: -1 (input) .. 3
        update = "UPDATE checkpoints SET parent_checkpoint_id = ? WHERE thread_id = ? AND checkpoint_id = ?"
        conn.execute(update, [step[3], "cycle", step[1]])
        conn.execute(update, [step[2], "self", step[2]])
        conn.execute(update, ["1f0aaaaa-0000-6000-8000-000000000000", "missing", step[2]])
    return db, ids


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO_ROOT,
                          timeout=120)


@pytest.mark.parametrize("thread, kind, broken_steps", [
    ("cycle", "parent cycle", {1, 2, 3}),
    ("self", "parent cycle", {2}),
    ("missing", "missing parent", {2}),
])
def test_replay_stops_at_a_broken_link_instead_of_reporting_mismatches(broken, thread, kind, broken_steps):
    db, _ = broken
    # The thread holds DeerFlow's ThreadState, named here: without DeerFlow's evidence its fields would be
    # unverified, and this test is about the steps that can be checked.
    with open_store(str(db)) as store, profiles.reading(store, thread, named="deerflow"):
        steps = replay_thread(store, thread)
    assert [s for s in steps if s.status == "mismatch"] == []
    stopped = {s.step for s in steps if s.status == "broken"}
    assert stopped == broken_steps
    assert all(s.note.startswith(kind + ":") for s in steps if s.status == "broken")
    assert {s.status for s in steps if s.step not in broken_steps and s.step != -1} <= {"match"}

    out = cli("replay", "--db", str(db), "--profile", "deerflow", thread)
    assert out.returncode == 1
    summary, counts = out.stdout.strip().splitlines()[-2:]
    assert summary == f"5 checkpoint(s), 0 replay mismatch(es), {len(broken_steps)} not replayed: broken history"
    assert counts.startswith(f"{4 - len(broken_steps)} step(s) replayed")
    assert f"broken  {kind}:" in out.stdout
    data = json.loads(cli("replay", "--db", str(db), "--profile", "deerflow", thread, "--json").stdout)
    assert data["matches"] is True and len(data["broken_history"]) == len(broken_steps)


def test_the_sound_copy_replays_cleanly(broken):
    db, _ = broken
    out = cli("replay", "--db", str(db), THREAD)
    assert out.returncode == 0 and "broken" not in out.stdout


@pytest.mark.parametrize("thread, needle", [
    ("cycle", "parent cycle: 3 checkpoints name each other as parents"),
    ("self", "names itself as its parent"),
    ("missing", "missing parent: checkpoint"),
])
def test_timeline_names_the_problem(broken, thread, needle):
    db, _ = broken
    table = cli("timeline", "--db", str(db), thread)
    problems = [line for line in table.stdout.splitlines() if line.startswith("problem: ")]
    assert table.returncode == 0 and len(problems) == 1 and needle in problems[0]
    data = json.loads(cli("timeline", "--db", str(db), thread, "--json").stdout)
    assert any(needle in p["message"] for p in data["problems"]) and len(data["checkpoints"]) == 5
    sound = json.loads(cli("timeline", "--db", str(db), THREAD, "--json").stdout)
    assert sound["problems"] == []


@pytest.fixture
def app_on_broken(broken, monkeypatch):
    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{broken[0]}")
    connection.settings.clear()
    yield broken
    connection.settings.clear()


@pytest.mark.parametrize("thread, needle", [("cycle", "parent cycle"), ("self", "parent cycle"),
                                            ("missing", "missing parent")])
def test_thread_page_shows_the_problem_and_still_renders(app_on_broken, thread, needle):
    _, ids = app_on_broken
    for checkpoint in (None, ids[2]):  # the newest, then a checkpoint on the broken link (step 1)
        at = open_page("thread", thread=thread, **({"checkpoint": checkpoint} if checkpoint else {}))
        assert not at.exception, at.exception
        errors = [e.value for e in at.error]
        assert any(e.startswith(needle + ":") for e in errors), errors
        assert "5 checkpoint(s)" in all_text(at)
        assert not any("replay does not match" in e for e in errors + [w.value for w in at.warning])
