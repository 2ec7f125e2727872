"""A langgraph-swarm thread: two ``create_agent`` agents handing the conversation to each other.

``create_swarm`` (langgraph-swarm) over a flight agent and a hotel agent (``trip_agents.py``), each with a
``transfer_to_*`` handoff tool; the swarm's ``active_agent`` channel says who speaks.
Each agent runs as a subgraph (its own checkpoint namespace). A scripted chat model
answers for both, in call order; LangGraph's ``SqliteSaver`` stores the thread.

``graph``: the swarm compiled without a checkpointer, for ``--schema apps.swarm_agents:graph``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from apps.trip_agents import trip_agents, unscripted, write_thread
from langchain_core.messages import AIMessage
from langgraph_swarm import create_handoff_tool, create_swarm

from inspector.demo.chat_model import tool_call

THREAD = "swarm-trip"


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
    agents = trip_agents(model if model is not None else unscripted(),
                         flight_tools=[create_handoff_tool(agent_name="hotel_agent")],
                         hotel_tools=[create_handoff_tool(agent_name="flight_agent")])
    return create_swarm(agents, default_active_agent="flight_agent").compile(checkpointer=checkpointer)


graph = build_swarm()


def write_store(path: Path, thread_id: str = THREAD) -> Path:
    return write_thread(path, thread_id, build_swarm, script(thread_id),
                        [("user-1", "A flight and a hotel in Lisbon, please."),
                         ("user-2", "When does the flight leave?")])
