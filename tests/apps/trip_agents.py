"""What the multi-agent threads share (``swarm_agents.py``, ``supervisor_agents.py``): a flight agent and a
hotel agent built with LangChain's ``create_agent`` over one scripted chat model, their tools, and the run
that stores a thread with LangGraph's ``SqliteSaver``.

Each package builds its own graph over these agents; the thread's script says what the model answers, in
call order, for every agent of the graph."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo.chat_model import ScriptedChatModel


@tool
def find_flight(city: str) -> str:
    """Find a flight to a city."""
    return f"TP 1353 to {city}, Friday 12:45"


@tool
def find_hotel(city: str) -> str:
    """Find a hotel in a city."""
    return f"Rio Tejo, {city}, 140 EUR a night"


def unscripted() -> ScriptedChatModel:
    """A model with nothing to say: graphs compiled only for their schema never call it."""
    return ScriptedChatModel(script=[])


def trip_agents(model: Any, flight_tools: Sequence[BaseTool] = (), hotel_tools: Sequence[BaseTool] = ()) -> list[Any]:
    """``flight_agent`` and ``hotel_agent`` over ``model``, each with its search tool and any extra tools."""
    flights = create_agent(model, tools=[find_flight, *flight_tools], system_prompt="You book flights.",
                           name="flight_agent")
    hotels = create_agent(model, tools=[find_hotel, *hotel_tools], system_prompt="You book hotels.",
                          name="hotel_agent")
    return [flights, hotels]


def write_thread(path: Path, thread_id: str, build: Callable[..., Any], script: list[AIMessage],
                 turns: Sequence[tuple[str, str]]) -> Path:
    """Store one thread at ``path``: ``build(model, checkpointer)`` answered by ``script``, one invoke per
    ``(message id suffix, user text)`` turn."""
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        graph = build(ScriptedChatModel(script=script), SqliteSaver(conn))
        config = {"configurable": {"thread_id": thread_id}}
        for suffix, text in turns:
            graph.invoke({"messages": [HumanMessage(text, id=f"{thread_id}-{suffix}")]}, config)
    finally:
        conn.close()
    return path
