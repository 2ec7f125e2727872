"""A LangChain agent, not DeerFlow: ``create_agent`` with the todo list, human-in-the-loop and
summarisation middleware, driven by a scripted chat model and checkpointed by any saver.

The thread (``THREAD``) books a trip. Turn one plans with ``write_todos``, searches,
and asks to book a flight: human-in-the-loop interrupts with LangChain's own request
(``action_requests``, ``review_configs``), the person approves, the booking runs.
Turn two starts past the summarisation trigger, so the middleware replaces the
conversation with a summary (``RemoveMessage(REMOVE_ALL_MESSAGES)``; twice, as the turn grows), then
the agent asks to book a hotel and the thread is left waiting for that answer.

Every message id is fixed, so each run writes the same states: the script names the
model's messages, and where LangChain leaves an id to ``add_messages`` (which draws a random
one) the demo gives it one from what it holds: a tool result ``<tool_call_id>-result``
(``StableToolResultIds``), a summary ``summary-<digest of its text>`` (``StableSummaryIds``).

``graph`` is the agent compiled without a checkpointer: what an operator names with
``--schema inspector.demo.langchain_agent:graph``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    SummarizationMiddleware,
    TodoListMiddleware,
)
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.types import Command

from inspector.demo.chat_model import ScriptedChatModel, tool_call

THREAD = "langchain-travel"
SUMMARY_TRIGGER = ("messages", 9)  # turn one ends with 8 messages; turn two's question makes 9
SUMMARY_KEEP = ("messages", 2)


@tool
def search_flights(city: str, day: str) -> str:
    """Search flights to a city on a day."""
    return f"3 flights to {city} on {day}: TP 1351 08:10, TP 1353 12:45, TP 1357 19:30"


@tool
def book_flight(flight: str, passenger: str) -> str:
    """Book a flight for a passenger."""
    return f"booked {flight} for {passenger}, confirmation LX7Q2"


@tool
def search_hotels(city: str, near: str) -> str:
    """Search hotels in a city near a place."""
    return f"2 hotels in {city} near {near}: Rio Tejo (4*, 140 EUR), Cais (3*, 95 EUR)"


@tool
def book_hotel(hotel: str, nights: int) -> str:
    """Book a hotel for some nights."""
    return f"booked {hotel} for {nights} nights"


TOOLS = [search_flights, book_flight, search_hotels, book_hotel]
GATED = {"book_flight": True, "book_hotel": {"allowed_decisions": ["approve", "reject"],
                                             "description": "Hotel bookings are paid up front."}}


class StableToolResultIds(AgentMiddleware):
    """Names each tool result ``<tool_call_id>-result`` (ToolNode leaves it without an id). Only wraps the
    tool call, so the graph gets no node of its own."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        result = handler(request)
        update = getattr(result, "update", None)
        messages = [result] if isinstance(result, ToolMessage) else \
            update.get("messages", []) if isinstance(update, dict) else []
        for message in messages:
            if isinstance(message, ToolMessage) and message.id is None:
                message.id = f"{message.tool_call_id}-result"
        return result


class StableSummaryIds(SummarizationMiddleware):
    """LangChain's summarisation middleware, its summary message named from its text (the middleware
    leaves it to ``add_messages``); its nodes keep LangChain's name."""

    @property
    def name(self) -> str:
        return SummarizationMiddleware.__name__

    def _build_new_messages(self, summary: str) -> list[HumanMessage]:
        messages = super()._build_new_messages(summary)
        for message in messages:
            message.id = message.id or f"summary-{hashlib.sha256(summary.encode()).hexdigest()[:16]}"
        return messages


def _todos(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"content": content, "status": status} for content, status in pairs]


def agent_script(thread_id: str) -> list[AIMessage]:
    """The agent's answers, in the order the middleware asks for them."""
    t = thread_id
    return [
        AIMessage("", id=f"{t}-ai-1", tool_calls=[tool_call("write_todos", f"{t}-call-1", todos=_todos(
            ("Find flights to Lisbon on Friday", "in_progress"), ("Book the best flight", "pending")))]),
        AIMessage("", id=f"{t}-ai-2", tool_calls=[tool_call("search_flights", f"{t}-call-2", city="Lisbon", day="Friday")]),
        AIMessage("The 12:45 flight fits best; booking it needs your approval.", id=f"{t}-ai-3",
                  tool_calls=[tool_call("book_flight", f"{t}-call-3", flight="TP 1353 12:45", passenger="Ada Lovelace")]),
        AIMessage("Booked TP 1353 on Friday at 12:45, confirmation LX7Q2.", id=f"{t}-ai-4"),
        AIMessage("", id=f"{t}-ai-5", tool_calls=[tool_call("write_todos", f"{t}-call-5", todos=_todos(
            ("Find flights to Lisbon on Friday", "completed"), ("Book the best flight", "completed"),
            ("Find a hotel near the river", "in_progress")))]),
        AIMessage("", id=f"{t}-ai-6", tool_calls=[tool_call("search_hotels", f"{t}-call-6", city="Lisbon", near="the river")]),
        AIMessage("Rio Tejo is by the river; shall I book it?", id=f"{t}-ai-7",
                  tool_calls=[tool_call("book_hotel", f"{t}-call-7", hotel="Rio Tejo", nights=3)]),
        AIMessage("Understood: no hotel booked. Your flight stays booked.", id=f"{t}-ai-8"),
    ]


def summary_script(thread_id: str) -> list[AIMessage]:
    """What the summariser answers each time the middleware's trigger is reached."""
    return [AIMessage("The user flies to Lisbon on Friday (TP 1353, 12:45, booked, confirmation LX7Q2).",
                      id=f"{thread_id}-summary-1"),
            AIMessage("Flight TP 1353 booked (LX7Q2); the user wants a hotel near the river for three nights.",
                      id=f"{thread_id}-summary-2")]


def build_agent(model: Any = None, summarizer: Any = None, checkpointer: Any = None) -> Any:
    """The agent: scripted models unless others are given."""
    return create_agent(
        model if model is not None else ScriptedChatModel(script=[]),
        tools=TOOLS,
        system_prompt="You are a travel assistant. Plan with write_todos; bookings need the user's approval.",
        middleware=[
            TodoListMiddleware(),
            StableSummaryIds(summarizer if summarizer is not None else ScriptedChatModel(script=[]),
                             trigger=SUMMARY_TRIGGER, keep=SUMMARY_KEEP),
            HumanInTheLoopMiddleware(interrupt_on=GATED),
            StableToolResultIds(),
        ],
        checkpointer=checkpointer,
    )


graph = build_agent()  # what --schema names


def run_langchain_agent(checkpointer: Any, thread_id: str = THREAD, answer_last: bool = False) -> str:
    """Write the thread through ``checkpointer``; ``answer_last``: approve the hotel too (the thread ends)."""
    agent = build_agent(ScriptedChatModel(script=agent_script(thread_id)),
                        ScriptedChatModel(script=summary_script(thread_id)), checkpointer)
    config = {"configurable": {"thread_id": thread_id}}
    agent.invoke({"messages": [HumanMessage("Book me a flight to Lisbon on Friday.", id=f"{thread_id}-user-1")]},
                 config)
    agent.invoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    agent.invoke({"messages": [HumanMessage("Also find a hotel near the river for three nights.",
                                            id=f"{thread_id}-user-2")]}, config)
    if answer_last:
        agent.invoke(Command(resume={"decisions": [{"type": "reject", "message": "Too expensive."}]}), config)
    return thread_id
