"""deepagents (langchain-ai/deepagents): ``create_deep_agent``, a LangChain agent with a filesystem in
its state, subagents behind the ``task`` tool, and delta channels.

Evidence: the metadata marker deepagents stamps on its checkpoints (``ls_integration:
deepagents``), or its shape: ``files`` written beside ``messages`` and deepagents' own
middleware hooks (``PatchToolCallsMiddleware``, ``_ParentNotifierMiddleware``).

Schema: the state ``create_deep_agent`` builds (``messages`` and ``files`` are
``DeltaChannel``\\ s folded by deepagents' reducers; ``todos`` replaces), from the installed
``deepagents``, built when a reducer or a field is first asked for (a state decoded with its
delta channels, replay, diff); without it every reducer is unknown.

Knowledge: a ``task`` result is the subagent's answer as a ``ToolMessage`` whose own
``status`` (``success``/``error``) is the subagent's status (``task_result``); human-in-the-loop
requests read as in LangChain agents.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache
from types import SimpleNamespace
from typing import Any

from ..schema.model import DeferredSchema
from . import Evidence, ThreadFacts, langchain_agent
from .chat import SubagentResult
from .langchain_agent import MARKER_KEY, TODOS, marker, middleware_hooks
from .shape_rules import MESSAGES, ShapeRule, judge, map_keyed_by

MARKER = "deepagents"
OWN_HOOKS = ("PatchToolCallsMiddleware.", "_ParentNotifierMiddleware.", "FilesystemMiddleware.", "SubAgentMiddleware.")
TASK_STATUS = {"success": "completed", "error": "failed"}
# Where a deepagents thread's files are: in its state, not on disk (the media views and bundles say so).
FILES_IN_STATE = ("read with the deepagents profile: deepagents keeps a thread's files in its state (the files "
                  "channel, a virtual filesystem of path -> content), shown with the state and stored in its "
                  "checkpoints; none are on disk to look for")


# deepagents' filesystem: a map from a file's path to its entry (content, created_at, modified_at); a delta
# channel, so most checkpoints hold none of it.
SHAPES = (MESSAGES, ShapeRule("files", "map keyed by path with a map per file",
                              map_keyed_by("path", values=lambda item: item.kind == "map")), TODOS)


def evidence(facts: ThreadFacts) -> list[str]:
    """The package's own marker; else ``files`` beside its own middleware hooks, no value shaped otherwise."""
    clues = [f"metadata {MARKER_KEY}={MARKER}"] if marker(facts, MARKER) else []
    own = [h for h in middleware_hooks(facts.channels) if h.startswith(OWN_HOOKS)]
    if own and "files" in facts.channels and (clues or not judge(SHAPES, facts, "deepagents").foreign):
        clues.append(f"files beside messages, {len(own)} deepagents middleware hook(s)")
    return clues


@cache
def deep_agent_schema() -> Any:
    """The state ``create_deep_agent`` builds (with LangChain's todo list), or None without deepagents."""
    try:
        from deepagents import create_deep_agent
        from langchain.agents.middleware import TodoListMiddleware
        from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    except ImportError:
        return None
    from ..schema.reading import schema_of

    graph = create_deep_agent(GenericFakeChatModel(messages=iter(())), tools=[], middleware=[TodoListMiddleware()])
    return schema_of(graph, "deepagents state")


# built when a reducer or a field is first asked for (replay, diff, the state's fields), once per process
SCHEMA = DeferredSchema(deep_agent_schema, "deepagents")


def task_result(message: dict[str, Any]) -> tuple[str | None, str] | None:
    """A ``task`` tool message's (status as stored, status shown: completed/failed/in_progress); None for
    other messages."""
    if message.get("type") != "tool" or message.get("name") != "task":
        return None
    status = message.get("status") if isinstance(message.get("status"), str) else None
    return status, TASK_STATUS.get(status or "", "in_progress")


def subagent_result(message: dict[str, Any]) -> SubagentResult | None:
    """A ``task`` result's subagent status, from the tool message's own status (its chat rule)."""
    found = task_result(message)
    return SubagentResult(found[0], found[1]) if found is not None else None


# A LangChain agent (its human-in-the-loop requests, its todo board) with deepagents' own state and subagents
PROFILE = replace(
    langchain_agent.PROFILE,
    name="deepagents",
    title="deepagents",
    description="deepagents' create_deep_agent: files in state, task subagents, delta channels",
    evidence=Evidence(evidence, SHAPES, markers=frozenset({MARKER_KEY})),
    schema=SCHEMA,
    chat=SimpleNamespace(subagent_result=subagent_result),
    texts={"files.none": FILES_IN_STATE},
    searched={"messages": "messages", "files": "files"},  # files: its virtual filesystem, keyed by path
)
