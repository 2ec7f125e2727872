"""A langgraph-swarm thread: two ``create_agent`` agents handing the conversation to each other.

``create_swarm`` (langgraph-swarm) over a flight agent and a hotel agent, each with a
``transfer_to_*`` handoff tool; the swarm's ``active_agent`` channel says who speaks.
Each agent runs as a subgraph (its own checkpoint namespace). A scripted chat model
answers for both, in call order; LangGraph's ``SqliteSaver`` stores the thread.

``graph``: the swarm compiled without a checkpointer, for ``--schema apps.swarm_agents:graph``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph_swarm import create_handoff_tool, create_swarm

from inspector.demo.chat_model import ScriptedChatModel, tool_call

THREAD = "swarm-trip"


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
        AIMessage("", id=f"{t}-ai-1", tool_calls=[tool_call("find_flight", f"{t}-call-1", city="Lisbon")]),
        AIMessage("", id=f"{t}-ai-2", tool_calls=[tool_call("transfer_to_hotel_agent", f"{t}-call-2")]),
        AIMessage("", id=f"{t}-ai-3", tool_calls=[tool_call("find_hotel", f"{t}-call-3", city="Lisbon")]),
        AIMessage("Flight TP 1353 on Friday and the Rio Tejo hotel.", id=f"{t}-ai-4"),
        AIMessage("", id=f"{t}-ai-5", tool_calls=[tool_call("transfer_to_flight_agent", f"{t}-call-5")]),
        AIMessage("Your flight leaves at 12:45 from terminal 1.", id=f"{t}-ai-6"),
    ]


def build_swarm(model: Any = None, checkpointer: Any = None) -> Any:
    model = model if model is not None else ScriptedChatModel(script=[])
    flights = create_agent(model, tools=[find_flight, create_handoff_tool(agent_name="hotel_agent")],
                           system_prompt="You book flights.", name="flight_agent")
    hotels = create_agent(model, tools=[find_hotel, create_handoff_tool(agent_name="flight_agent")],
                          system_prompt="You book hotels.", name="hotel_agent")
    return create_swarm([flights, hotels], default_active_agent="flight_agent").compile(checkpointer=checkpointer)


graph = build_swarm()


def write_store(path: Path, thread_id: str = THREAD) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        swarm = build_swarm(ScriptedChatModel(script=script(thread_id)), SqliteSaver(conn))
        config = {"configurable": {"thread_id": thread_id}}
        swarm.invoke({"messages": [HumanMessage("A flight and a hotel in Lisbon, please.", id=f"{thread_id}-user-1")]},
                     config)
        swarm.invoke({"messages": [HumanMessage("When does the flight leave?", id=f"{thread_id}-user-2")]}, config)
    finally:
        conn.close()
    return path
