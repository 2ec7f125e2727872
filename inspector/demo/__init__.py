"""The demo agent: a real LangGraph graph over ``ThreadState``, checkpointed by any LangGraph saver.

``write_demo(dir)`` creates ``dir/demo.db`` (``SqliteSaver``) with the threads in
``DEMO_THREADS`` and their files under ``dir/threads/{thread_id}/user-data/``;
``write_demo_postgres(dsn, dir)`` writes the same threads with ``PostgresSaver``;
``run_demo(checkpointer, dir)`` drives them through any other saver. The model is
scripted, so the content is the same on every run; only checkpoint ids differ.

May import ``schema`` (the state and its reducers) and ``profiles.deerflow.files.user_data`` (the folders' names);
nothing else of ``inspector``: the demo is an agent, not part of the inspector.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo.threads import THREADS, Demo

DB_NAME = "demo.db"

DEMO_THREADS: dict[str, str] = {thread_id: description for thread_id, (description, _) in THREADS.items()}


def default_demo_dir() -> Path:
    """``$INSPECTOR_DEMO_DIR``, else ``<repo root>/demo-data``."""
    configured = os.environ.get("INSPECTOR_DEMO_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "demo-data"


def _remove_db(db: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)


def run_demo(checkpointer: BaseCheckpointSaver, out_dir: str | Path) -> Path:
    """Run every demo thread through ``checkpointer``; thread folders go under ``out_dir``."""
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out / "threads", ignore_errors=True)
    demo = Demo(out, checkpointer)
    for _, run in THREADS.values():
        run(demo)
    return out


def write_demo_postgres(dsn: str, out_dir: str | Path) -> Path:
    """Write the demo threads into the PostgreSQL database ``dsn`` with LangGraph's ``PostgresSaver``.

    Creates LangGraph's tables (``setup()``) when missing; threads already there are replaced.
    Returns ``out_dir``, which holds the thread folders.
    """
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        for thread_id in THREADS:
            saver.delete_thread(thread_id)
        return run_demo(saver, out_dir)


def write_demo(out_dir: str | Path) -> Path:
    """(Re)create ``out_dir/demo.db`` and the threads' files; returns the database path.

    The database is built under a temporary name and renamed when complete, so
    ``demo.db`` is never seen half-written.
    """
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    db, building = out / DB_NAME, out / f"{DB_NAME}.building"
    for stale in (db, building):
        _remove_db(stale)
    conn = sqlite3.connect(building, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        conn.execute("PRAGMA synchronous=OFF")
        run_demo(saver, out)
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    os.replace(building, db)
    return db


def ensure_demo(out_dir: str | Path | None = None) -> Path:
    """The demo database's path, writing the demo first if ``demo.db`` is missing."""
    out = Path(out_dir) if out_dir is not None else default_demo_dir()
    db = out.resolve() / DB_NAME
    return db if db.exists() else write_demo(out)


__all__ = ["DEMO_THREADS", "default_demo_dir", "ensure_demo", "run_demo", "write_demo", "write_demo_postgres"]
