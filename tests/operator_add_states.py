"""Apps that are not DeerFlow but share its field names: dataclass and Pydantic states whose ``todos``,
``artifacts`` and ``messages`` use ``operator.add``, and LangGraph's ``Overwrite`` docstring pattern
(``messages: Annotated[list, operator.add]`` holding strings). Real graphs, written with ``SqliteSaver``."""

from __future__ import annotations

import operator
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Overwrite
from pydantic import BaseModel, Field

DATACLASS_THREAD = "dataclass-todos"
PYDANTIC_THREAD = "pydantic-todos"
OVERWRITE_THREAD = "overwrite-strings"


@dataclass
class DataclassState:
    messages: Annotated[list, operator.add] = field(default_factory=list)
    todos: Annotated[list, operator.add] = field(default_factory=list)
    artifacts: Annotated[list, operator.add] = field(default_factory=list)


class PydanticState(BaseModel):
    messages: Annotated[list, operator.add] = Field(default_factory=list)
    todos: Annotated[list, operator.add] = Field(default_factory=list)
    artifacts: Annotated[list, operator.add] = Field(default_factory=list)


def plan(state) -> dict:
    turn = len(state.todos)
    return {"todos": [{"content": f"step {turn}", "status": "pending"}], "messages": [f"planned {turn}"]}


def write_report(state) -> dict:  # the same path every turn: operator.add keeps the duplicates
    return {"artifacts": ["/out/report.md"], "messages": ["wrote /out/report.md"]}


def _graph(state_class, checkpointer):
    graph = StateGraph(state_class)
    graph.add_node("plan", plan)
    graph.add_node("write_report", write_report)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "write_report")
    graph.add_edge("write_report", END)
    return graph.compile(checkpointer=checkpointer)


dataclass_graph = _graph(DataclassState, None)
pydantic_graph = _graph(PydanticState, None)


class StringState(dict):
    pass


from typing_extensions import TypedDict  # noqa: E402


class OverwriteState(TypedDict):
    messages: Annotated[list, operator.add]


def add_a(state: OverwriteState) -> dict:
    return {"messages": ["a"]}


def replace_all(state: OverwriteState) -> dict:  # LangGraph's Overwrite docstring: bypass the reducer
    return {"messages": Overwrite(["b"])}


def add_c(state: OverwriteState) -> dict:
    return {"messages": ["c"]}


def _overwrite_graph(checkpointer):
    graph = StateGraph(OverwriteState)
    graph.add_node("add_a", add_a)
    graph.add_node("replace_all", replace_all)
    graph.add_node("add_c", add_c)
    graph.add_edge(START, "add_a")
    graph.add_edge("add_a", "replace_all")
    graph.add_edge("replace_all", "add_c")
    graph.add_edge("add_c", END)
    return graph.compile(checkpointer=checkpointer)


overwrite_graph = _overwrite_graph(None)


def write_store(path: Path) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        for thread, app in ((DATACLASS_THREAD, _graph(DataclassState, saver)),
                            (PYDANTIC_THREAD, _graph(PydanticState, saver))):
            for turn in range(3):
                app.invoke({"messages": [f"user {turn}"]}, {"configurable": {"thread_id": thread}})
        app = _overwrite_graph(saver)
        for turn in range(2):
            app.invoke({"messages": [f"start {turn}"]}, {"configurable": {"thread_id": OVERWRITE_THREAD}})
    finally:
        conn.close()
    return path
