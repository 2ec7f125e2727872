"""Altered copies of a SQLite store: one stored checkpoint changed the way a buggy writer would, through
LangGraph's own saver and serializer, so a replay check has exactly one step and field to flag."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.sqlite import SqliteSaver


def rewrite_checkpoint(db: Path | str, thread_id: str, change: Callable[[dict[str, Any]], None],
                       checkpoint_id: str | None = None) -> str:
    """Apply ``change`` to the channel values of one root checkpoint (the newest when no id is given) and
    store it again; returns the id of the checkpoint changed."""
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        config: dict[str, Any] = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
        if checkpoint_id is not None:
            config["configurable"]["checkpoint_id"] = checkpoint_id
        checkpoint = SqliteSaver(conn).get_tuple(config).checkpoint
        change(checkpoint["channel_values"])
        type_tag, blob = JsonPlusSerializer().dumps_typed(checkpoint)
        conn.execute("UPDATE checkpoints SET type = ?, checkpoint = ? WHERE thread_id = ? AND checkpoint_ns = '' "
                     "AND checkpoint_id = ?", (type_tag, blob, thread_id, checkpoint["id"]))
        conn.commit()
        return checkpoint["id"]
    finally:
        conn.close()


def rewrite_stored_checkpoint(db: Path | str, thread_id: str, change: Callable[[dict[str, Any]], None],
                              checkpoint_id: str | None = None) -> str:
    """``rewrite_checkpoint`` in raw SQL, for a table layout the installed saver would migrate on opening
    (``SqliteSaver.setup`` adds ``writes.task_path`` to a store written by ``langgraph-checkpoint-sqlite``
    3.1.1): the blob decoded and encoded again with LangGraph's serializer; returns the id changed."""
    conn = sqlite3.connect(db)
    try:
        where = "thread_id = ? AND checkpoint_ns = ''" + (" AND checkpoint_id = ?" if checkpoint_id else "")
        params = [thread_id, *([checkpoint_id] if checkpoint_id else [])]
        found, type_tag, blob = conn.execute(f"SELECT checkpoint_id, type, checkpoint FROM checkpoints WHERE {where} "
                                             "ORDER BY checkpoint_id DESC LIMIT 1", params).fetchone()
        serde = JsonPlusSerializer()
        checkpoint = serde.loads_typed((type_tag, blob))
        change(checkpoint["channel_values"])
        type_tag, blob = serde.dumps_typed(checkpoint)
        conn.execute("UPDATE checkpoints SET type = ?, checkpoint = ? WHERE thread_id = ? AND checkpoint_ns = '' "
                     "AND checkpoint_id = ?", (type_tag, blob, thread_id, found))
        conn.commit()
        return found
    finally:
        conn.close()
