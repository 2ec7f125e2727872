"""A langgraph-supervisor thread: a supervisor agent handing work to a flight agent and a hotel agent.

``create_supervisor`` (langgraph-supervisor) over two ``create_agent`` agents; the supervisor calls
``transfer_to_<agent>`` tools, each agent runs as a subgraph (its own checkpoint namespace) and hands
back. A scripted chat model answers for all three, in call order; LangGraph's ``SqliteSaver`` stores
the thread.

``graph``: the supervisor compiled without a checkpointer, for ``--schema apps.supervisor_agents:graph``.
"""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo.chat_model import ScriptedChatModel, tool_call

with warnings.catch_warnings():  # the package builds its supervisor with LangGraph's deprecated prebuilt agent
    warnings.simplefilter("ignore")
    from langgraph_supervisor import create_supervisor

THREAD = "supervisor-trip"


@tool
def find_flight(city: str) -> str:
    """Find a flight to a city."""
    return f"TP 1353 to {city}, Friday 12:45"


@tool
def find_hotel(city: str) -> str:
    """Find a hotel in a city."""
    return f"Rio Tejo, {city}, 140 EUR a night"


def script(thread_id: str) -> list[AIMessage]:
    t = thread_id
    return [
        AIMessage("", id=f"{t}-sup-1", tool_calls=[tool_call("transfer_to_flight_agent", f"{t}-call-1")]),
        AIMessage("", id=f"{t}-ai-2", tool_calls=[tool_call("find_flight", f"{t}-call-2", city="Lisbon")]),
        AIMessage("TP 1353 on Friday at 12:45.", id=f"{t}-ai-3"),
        AIMessage("", id=f"{t}-sup-4", tool_calls=[tool_call("transfer_to_hotel_agent", f"{t}-call-4")]),
        AIMessage("", id=f"{t}-ai-5", tool_calls=[tool_call("find_hotel", f"{t}-call-5", city="Lisbon")]),
        AIMessage("The Rio Tejo, 140 EUR a night.", id=f"{t}-ai-6"),
        AIMessage("Flight TP 1353 on Friday and the Rio Tejo hotel.", id=f"{t}-sup-7"),
    ]


def build_supervisor(model: Any = None, checkpointer: Any = None) -> Any:
    model = model if model is not None else ScriptedChatModel(script=[])
    flights = create_agent(model, tools=[find_flight], system_prompt="You book flights.", name="flight_agent")
    hotels = create_agent(model, tools=[find_hotel], system_prompt="You book hotels.", name="hotel_agent")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = create_supervisor([flights, hotels], model=model, prompt="You plan trips.")
    return built.compile(checkpointer=checkpointer)


graph = build_supervisor()


def write_store(path: Path, thread_id: str = THREAD) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        supervisor = build_supervisor(ScriptedChatModel(script=script(thread_id)), SqliteSaver(conn))
        supervisor.invoke({"messages": [HumanMessage("A flight and a hotel in Lisbon, please.",
                                                     id=f"{thread_id}-user-1")]},
                          {"configurable": {"thread_id": thread_id}})
    finally:
        conn.close()
    return path
