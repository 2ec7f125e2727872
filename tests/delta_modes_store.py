"""One graph written in both channel modes by LangGraph's SqliteSaver: ``messages`` as a plain reducer
channel (full mode: every checkpoint stores the whole conversation) and as LangGraph's ``DeltaChannel``
at chosen snapshot frequencies (DeerFlow's ``checkpoint_channel_mode: delta``). The same turns, the same
answers, one thread per mode, so the delta what-if's prediction can be checked against what delta mode
really stores.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.channels import DeltaChannel
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

TURNS = 12
FULL_THREAD = "mode-full"


def fold_messages(state: list, writes: list) -> list:
    """A batching-invariant fold with ``add_messages`` semantics (as DeerFlow's ``merge_message_writes``)."""
    for write in writes:
        state = add_messages(state, write)
    return state


def delta_thread(frequency: int) -> str:
    return f"mode-delta-{frequency}"


class FullState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    title: str


def _state(frequency: int | None):
    if frequency is None:
        return FullState
    channel = DeltaChannel(fold_messages, snapshot_frequency=frequency)
    return TypedDict("DeltaState", {"messages": Annotated[list[AnyMessage], channel], "title": str}, total=False)


def build_graph(checkpointer, frequency: int | None):
    def agent(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage(f"calling a tool at {n}", id=f"ai-{n}")]}

    def tool(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [ToolMessage("result " + "data " * (30 * n), tool_call_id=f"t{n}", id=f"tool-{n}")]}

    def answer(state: dict[str, Any]) -> dict[str, Any]:
        n = len(state["messages"])
        return {"messages": [AIMessage("answer " + "word " * (20 * n), id=f"answer-{n}")], "title": f"after {n}"}

    graph = StateGraph(_state(frequency))
    graph.add_node("agent", agent)
    graph.add_node("tool", tool)
    graph.add_node("answer", answer)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", "tool")
    graph.add_edge("tool", "answer")
    graph.add_edge("answer", END)
    return graph.compile(checkpointer=checkpointer)


def write_threads(saver, frequencies: tuple[int, ...], build=build_graph, full_thread: str = FULL_THREAD,
                  delta_thread=delta_thread, turns: int = TURNS) -> None:
    """The same ``turns`` in one thread per mode: ``full_thread`` in full mode, ``delta_thread(f)`` in delta mode at
    each snapshot frequency ``f``, each by the graph ``build(saver, frequency)`` compiles."""
    for frequency, thread_id in [(None, full_thread), *((f, delta_thread(f)) for f in frequencies)]:
        graph = build(saver, frequency)
        for turn in range(turns):
            graph.invoke({"messages": [HumanMessage(f"question {turn}", id=f"human-{turn}")]},
                         {"configurable": {"thread_id": thread_id}})


def write_sqlite(path: Path, write) -> Path:
    """``write(saver)`` with LangGraph's SqliteSaver on a new database at ``path``."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        write(SqliteSaver(conn))
    finally:
        conn.close()
    return path


def write_postgres(dsn: str, write) -> None:
    """``write(saver)`` with LangGraph's PostgresSaver, its tables set up, on the database ``dsn`` names."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        write(saver)


def write_modes(path: Path, frequencies: tuple[int, ...]) -> Path:
    return write_sqlite(path, lambda saver: write_threads(saver, frequencies))


def write_modes_postgres(dsn: str, frequencies: tuple[int, ...]) -> None:
    write_postgres(dsn, lambda saver: write_threads(saver, frequencies))
