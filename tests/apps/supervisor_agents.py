"""A langgraph-supervisor thread: a supervisor agent handing work to a flight agent and a hotel agent.

``create_supervisor`` (langgraph-supervisor) over two ``create_agent`` agents (``trip_agents.py``); the
supervisor calls ``transfer_to_<agent>`` tools, each agent runs as a subgraph (its own checkpoint namespace)
and hands back. A scripted chat model answers for all three, in call order; LangGraph's ``SqliteSaver``
stores the thread.

``graph``: the supervisor compiled without a checkpointer, for ``--schema apps.supervisor_agents:graph``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from apps.trip_agents import trip_agents, unscripted, write_thread
from langchain_core.messages import AIMessage

from inspector.demo.chat_model import tool_call

with warnings.catch_warnings():  # the package builds its supervisor with LangGraph's deprecated prebuilt agent
    warnings.simplefilter("ignore")
    from langgraph_supervisor import create_supervisor

THREAD = "supervisor-trip"


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
    model = model if model is not None else unscripted()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        built = create_supervisor(trip_agents(model), model=model, prompt="You plan trips.")
    return built.compile(checkpointer=checkpointer)


graph = build_supervisor()


def write_store(path: Path, thread_id: str = THREAD) -> Path:
    return write_thread(path, thread_id, build_supervisor, script(thread_id),
                        [("user-1", "A flight and a hotel in Lisbon, please.")])
