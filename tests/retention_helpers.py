"""Stores for retention tests: the demo threads plus a DeerFlow branch thread, written by LangGraph's savers."""

from __future__ import annotations

import copy
import sqlite3
from collections import defaultdict
from contextlib import closing
from pathlib import Path
from typing import Any

from langgraph.checkpoint.base.id import uuid6
from langgraph.checkpoint.sqlite import SqliteSaver

BRANCH_THREAD = "branch-of-research"
BRANCHED_FROM = "demo-research"
# A thread id that ends a badly quoted literal: a quote, a backslash-quote (an escaped quote where a server
# reads backslash escapes), a statement and a comment, on two lines.
HOSTILE_THREAD = "o'brien\\'; DELETE FROM checkpoints; --\nDELETE FROM writes; --"


def add_deerflow_branch(saver: Any, parent_thread: str = BRANCHED_FROM, thread_id: str = BRANCH_THREAD) -> str:
    """What DeerFlow's ``POST /api/threads/{id}/branches`` writes: a copy of one of ``parent_thread``'s
    checkpoints as the first checkpoint of a new thread, with ``branch_parent_*`` metadata.
    Returns the checkpoint branched from (the parent thread's step-6 checkpoint)."""
    history = list(saver.list({"configurable": {"thread_id": parent_thread, "checkpoint_ns": ""}}))
    source = next(t for t in history if t.metadata.get("step") == 6)
    parent_checkpoint = source.config["configurable"]["checkpoint_id"]
    checkpoint = copy.deepcopy(source.checkpoint)
    checkpoint["id"] = str(uuid6())
    metadata = {**copy.deepcopy(source.metadata), "source": "branch", "deerflow_branch": True,
                "branch_parent_thread_id": parent_thread, "branch_parent_checkpoint_id": parent_checkpoint,
                "branch_parent_message_id": "demo-research-ai-3", "branch_created_at": "2026-08-22T10:00:00Z"}
    saver.put({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}, checkpoint, metadata,
              dict(checkpoint.get("channel_versions") or {}))
    return parent_checkpoint


def sqlite_store_with_branch(demo_db: Path, out: Path) -> tuple[Path, str]:
    """A copy of the demo database (byte for byte: its pages as LangGraph left them) plus a branch thread."""
    out.write_bytes(demo_db.read_bytes())
    conn = sqlite3.connect(out, check_same_thread=False)
    try:
        parent = add_deerflow_branch(SqliteSaver(conn))
        conn.commit()
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return out, parent


def parents(db: Path) -> dict[tuple[str, str, str], str | None]:
    """(thread, ns, checkpoint) -> parent id, read directly."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return {(t, ns, c): p for t, ns, c, p in conn.execute(
            "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id FROM checkpoints")}


def lost_parents(before: dict, after: dict) -> dict[tuple[str, str, str], str]:
    """Checkpoints still there whose parent is not (or whose parent was set to NULL): key -> the old parent."""
    lost = {}
    for key, parent in before.items():
        if key in after and parent is not None and (after[key] is None or (key[0], key[1], parent) not in after):
            lost[key] = parent
    return lost


def lost_junctions(before: dict, after: dict) -> set[tuple[str, str, str]]:
    """Checkpoints that went although two surviving lines met there: every fork point deletion split."""
    children: dict[tuple, list[tuple]] = defaultdict(list)
    for (thread, ns, cid), parent in before.items():
        if parent is not None and (thread, ns, parent) in before:
            children[(thread, ns, parent)].append((thread, ns, cid))

    def survives_below(key: tuple, memo: dict) -> bool:
        if key not in memo:
            stack, order = [key], []
            while stack:
                node = stack.pop()
                order.append(node)
                stack.extend(c for c in children[node] if c not in memo)
            for node in reversed(order):
                memo[node] = node in after or any(memo.get(c, False) for c in children[node])
        return memo[key]

    memo: dict = {}
    return {key for key in before if key not in after
            and sum(1 for c in children[key] if survives_below(c, memo)) >= 2}
