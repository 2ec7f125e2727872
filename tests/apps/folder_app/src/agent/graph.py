"""The app's graph: two nodes write ``best`` in one step, folded by the app's own reducer."""

from __future__ import annotations

from fakemodel import reply
from langgraph.graph import END, START, StateGraph

from agent.state import FolderState


def short(state: FolderState) -> dict:
    return {"best": reply(len(state.get("log", [])))}


def long(state: FolderState) -> dict:
    return {"best": reply(len(state.get("log", []))) + " with more words", "log": [*state.get("log", []), "long"]}


def build(checkpointer=None):
    builder = StateGraph(FolderState)
    builder.add_node("short", short)
    builder.add_node("long", long)
    builder.add_edge(START, "short")
    builder.add_edge(START, "long")
    builder.add_edge(["short", "long"], END)
    return builder.compile(checkpointer=checkpointer)


graph = build()
