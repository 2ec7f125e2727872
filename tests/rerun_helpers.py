"""A second run of the demo's research task, written by the demo graph into a copy of the demo database."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo.model import Script, say
from inspector.demo.threads import Demo, research_script

FIRST, SECOND = "demo-research", "demo-research-rerun"
NEW_ANSWER = "Added the chart; the 2022 spike came from lithium prices, which fell back by 2024."


def second_run_script() -> Script:
    """The research task again, under another thread id (so every id differs), ending with a different answer."""
    script = research_script()
    first, second = script.turns
    changed = dataclasses.replace(second, replies=(*second.replies[:-1], say(NEW_ANSWER)))
    return dataclasses.replace(script, thread_id=SECOND, turns=(first, changed))


def demo_with_second_run(demo_db: Path, folder: Path) -> Path:
    """A copy of the demo database in ``folder`` with the second run added (a real LangGraph run)."""
    db = folder / "demo.db"
    db.write_bytes(demo_db.read_bytes())
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        demo = Demo(folder, SqliteSaver(conn))
        script = second_run_script()
        demo.chat(demo.agent(script), script)
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return db
