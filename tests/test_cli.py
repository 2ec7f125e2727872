"""`python -m inspector` as a user runs it: real processes, JSON with stable keys, exit codes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


def run(*args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=120
    )


def test_threads_json(demo_db):
    out = run("threads", "--db", str(demo_db), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {"total", "threads"}
    ids = {t["thread_id"] for t in data["threads"]}
    assert {"demo-research", "demo-vision", "demo-long"} <= ids
    assert set(data["threads"][0]) == {
        "thread_id", "checkpoints", "newest_checkpoint_id", "updated_at", "stored_bytes", "title", "namespaces",
        "profile",
    }
    profiles = {t["thread_id"]: t["profile"] for t in data["threads"]}
    assert profiles["demo-research"]["name"] == "deerflow" and profiles["demo-research"]["reason"].startswith("DeerFlow")


def test_threads_table(demo_db):
    out = run("threads", "--db", f"sqlite:///{demo_db}", "--search", "research")
    assert out.returncode == 0
    assert out.stdout.splitlines()[0].split()[:2] == ["thread", "title"]
    assert "demo-research" in out.stdout and "demo-vision" not in out.stdout


def test_timeline_and_state_json_agree(demo_db):
    timeline = json.loads(run("timeline", "--db", str(demo_db), "demo-research", "--json").stdout)
    middle = timeline["checkpoints"][len(timeline["checkpoints"]) // 2]
    out = run("state", "--db", str(demo_db), "demo-research", "--checkpoint", middle["checkpoint_id"], "--json")
    assert out.returncode == 0, out.stderr
    state = json.loads(out.stdout)
    assert state["checkpoint_id"] == middle["checkpoint_id"]
    assert state["parent_checkpoint_id"] == middle["parent_checkpoint_id"]
    assert state["metadata"]["step"] == middle["step"]
    assert "messages" in state["values"] and state["internal"] is None
    assert set(state["channel_bytes"]) >= set(state["values"])


@pytest.mark.parametrize(
    "args, needle",
    [
        (("threads", "--db", "/nope/missing.db"), "no SQLite database"),
        (("timeline", "--db", "DEMO", "no-such-thread"), "no thread"),
        (("state", "--db", "DEMO", "demo-research", "--checkpoint", "bogus"), "no checkpoint"),
        (("state", "--db", "DEMO", "demo-research", "--ns", "x:1"), "no checkpoint in namespace 'x:1'"),
        (("frobnicate",), "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(demo_db, args, needle):
    args = tuple(str(demo_db) if a == "DEMO" else a for a in args)
    out = run(*args)
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0]


def test_demo_command_writes_a_database(tmp_path):
    out = run("demo", "--out", str(tmp_path / "d"))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "d" / "demo.db").is_file()
    listed = json.loads(run("threads", "--db", str(tmp_path / "d" / "demo.db"), "--json").stdout)
    assert listed["total"] >= 8


def test_an_unexpected_failure_is_one_line_and_exit_1(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    out = run("demo", "--out", str(blocker / "demo"))
    assert out.returncode == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in out.stderr
