"""A graph whose subgraph keeps its own state: the parent holds ``messages``; the ``research`` node is a
compiled subgraph that also keeps ``notes`` (``operator.add``), a field the parent does not declare. Its
checkpoints live in their own namespace (``research:<task id>``). ``graph``: for ``--schema``."""

from __future__ import annotations

import operator
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

THREAD = "nested"


class ParentState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


class ResearchState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    notes: Annotated[list[str], operator.add]


def take_note(state: ResearchState) -> dict:
    return {"notes": [f"note {len(state['messages'])}"]}


def take_another(state: ResearchState) -> dict:
    return {"notes": ["another"], "messages": [AIMessage(f"{len(state['notes'])} notes", id=f"ai-{len(state['messages'])}")]}


def build_research():
    sub = StateGraph(ResearchState)
    sub.add_node("take_note", take_note)
    sub.add_node("take_another", take_another)
    sub.add_edge(START, "take_note")
    sub.add_edge("take_note", "take_another")
    sub.add_edge("take_another", END)
    return sub.compile()


def build_graph(checkpointer=None):
    parent = StateGraph(ParentState)
    parent.add_node("research", build_research())
    parent.add_edge(START, "research")
    parent.add_edge("research", END)
    return parent.compile(checkpointer=checkpointer)


graph = build_graph()


def write_store(path: Path) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        app = build_graph(SqliteSaver(conn))
        for number in range(2):
            app.invoke({"messages": [HumanMessage(f"question {number}", id=f"human-{number}")]},
                       {"configurable": {"thread_id": THREAD}})
    finally:
        conn.close()
    return path
