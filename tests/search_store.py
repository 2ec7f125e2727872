"""Threads whose checkpoint metadata holds fake secrets beside visible values, written by a real LangGraph
graph: what the thread search may match (the titles, the user, the thread ids) and may not (the secrets)."""

from __future__ import annotations

from pathlib import Path

from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from secret_store import DB_PASSWORD, OPENAI_KEY, build_graph

KEY_THREAD = "ops-key-thread"  # its metadata holds the key inside a visible note, and a password
PLAIN_THREAD = "ops-plain-thread"  # the same visible values, no secret
TITLE = "Quarterly rollout"
USER = "support-demo"
KEY_PREFIX = OPENAI_KEY[:12]  # "sk-proj-T3st": what a search probing the key types first
PASSWORD_PREFIX = DB_PASSWORD[:9]  # "Hunter2-f"
TEAM = DB_PASSWORD[:7]  # "Hunter2": a secret's first characters, also shown in the plain thread's note
HISTORY_THREAD = "ops-history-thread"
HISTORY_USER = "mallory"
WRITTEN = "please use this one"
HISTORY_TITLE = "Incident notes"  # the history thread's title write, followed by the key


def run_search_threads(checkpointer: BaseCheckpointSaver) -> None:
    """Both threads, run through the secret thread's graph; the run's metadata is copied into every checkpoint."""
    graph = build_graph(checkpointer)
    for thread, note, password in (
        (KEY_THREAD, f"user said: deploy with {OPENAI_KEY} please", DB_PASSWORD),
        (PLAIN_THREAD, f"user said: deploy when {TEAM} is ready", ""),
    ):
        metadata = {"title": TITLE, "user": USER, "note": note, "password": password}
        graph.invoke({"messages": []}, {"configurable": {"thread_id": thread}, "metadata": metadata})


def put_history_thread(saver: BaseCheckpointSaver) -> None:
    """A thread whose older checkpoint shows ``HISTORY_USER`` and whose newer one holds it only in a password;
    the newer one also records its step's writes in metadata, as DeerFlow's checkpoints do (a user message
    holding the key: savers that keep the ``writes`` key store it)."""
    config = {"configurable": {"thread_id": HISTORY_THREAD, "checkpoint_ns": ""}}
    for metadata in ({"source": "input", "step": -1, "user": HISTORY_USER},
                     {"source": "loop", "step": 0, "password": f"{HISTORY_USER}-pw-2026",
                      "writes": {"__start__": {"messages": [{"type": "human", "content": f"{WRITTEN} {OPENAI_KEY}"}]}}}):
        config = saver.put(config, empty_checkpoint(), metadata, {})
    # a title written by a task, as DeerFlow's title node writes it: shown (and searched) masked
    saver.put_writes(config, [("title", f"{HISTORY_TITLE} {OPENAI_KEY}")], "title-task")


def write_search_store(path: Path) -> Path:
    with SqliteSaver.from_conn_string(str(path)) as saver:
        run_search_threads(saver)
        put_history_thread(saver)
    return path
