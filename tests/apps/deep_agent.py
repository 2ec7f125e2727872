"""A deepagents thread, written by ``create_deep_agent``'s real code and LangGraph's ``SqliteSaver``.

The agent plans with ``write_todos`` (LangChain's todo middleware, whose ``todos``
channel replaces), delegates to a ``researcher`` subagent with deepagents' ``task``
tool (the subagent runs in its own checkpoint namespace; its answer comes back as a
``ToolMessage`` with ``status="success"``), writes ``/report.md`` into the state's
``files`` (a ``DeltaChannel``), and finishes its todos. deepagents' ``messages`` is a
``DeltaChannel`` too, so most checkpoint blobs hold neither channel. A scripted chat
model answers for both agents, in the order they call it.

``graph``: the agent compiled without a checkpointer, for ``--schema apps.deep_agent:graph``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from langchain.agents.middleware import TodoListMiddleware
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.demo.chat_model import ScriptedChatModel, tool_call

THREAD = "deep-report"
SUBAGENT = "researcher"
REPORT = "# LangGraph savers\n\n- SqliteSaver\n- PostgresSaver\n- InMemorySaver\n"


def _todos(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"content": content, "status": status} for content, status in pairs]


def script(thread_id: str) -> list[AIMessage]:
    t = thread_id
    return [
        AIMessage("", id=f"{t}-ai-1", tool_calls=[tool_call("write_todos", f"{t}-call-1", todos=_todos(
            ("Research LangGraph's savers", "in_progress"), ("Write the report", "pending")))]),
        AIMessage("", id=f"{t}-ai-2", tool_calls=[tool_call(
            "task", f"{t}-call-2", description="List LangGraph's checkpoint savers, one line each.",
            subagent_type=SUBAGENT)]),
        AIMessage("SqliteSaver (a file), PostgresSaver (a server), InMemorySaver (tests).", id=f"{t}-sub-ai-1"),
        AIMessage("", id=f"{t}-ai-3", tool_calls=[tool_call("write_file", f"{t}-call-3", file_path="/report.md",
                                                            content=REPORT)]),
        AIMessage("", id=f"{t}-ai-4", tool_calls=[tool_call("write_todos", f"{t}-call-4", todos=_todos(
            ("Research LangGraph's savers", "completed"), ("Write the report", "completed")))]),
        AIMessage("The report is in /report.md.", id=f"{t}-ai-5"),
    ]


def build_agent(model: Any = None, checkpointer: Any = None) -> Any:
    return create_deep_agent(
        model if model is not None else ScriptedChatModel(script=[]),
        tools=[],
        system_prompt="You write short reports.",
        subagents=[{"name": SUBAGENT, "description": "Finds facts.", "system_prompt": "Answer in one line."}],
        middleware=[TodoListMiddleware()],
        checkpointer=checkpointer,
    )


graph = build_agent()


def write_store(path: Path, thread_id: str = THREAD) -> Path:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        agent = build_agent(ScriptedChatModel(script=script(thread_id)), SqliteSaver(conn))
        agent.invoke({"messages": [HumanMessage("Write a short report on LangGraph's savers.", id=f"{thread_id}-user-1")]},
                     {"configurable": {"thread_id": thread_id}})
    finally:
        conn.close()
    return path
