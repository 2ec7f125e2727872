"""DeerFlow's own database: found from its home folder, checkpoint threads only, WAL mode, read-only."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.demo import DEMO_THREADS
from inspector.settings import Settings
from inspector.store import StoreError, open_store
from inspector.store.apps import find_home
from inspector.store_url import resolve_db_url

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def deerflow_checkout(demo_db, tmp_path_factory) -> Path:
    """A DeerFlow checkout whose deerflow.db holds the demo checkpoints beside DeerFlow's own tables."""
    checkout = tmp_path_factory.mktemp("deer-flow")
    data = checkout / "backend" / ".deer-flow" / "data"
    data.mkdir(parents=True)
    db = data / "deerflow.db"
    shutil.copy(demo_db, db)
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("CREATE TABLE threads_meta (thread_id TEXT PRIMARY KEY, title TEXT, user_id TEXT)")
    conn.execute("CREATE TABLE runs (run_id TEXT PRIMARY KEY, thread_id TEXT, status TEXT)")
    conn.execute("INSERT INTO threads_meta VALUES ('only-in-meta', 'not a checkpoint thread', 'u1')")
    conn.execute("INSERT INTO runs VALUES ('r1', 'only-in-meta', 'success')")
    conn.commit()
    conn.close()
    return checkout


@pytest.mark.parametrize("level", ["checkout", "backend", "home"])
def test_home_is_found_from_any_level(deerflow_checkout, level):
    directory = {"checkout": deerflow_checkout, "backend": deerflow_checkout / "backend",
                 "home": deerflow_checkout / "backend" / ".deer-flow"}[level]
    found = find_home(directory)
    assert found.db == deerflow_checkout / "backend" / ".deer-flow" / "data" / "deerflow.db"
    assert found.threads_base == deerflow_checkout / "backend" / ".deer-flow"


def test_only_checkpoint_threads_are_listed_and_the_file_is_untouched(deerflow_checkout):
    db = find_home(deerflow_checkout).db
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    with open_store(f"deerflow://{deerflow_checkout}") as store:
        ids = {t.thread_id for t in store.threads(limit=100)}
        assert ids == set(DEMO_THREADS)
        assert "only-in-meta" not in ids
        assert store.state("demo-delta").rebuilt_channels == ("messages",)
    assert sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_deer_flow_home_variable_picks_the_store(deerflow_checkout, monkeypatch):
    monkeypatch.setenv("DEER_FLOW_HOME", str(deerflow_checkout / "backend" / ".deer-flow"))
    url = resolve_db_url(None, Settings())
    assert url.startswith("deerflow://")
    with open_store(url) as store:
        assert store.count_threads() == len(DEMO_THREADS)
    with open_store("deerflow:") as store:  # the bare form reads DEER_FLOW_HOME
        assert store.count_threads() == len(DEMO_THREADS)


def test_cli_deerflow_home_flag(deerflow_checkout):
    env = {k: v for k, v in os.environ.items() if k not in ("DEER_FLOW_HOME", "INSPECTOR_DB")}
    def run(*args):
        return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True,
                              text=True, cwd=REPO_ROOT, env=env, timeout=120)
    out = run("threads", "--deerflow-home", str(deerflow_checkout), "--json")
    assert out.returncode == 0, out.stderr
    assert {t["thread_id"] for t in json.loads(out.stdout)["threads"]} == set(DEMO_THREADS)
    state = run("state", "--deerflow-home", str(deerflow_checkout), "demo-delta", "--json")
    assert state.returncode == 0, state.stderr
    payload = json.loads(state.stdout)
    assert payload["rebuilt_channels"] == ["messages"] and "messages" not in payload["channel_bytes"]
    table = run("state", "--deerflow-home", str(deerflow_checkout), "demo-delta")
    assert "rebuilt from deltas" in table.stdout
    missing = run("threads", "--deerflow-home", str(deerflow_checkout / "nowhere"))
    assert missing.returncode == 2 and len(missing.stderr.strip().splitlines()) == 1
    assert "no DeerFlow database" in missing.stderr


def test_no_home_given(monkeypatch):
    monkeypatch.delenv("DEER_FLOW_HOME", raising=False)
    with pytest.raises(StoreError, match="DEER_FLOW_HOME"):
        open_store("deerflow:")
