"""A researcher subagent: a compiled graph the ``task`` tool runs, holding a compiled ``search`` graph as a node.

Neither graph has a checkpointer of its own, so both inherit the parent's and
checkpoint in their own namespaces: ``tools:<task_id>`` and
``tools:<task_id>|search:<task_id>``.
"""

from __future__ import annotations

from functools import cache

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolRuntime
from langgraph.types import Command

from inspector.demo.model import MODEL_NAME, tool_message_id
from inspector.demo.tools import tool_result
from inspector.thread_state import ThreadState

SOURCES = (
    ("Regulation (EU) 2023/1542 - EUR-Lex",
     "Due diligence obligations for battery supply chains apply from 18 August 2025."),
    ("Commission Q&A on the Batteries Regulation",
     "The battery passport becomes mandatory for EV and industrial batteries above 2 kWh from February 2027."),
    ("Recycling targets explained",
     "Recycled-content minimums (16% cobalt, 6% lithium, 6% nickel) start in 2031."),
)


def _ids(config: RunnableConfig) -> str:
    return f"{config['configurable']['thread_id']}-sub"


def _plan(state: ThreadState, config: RunnableConfig) -> dict:
    text = "Plan: search official sources, extract dates and thresholds, write a short brief."
    return {"messages": [AIMessage(text, id=f"{_ids(config)}-ai-1", response_metadata={"model_name": MODEL_NAME})]}


def _query(state: ThreadState, config: RunnableConfig) -> dict:
    call = {"name": "web_search", "args": {"query": "EU Batteries Regulation 2025 obligations"},
            "id": f"{_ids(config)}-call-2-1", "type": "tool_call"}
    return {"messages": [AIMessage("", id=f"{_ids(config)}-ai-2", tool_calls=[call])]}


def _fetch(state: ThreadState, config: RunnableConfig) -> dict:
    results = "\n".join(f"{i}. {title}: {snippet}" for i, (title, snippet) in enumerate(SOURCES, start=1))
    call_id = f"{_ids(config)}-call-2-1"
    return {"messages": [ToolMessage(results, name="web_search", tool_call_id=call_id, id=tool_message_id(call_id))]}


def _report(state: ThreadState, config: RunnableConfig) -> dict:
    lines = ["Findings (3 sources):"] + [f"- {snippet}" for _, snippet in SOURCES]
    return {"messages": [AIMessage("\n".join(lines), id=f"{_ids(config)}-ai-3")]}


@cache
def researcher() -> CompiledStateGraph:
    """plan -> search (a compiled subgraph: query -> fetch) -> report."""
    search = StateGraph(ThreadState)
    search.add_node("query", _query)
    search.add_node("fetch", _fetch)
    search.add_edge(START, "query")
    search.add_edge("query", "fetch")

    graph = StateGraph(ThreadState)
    graph.add_node("plan", _plan)
    graph.add_node("search", search.compile())
    graph.add_node("report", _report)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "search")
    graph.add_edge("search", "report")
    return graph.compile()


@tool("task")
def task_subagent(description: str, prompt: str, subagent_type: str, runtime: ToolRuntime) -> Command:
    """Delegate work to a subagent and wait for its findings.

    Args:
        description: Three to five words.
        prompt: The subagent's instructions.
        subagent_type: general-purpose or bash.
    """
    thread = runtime.config["configurable"]["thread_id"]
    result = researcher().invoke({"messages": [HumanMessage(prompt, id=f"{thread}-sub-user-1")]})
    return tool_result(runtime, "task", result["messages"][-1].content)
