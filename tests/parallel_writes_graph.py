"""Threads whose steps fold parallel writes into one channel, for whichever ``SqliteSaver`` is installed.

Written by ``langgraph-checkpoint-sqlite`` 3.1.1 (DeerFlow's pin, whose writes table has no ``task_path``)
in an environment of its own (``tests/test_replay_task_order.py``), and by the suite's own saver:

- ``df-parallel``: the DeerFlow-shaped graph of ``deerflow_main_graph`` with each tool call sent to the
  tool node with ``Send``, as LangChain's ``create_agent`` does: a turn calling ``view_image`` and ``ls``
  at once, then a turn of six parallel calls (three ``ls``, two ``present_files``, a ``view_image``);
- ``df-parallel-stopped``: the first of those turns, stopped right after the parallel tool step (so its
  newest checkpoint is the one the two tool tasks made);
- ``sends-six``: a plain graph whose ``plan`` sends six ``work`` tasks while two pulled nodes (``audit``,
  ``other``) run in the same step, every one appending to an ``operator.add`` list.

Run as a script: ``python parallel_writes_graph.py STORE.db`` (the folder of this file and the checkout's
root on the path).
"""

from __future__ import annotations

import operator
import sqlite3
import sys
from pathlib import Path
from typing import Annotated, TypedDict

from deerflow_main_graph import build, call, run_thread
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from inspector.schema.thread_state import ThreadState

PARALLEL_THREAD, STOPPED_THREAD, SENDS_THREAD = "df-parallel", "df-parallel-stopped", "sends-six"
TWO_TOOLS = [call("view_image", path="/mnt/user-data/uploads/chart.png", size=3072),
             call("ls", path="/mnt/user-data/uploads")]
SIX_TOOLS = [call("ls", path="/mnt/user-data/workspace"), call("present_files", paths=["/mnt/user-data/outputs/b.md"]),
             call("ls", path="/mnt/user-data/outputs"), call("view_image", path="/mnt/user-data/uploads/map.png", size=2048),
             call("present_files", paths=["/mnt/user-data/outputs/a.md", "/mnt/user-data/outputs/b.md"]),
             call("ls", path="/mnt/user-data/uploads")]
TURNS = [
    {"text": "What is in the chart I uploaded?", "actions": [TWO_TOOLS, "The chart shows freight by lane."]},
    {"text": "Look around and write it up.", "actions": [SIX_TOOLS, "Written up in a.md and b.md."]},
]


class SendsState(TypedDict, total=False):
    jobs: list[str]
    items: Annotated[list[str], operator.add]


def _plan(state: SendsState) -> dict:
    return {"jobs": [f"job-{letter}" for letter in "fedcba"]}


def _fan_out(state: SendsState) -> list[Send]:
    return [Send("work", {"job": job}) for job in state["jobs"]]


def _work(packet: dict) -> dict:
    return {"items": [packet["job"]]}


def _audit(state: SendsState) -> dict:
    return {"items": ["audit"]}


def _other(state: SendsState) -> dict:
    return {"items": ["other"]}


def sends_graph(checkpointer=None):
    graph = StateGraph(SendsState)
    for name, node in (("plan", _plan), ("work", _work), ("audit", _audit), ("other", _other)):
        graph.add_node(name, node)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", _fan_out, ["work"])
    graph.add_edge("plan", "other")
    graph.add_edge("plan", "audit")
    for name in ("work", "audit", "other"):
        graph.add_edge(name, END)
    return graph.compile(checkpointer=checkpointer)


def write_threads(saver) -> None:
    app = build(ThreadState, saver, sends=True)
    run_thread(app, PARALLEL_THREAD, turns=TURNS)
    stopped = build(ThreadState, saver, sends=True)
    stopped.invoke({"messages": [("human", TURNS[0]["text"])]},
                   {"configurable": {"thread_id": STOPPED_THREAD, "actions": TURNS[0]["actions"]},
                    "recursion_limit": 50}, interrupt_after=["tools"])
    sends = sends_graph(saver)
    config = {"configurable": {"thread_id": SENDS_THREAD}}
    sends.invoke({"items": []}, config)
    sends.invoke({"items": ["again"]}, config)


def write_store(path: Path) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        write_threads(SqliteSaver(conn))
    finally:
        conn.close()
    return path


if __name__ == "__main__":
    write_store(Path(sys.argv[1]))
