"""A graph with a subgraph, written in both channel modes by LangGraph's own savers: each turn the root graph's
``research`` node runs a subgraph of three steps (its checkpoints stored in a namespace of their own,
``research:<task id>``), and both graphs keep ``messages`` as a plain reducer channel (full mode) or as
LangGraph's ``DeltaChannel`` at a snapshot frequency. The subgraph also presents an artifact and records an
upload the root graph never holds, so a command reading the subgraph's namespace shows what the root's does not.
"""

from __future__ import annotations

import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

from delta_modes_store import fold_messages, write_postgres, write_sqlite, write_threads
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.channels import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

TURNS = 6
FULL_THREAD = "sub-full"
SUB_ARTIFACT = "/mnt/user-data/outputs/subgraph-notes.md"
ROOT_ARTIFACT = "/mnt/user-data/outputs/report.md"
SUB_UPLOAD = {"filename": "sources.csv", "size": 12, "path": "/mnt/user-data/uploads/sources.csv", "extension": ".csv"}


def delta_thread(frequency: int) -> str:
    return f"sub-delta-{frequency}"


def _messages(frequency: int | None):
    return add_messages if frequency is None else DeltaChannel(fold_messages, snapshot_frequency=frequency)


def build_graph(checkpointer, frequency: int | None):
    sub_state = TypedDict("SubState", {"messages": Annotated[list[AnyMessage], _messages(frequency)],
                                       "artifacts": Annotated[list[str], operator.add],
                                       "uploaded_files": list[dict]}, total=False)
    root_state = TypedDict("RootState", {"messages": Annotated[list[AnyMessage], _messages(frequency)],
                                         "artifacts": Annotated[list[str], operator.add],
                                         "thread_data": dict, "title": str}, total=False)

    def gather(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage("gathered " + "source " * (25 * n), id=f"gather-{n}")],
                "uploaded_files": [SUB_UPLOAD]}

    def read(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage("read " + "page " * (25 * n), id=f"read-{n}")]}

    def note(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage(f"notes at {n}", id=f"note-{n}")], "artifacts": [SUB_ARTIFACT]}

    sub = StateGraph(sub_state)
    for name, node in (("gather", gather), ("read", read), ("note", note)):
        sub.add_node(name, node)
    sub.add_edge(START, "gather")
    sub.add_edge("gather", "read")
    sub.add_edge("read", "note")
    sub.add_edge("note", END)
    subgraph = sub.compile()  # checkpointed by the parent's saver, in the calling task's namespace

    def research(state: dict[str, Any]) -> dict[str, Any]:
        question = state["messages"][-1]
        done = subgraph.invoke({"messages": [HumanMessage(question.content, id=f"sub-{question.id}")]})
        n = len(state["messages"])
        return {"messages": [AIMessage(f"research found {len(done['messages'])} notes", id=f"research-{n}")]}

    def answer(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage("answer " + "word " * (20 * n), id=f"answer-{n}")], "title": f"after {n}",
                "artifacts": [] if state.get("artifacts") else [ROOT_ARTIFACT],
                "thread_data": {"workspace_path": "", "uploads_path": "", "outputs_path": ""}}

    graph = StateGraph(root_state)
    graph.add_node("research", research)
    graph.add_node("answer", answer)
    graph.add_edge(START, "research")
    graph.add_edge("research", "answer")
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=checkpointer)


def _write(saver, frequencies: tuple[int, ...]) -> None:
    write_threads(saver, frequencies, build_graph, FULL_THREAD, delta_thread, TURNS)


def write_subgraph_modes(path: Path, frequencies: tuple[int, ...]) -> Path:
    return write_sqlite(path, lambda saver: _write(saver, frequencies))


def write_subgraph_modes_postgres(dsn: str, frequencies: tuple[int, ...]) -> None:
    write_postgres(dsn, lambda saver: _write(saver, frequencies))
