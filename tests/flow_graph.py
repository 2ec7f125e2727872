"""A store written by a real LangGraph graph whose flow has every shape the flow views name.

One thread (``FLOW_THREAD``) runs: ``plan`` fans out with ``Send`` to two parallel ``search``
tasks, a ``research`` subgraph (its own nodes ``gather`` then ``summarise``, in its own
namespace), then ``review``, which interrupts; the run is resumed and ``write`` finishes.
Then an ``update_state`` edits the newest state (``update``), and the thread is forked from
an older checkpoint (``update_state`` on a checkpoint that is not the newest) and run on from
the fork. LangGraph's own ``SqliteSaver`` stores it.
"""

from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, Send, interrupt

FLOW_THREAD = "flow-thread"


class FlowState(TypedDict, total=False):
    topic: str
    queries: list[str]
    found: Annotated[list[str], operator.add]
    summary: str
    approved: bool
    report: str


class ResearchState(TypedDict, total=False):
    found: Annotated[list[str], operator.add]
    summary: str


def plan(state: FlowState) -> dict:
    return {"queries": [f"{state['topic']} history", f"{state['topic']} today"]}


def fan_out(state: FlowState) -> list[Send]:
    return [Send("search", {"topic": q}) for q in state["queries"]]


def search(state: dict) -> dict:
    return {"found": [f"result for {state['topic']}"]}


def gather(state: ResearchState) -> dict:
    return {"found": ["gathered note"]}


def summarise(state: ResearchState) -> dict:
    return {"summary": f"{len(state.get('found', []))} findings"}


def review(state: FlowState) -> dict:
    answer = interrupt({"question": "approve the summary?", "summary": state.get("summary")})
    return {"approved": bool(answer)}


def write(state: FlowState) -> dict:
    return {"report": f"report on {state['topic']}: {state.get('summary')}"}


def build(saver: SqliteSaver):
    inner = StateGraph(ResearchState)
    inner.add_node("gather", gather)
    inner.add_node("summarise", summarise)
    inner.add_edge(START, "gather")
    inner.add_edge("gather", "summarise")
    inner.add_edge("summarise", END)

    graph = StateGraph(FlowState)
    graph.add_node("plan", plan)
    graph.add_node("search", search)
    graph.add_node("research", inner.compile())
    graph.add_node("review", review)
    graph.add_node("write", write)
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", fan_out, ["search"])
    graph.add_edge("search", "research")
    graph.add_edge("research", "review")
    graph.add_edge("review", "write")
    graph.add_edge("write", END)
    return graph.compile(checkpointer=saver)


def write_store(path: Path) -> Path:
    """Write the flow thread into a new SQLite store at ``path``; returns ``path``."""
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        app = build(saver)
        config = {"configurable": {"thread_id": FLOW_THREAD}}
        app.invoke({"topic": "tides"}, config)  # stops at review's interrupt
        app.invoke(Command(resume=True), config)
        app.update_state(config, {"summary": "edited by hand"}, as_node="write")
        older = [s for s in app.get_state_history(config) if s.next == ("research",)][0]
        forked = app.update_state(older.config, {"topic": "waves"}, as_node="search")
        app.invoke(None, forked, interrupt_before=["review"])
    finally:
        conn.close()
    return path
