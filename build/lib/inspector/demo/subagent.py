"""A researcher subagent: a compiled graph the ``task`` tool runs, holding a compiled ``search`` graph as a node.

Two ways to run it:

- ``task_subagent`` (a generic LangGraph app): the graphs are compiled without a
  checkpointer of their own, so they inherit the parent's and checkpoint in their
  own namespaces, ``tools:<task_id>`` and ``tools:<task_id>|search:<task_id>``;
- ``task_delegate`` (DeerFlow main): the subagent runs without any checkpointer, so
  the store holds no namespace for it; the ``task`` tool message carries its
  structured result (``subagent_status``, ``subagent_result_brief``,
  ``subagent_model_name``, ``subagent_token_usage``, ...), which the durable-context
  node records in the ``delegations`` ledger.
"""

from __future__ import annotations

import hashlib
import operator
from functools import cache
from typing import Annotated

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolRuntime
from langgraph.types import Command

from inspector.demo.model import MODEL_NAME, tool_message_id
from inspector.demo.tools import tool_result
from inspector.schema.thread_state import ThreadState

SOURCES = (
    ("Regulation (EU) 2023/1542 - EUR-Lex",
     "Due diligence obligations for battery supply chains apply from 18 August 2025."),
    ("Commission Q&A on the Batteries Regulation",
     "The battery passport becomes mandatory for EV and industrial batteries above 2 kWh from February 2027."),
    ("Recycling targets explained",
     "Recycled-content minimums (16% cobalt, 6% lithium, 6% nickel) start in 2031."),
)
FREIGHT_SOURCES = (
    ("European road freight rate benchmark, Q2 2025", "Full-truckload spot rates average EUR 1.71 per km."),
    ("Pallet network tariffs 2025", "Contract rates for a standard pallet within 300 km run EUR 29-33."),
    ("Logistics cost survey", "Shippers consolidating to fewer weekly routes report 8-12% lower freight spend."),
)


def _sources(state: ThreadState) -> tuple[tuple[str, str], ...]:
    """What the search finds: freight benchmarks for a freight question, else the battery rules."""
    return FREIGHT_SOURCES if "freight" in str(state["messages"][0].content).lower() else SOURCES


def _ids(config: RunnableConfig) -> str:
    return f"{config['configurable']['thread_id']}-sub"


def _plan(state: ThreadState, config: RunnableConfig) -> dict:
    text = "Plan: search official sources, extract dates and thresholds, write a short brief."
    return {"messages": [AIMessage(text, id=f"{_ids(config)}-ai-1", response_metadata={"model_name": MODEL_NAME})]}


def _query(state: ThreadState, config: RunnableConfig) -> dict:
    query = "pallet freight rates 2025 Europe" if _sources(state) is FREIGHT_SOURCES else \
        "EU Batteries Regulation 2025 obligations"
    call = {"name": "web_search", "args": {"query": query},
            "id": f"{_ids(config)}-call-2-1", "type": "tool_call"}
    return {"messages": [AIMessage("", id=f"{_ids(config)}-ai-2", tool_calls=[call])]}


def _fetch(state: ThreadState, config: RunnableConfig) -> dict:
    results = "\n".join(f"{i}. {title}: {snippet}" for i, (title, snippet) in enumerate(_sources(state), start=1))
    call_id = f"{_ids(config)}-call-2-1"
    return {"messages": [ToolMessage(results, name="web_search", tool_call_id=call_id, id=tool_message_id(call_id))]}


def _report(state: ThreadState, config: RunnableConfig) -> dict:
    lines = ["Findings (3 sources):"] + [f"- {snippet}" for _, snippet in _sources(state)]
    return {"messages": [AIMessage("\n".join(lines), id=f"{_ids(config)}-ai-3")]}


SUBAGENT_MODEL = "demo-scripted-mini"


class ResearchAppState(ThreadState):
    """A generic LangGraph app's state: DeerFlow's fields plus its own ``search_log`` (queries run so far,
    concatenated), a field and reducer DeerFlow's schema does not have."""

    search_log: Annotated[list[str], operator.add]


@cache
def researcher(checkpointer: bool | None = None) -> CompiledStateGraph:
    """plan -> search (a compiled subgraph: query -> fetch) -> report; ``checkpointer=False`` never checkpoints."""
    search = StateGraph(ThreadState)
    search.add_node("query", _query)
    search.add_node("fetch", _fetch)
    search.add_edge(START, "query")
    search.add_edge("query", "fetch")

    graph = StateGraph(ThreadState)
    graph.add_node("plan", _plan)
    graph.add_node("search", search.compile(checkpointer=checkpointer))
    graph.add_node("report", _report)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "search")
    graph.add_edge("search", "report")
    return graph.compile(checkpointer=checkpointer)


def _research(runtime: ToolRuntime, prompt: str, checkpointer: bool | None = None) -> list:
    """The researcher's messages for ``prompt``."""
    thread = runtime.config["configurable"]["thread_id"]
    start = {"messages": [HumanMessage(prompt, id=f"{thread}-sub-user-1")]}
    return researcher(checkpointer=checkpointer).invoke(start)["messages"]


@tool("task")
def task_subagent(description: str, prompt: str, subagent_type: str, runtime: ToolRuntime) -> Command:
    """Delegate work to a subagent and wait for its findings.

    Args:
        description: Three to five words.
        prompt: The subagent's instructions.
        subagent_type: general-purpose or bash.
    """
    messages = _research(runtime, prompt)
    queries = [c["args"]["query"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls]
    return tool_result(runtime, "task", messages[-1].content, search_log=queries)


@tool("task")
def task_delegate(description: str, prompt: str, subagent_type: str, runtime: ToolRuntime) -> Command:
    """Delegate work to a subagent; its structured result rides on the tool message.

    Args:
        description: Three to five words.
        prompt: The subagent's instructions.
        subagent_type: general-purpose or bash.
    """
    final = _research(runtime, prompt, checkpointer=False)[-1].content
    digest = hashlib.sha256(final.encode()).hexdigest()
    usage = {"input_tokens": 40 * len(prompt), "output_tokens": len(final) // 4}
    usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
    kwargs = {"subagent_status": "completed", "subagent_result_brief": final, "subagent_result_sha256": digest,
              "subagent_model_name": SUBAGENT_MODEL, "subagent_token_usage": usage}
    message = ToolMessage(f"Task Succeeded. Result: {final}", name="task", tool_call_id=runtime.tool_call_id,
                          id=tool_message_id(runtime.tool_call_id), additional_kwargs=kwargs)
    return Command(update={"messages": [message]})
