"""A store written by a real LangGraph graph whose parallel task fails: LangGraph's own error writes.

One thread (``FAILING_THREAD``): ``plan`` fans out with ``Send`` to three ``fetch`` tasks, the second of which
raises. The run stops there with the error stored as a write (``__error__``); it is resumed once the source is
back, and finishes (the step's checkpoint holds the failed task's error write beside its result). A second run
fails the same way and is left where it stopped: no checkpoint follows the failed task. ``SqliteSaver`` stores it.

The failing task raises only once its two siblings have finished: LangGraph cancels a sibling still running
when a task fails, and stores an error for it too (a ``CancelledError``), which a loaded machine would
otherwise make happen now and then.

A second thread (``CANCELLED_THREAD``, ``write_cancelled``) has exactly that: its first ``fetch`` fails at once
while the tasks run one at a time (``max_concurrency=1``) and the others take a moment, so LangGraph cancels the
one still waiting and stores a ``CancelledError`` for it beside the failed task's error; the run stops there.
"""

from __future__ import annotations

import contextlib
import operator
import sqlite3
import threading
import time
from pathlib import Path
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

FAILING_THREAD = "failing-thread"
CANCELLED_THREAD = "cancelled-thread"


class FetchState(TypedDict, total=False):
    topic: str
    found: Annotated[list[str], operator.add]


def _fan_out_graph(saver, fetch):
    """``plan`` sends three ``fetch`` tasks (``{"n": 0..2}``), then the run ends."""

    def plan(state: FetchState) -> dict:
        return {"topic": state.get("topic", "")}

    def fan_out(state: FetchState) -> list[Send]:
        return [Send("fetch", {"n": n}) for n in range(3)]

    graph = StateGraph(FetchState)
    graph.add_node("plan", plan)
    graph.add_node("fetch", fetch)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", fan_out, ["fetch"])
    graph.add_edge("fetch", END)
    return graph.compile(checkpointer=saver)


def build(saver: SqliteSaver, source: dict[str, bool]):
    finished = threading.Condition()
    done: set[int] = set()

    def fetch(state: dict) -> dict:
        n = state["n"]
        if n == 1 and not source["up"]:
            with finished:  # its siblings finish first: none of them is cancelled by its failure
                finished.wait_for(lambda: {0, 2} <= done, timeout=30)
                done.clear()
            raise RuntimeError("the source is down")
        with finished:
            done.add(n)
            finished.notify_all()
        return {"found": [f"page {n}"]}

    return _fan_out_graph(saver, fetch)


def write_store(path: Path) -> Path:
    """Write the failing thread into a new SQLite store at ``path``; returns ``path``."""
    conn = sqlite3.connect(path, check_same_thread=False)
    source = {"up": False}
    try:
        app = build(SqliteSaver(conn), source)
        config = {"configurable": {"thread_id": FAILING_THREAD}}
        for resume in (True, False):
            source["up"] = False
            with contextlib.suppress(RuntimeError):  # the run stops at the failed task
                app.invoke({"topic": "tides"}, config)
            if resume:
                source["up"] = True
                app.invoke(None, config)
    finally:
        conn.close()
    return path


def build_cancelling(saver):
    """``plan`` sends three ``fetch`` tasks; the first fails at once, the others take half a second."""

    def fetch(state: dict) -> dict:
        if state["n"] == 0:
            raise RuntimeError("the source is down")
        time.sleep(0.5)
        return {"found": [f"page {state['n']}"]}

    return _fan_out_graph(saver, fetch)


def write_cancelled_store(path: Path) -> Path:
    """Write ``CANCELLED_THREAD`` into a new SQLite store at ``path``; returns ``path``."""
    with contextlib.closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        write_cancelled(SqliteSaver(conn))
    return path


def write_cancelled(saver) -> None:
    """Run ``CANCELLED_THREAD`` with ``saver`` until its failed task stops it (a cancelled sibling beside it)."""
    config = {"configurable": {"thread_id": CANCELLED_THREAD}, "max_concurrency": 1}
    with contextlib.suppress(RuntimeError):
        build_cancelling(saver).invoke({"topic": "tides"}, config)
