"""An app's own state schema for the ``--schema`` tests: DeerFlow's ThreadState plus a field merged by a
custom reducer, and a graph over it that writes that field from two nodes in one step."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph

from inspector.schema.thread_state import ThreadState

THREAD = "scored"


def keep_max(existing: int, new: int) -> int:
    """The best score so far."""
    return max(existing, new)


class ScoredState(ThreadState):
    score: Annotated[int, keep_max]


def grader_high(state: dict) -> dict:
    return {"score": 7 + len(state["messages"])}


def grader_low(state: dict) -> dict:  # runs beside grader_high; written last, so "replace" would keep it
    return {"score": 1}


def answer(state: dict) -> dict:
    return {"messages": [AIMessage(f"score so far: {state['score']}", id=f"ai-{len(state['messages'])}")]}


def build_graph(checkpointer=None):
    graph = StateGraph(ScoredState)
    graph.add_node("grader_high", grader_high)
    graph.add_node("grader_low", grader_low)
    graph.add_node("answer", answer)
    graph.add_edge(START, "grader_high")
    graph.add_edge(START, "grader_low")
    graph.add_edge(["grader_high", "grader_low"], "answer")
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=checkpointer)


graph = build_graph()  # what a langgraph.json "graphs" entry names


def write_store(path: Path) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        app = build_graph(SqliteSaver(conn))
        for number, text in enumerate(("Grade my essay.", "And now?", "Once more.")):
            app.invoke({"messages": [HumanMessage(text, id=f"human-{number}")]}, {"configurable": {"thread_id": THREAD}})
    finally:
        conn.close()
    return path
