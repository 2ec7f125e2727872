"""Threads in layouts LangGraph wrote before, or writes now only when asked, by LangGraph's own ``SqliteSaver``:

- ``OLD``: a checkpoint in the layout before format 3 (``v`` 1: ``start:agent`` and
  ``branch:agent:route:tool`` trigger channels, a channel named after the node ``agent``, ``pending_sends``,
  metadata carrying ``writes``), put through the saver for ``delta_modes_store``'s graph (agent, tool, answer);
- ``EXIT``: that graph run three times with ``durability="exit"``: only each run's final state is saved, no writes.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from delta_modes_store import build_graph
from langchain_core.messages import AIMessage, HumanMessage

OLD = "old-format"
EXIT = "durability-exit"
RUNS = 3


def old_checkpoint() -> dict:
    """A format-1 checkpoint between the agent and the tool step of a run."""
    return {
        "v": 1,
        "id": "1ef4f797-8335-6428-8001-8a1503f9b875",
        "ts": "2024-08-01T10:00:00+00:00",
        "channel_values": {
            "messages": [HumanMessage("what is 2+2", id="h0"), AIMessage("calling a tool", id="a0")],
            "agent": "agent",
            "branch:agent:route:tool": "agent",
        },
        "channel_versions": {"__start__": 2, "messages": 3, "start:agent": 3, "agent": 3, "branch:agent:route:tool": 3},
        "versions_seen": {"__input__": {}, "__start__": {"__start__": 1}, "agent": {"start:agent": 2},
                          "tool": {}, "answer": {}},
        "pending_sends": [],
    }


def old_metadata() -> dict:
    """Metadata as savers of that time stored it: ``writes`` with each message in LangChain's JSON form."""
    from langchain_core.load import dumpd

    return {"source": "loop", "step": 1, "parents": {},
            "writes": {"agent": {"messages": [dumpd(AIMessage("calling a tool", id="a0"))]}}}


def write_formats(path: Path) -> Path:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        checkpoint = old_checkpoint()
        saver.put({"configurable": {"thread_id": OLD, "checkpoint_ns": ""}}, checkpoint, old_metadata(),
                  checkpoint["channel_versions"])
        graph = build_graph(saver, None)
        for run in range(RUNS):
            graph.invoke({"messages": [HumanMessage(f"question {run}", id=f"h{run}")]},
                         {"configurable": {"thread_id": EXIT}}, durability="exit")
    finally:
        conn.close()
    return path
