"""LangChain agents: ``langchain.agents.create_agent`` and its middleware (todo list, human-in-the-loop,
summarisation, call limits).

Evidence: the metadata marker LangChain stamps on every checkpoint of such an agent
(``ls_integration: langchain_create_agent``), or the graph's own shape: its ``model`` node
and middleware hooks named ``<Middleware>.<hook>`` among the written channels.

Schema: the state ``create_agent`` builds with those middleware, read the way LangGraph
reads it (``messages`` by ``add_messages``; ``todos`` and the counters replace), from the
installed ``langchain``, built when a reducer or a field is first asked for (importing
``langchain`` costs seconds); without it every reducer is unknown and replay says unverified.

Knowledge: LangChain's human-in-the-loop interrupt (``action_requests``,
``review_configs``) read as the pending question (``hitl_requests``).
"""

from __future__ import annotations

import itertools
import reprlib
from functools import cache
from typing import Any

from ..schema.model import DeferredSchema
from . import Evidence, Profile, ThreadFacts
from .shape_rules import MESSAGES, ShapeRule, is_map, judge, list_of

MARKER_KEY = "ls_integration"
MARKER = "langchain_create_agent"
MODEL_NODE = "branch:to:model"
HITL = "langchain.hitl-interrupts"  # the human-in-the-loop request shown as the pending question


def middleware_hooks(channels: frozenset[str]) -> list[str]:
    """``TodoListMiddleware.after_model``, ...: the middleware nodes ``create_agent`` adds, from their channels."""
    hooks = []
    for channel in channels:
        node = channel.removeprefix("branch:to:")
        name, dot, hook = node.partition(".")
        if node != channel and dot and name.endswith("Middleware") and hook.startswith(("before_", "after_", "wrap_")):
            hooks.append(node)
    return sorted(hooks)


def marker(facts: ThreadFacts, value: str) -> bool:
    return facts.metadata_key(MARKER_KEY) == value


# The todo list middleware's items; LangChain's messages. Neither is distinctive: many apps hold both.
TODOS = ShapeRule("todos", "list of maps with content and status", list_of(is_map("content", "status")),
                  distinctive=False)
SHAPES = (MESSAGES, TODOS)


def evidence(facts: ThreadFacts) -> list[str]:
    """The package's own marker; else ``create_agent``'s model node and middleware hooks among the channels,
    with no value shaped otherwise than LangChain's (messages that are not LangChain messages)."""
    clues = [f"metadata {MARKER_KEY}={MARKER}"] if marker(facts, MARKER) else []
    hooks = middleware_hooks(facts.channels)
    if MODEL_NODE in facts.channels and hooks and (clues or not judge(SHAPES, facts, "LangChain").foreign):
        clues.append(f"create_agent's model node and {len(hooks)} middleware hook(s)")
    return clues


@cache
def agent_schema() -> Any:
    """The state ``create_agent`` builds with the common middleware, or None without ``langchain``."""
    try:
        from langchain.agents import create_agent
        from langchain.agents.middleware import (
            HumanInTheLoopMiddleware,
            ModelCallLimitMiddleware,
            SummarizationMiddleware,
            TodoListMiddleware,
            ToolCallLimitMiddleware,
        )
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    except ImportError:
        return None
    from ..schema.reading import schema_of

    model = GenericFakeChatModel(messages=iter(()))  # never called: the graph is only read
    graph = create_agent(model, tools=[], middleware=[
        TodoListMiddleware(), HumanInTheLoopMiddleware(interrupt_on={}),
        SummarizationMiddleware(model, trigger=("messages", 10**9)),
        ModelCallLimitMiddleware(run_limit=10**9), ToolCallLimitMiddleware(run_limit=10**9)])
    return schema_of(graph, "LangChain create_agent state")


# built when a reducer or a field is first asked for (replay, diff, the state's fields), once per process
SCHEMA = DeferredSchema(agent_schema, "LangChain agent")


# -- the human-in-the-loop request ----------------------------------------------------


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def hitl_requests(value: Any) -> list[dict[str, Any]] | None:
    """LangChain's ``HITLRequest`` as one entry per gated call: ``tool``, ``args``, ``decisions`` (what the
    person may answer), ``description``; None when ``value`` is not one."""
    if not isinstance(value, dict) or not isinstance(value.get("action_requests"), list):
        return None
    configs = value.get("review_configs") if isinstance(value.get("review_configs"), list) else []
    allowed = {c.get("action_name"): c.get("allowed_decisions") for c in configs if isinstance(c, dict)}
    requests = []
    for action in value["action_requests"]:
        if not isinstance(action, dict):
            continue
        name = action.get("name") if isinstance(action.get("name"), str) else "?"
        decisions = allowed.get(name)
        requests.append({"tool": name, "args": action.get("args"),
                         "decisions": [str(d) for d in decisions] if isinstance(decisions, list) else [],
                         "description": _text(action.get("description"))})
    return requests


# A gated call's arguments as the question names them: each value's repr cut (a long text, a deep or wide value), and
# at most ARGUMENTS of them, so a megabyte argument or thousands of them make a one-line question, not a page; the
# state's own view holds them whole.
ARGUMENTS = 8
_ARGUMENT = reprlib.Repr()
_ARGUMENT.maxstring = _ARGUMENT.maxother = 120
_ARGUMENT.maxlevel, _ARGUMENT.maxdict, _ARGUMENT.maxlist, _ARGUMENT.maxtuple = 3, 8, 8, 8


def _arguments(args: Any) -> str:
    if isinstance(args, dict):
        shown = [f"{_ARGUMENT.repr(k) if not isinstance(k, str) else k[:120]}={_ARGUMENT.repr(v)}"
                 for k, v in itertools.islice(args.items(), ARGUMENTS)]
        more = len(args) - ARGUMENTS
        return ", ".join(shown + ([f"… {more:,} more"] if more > 0 else []))
    return "" if args is None else _ARGUMENT.repr(args)


def hitl_question(value: Any) -> str | None:
    """``Approve the call book_flight(flight='TP 1353', passenger='Ada')? (approve, edit, reject)``, one
    line per gated call; None when ``value`` is not LangChain's request."""
    requests = hitl_requests(value)
    if requests is None:
        return None
    if not requests:
        return "A human-in-the-loop request naming no tool call"
    lines = []
    for request in requests:
        decisions = f" ({', '.join(request['decisions'])})" if request["decisions"] else ""
        lines.append(f"Review the call {request['tool']}({_arguments(request['args'])}){decisions}")
    return "\n".join(lines)


PROFILE = Profile(
    name="langchain-agent",
    title="LangChain agent",
    description="langchain's create_agent and its middleware: todo list, human-in-the-loop, summarisation",
    evidence=Evidence(evidence, SHAPES, markers=frozenset({MARKER_KEY})),
    schema=SCHEMA,
    knowledge=frozenset({HITL}),
    field_views={"todos": "todo board"},  # the todo list middleware's {content, status} items
    searched={"messages": "messages"},
)
