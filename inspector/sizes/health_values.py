"""Health lints that need decoded values, run on one decoded checkpoint state: LangGraph's own
(``LINTS``: tool calls without results, several todos in progress) and those of the thread's profile.

Each lint returns plain flag fields (``code``, ``field``, ``checkpoint_ids``,
``summary``, ``why``, ``fix``); ``inspector.sizes.health`` adds the thread and merges
what several branches report.
"""

from __future__ import annotations

from typing import Any

from ..profiles import text, value_lints
from ..store import CheckpointSizes, CheckpointState

Found = dict[str, Any]


def _first_holding(rows: list[CheckpointSizes], leaf_id: str, field: str, index: int) -> str:
    """The oldest root checkpoint already holding item ``index`` of ``field`` as stored at ``leaf_id``."""
    root = sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id)
    leaf = next((r for r in root if r.checkpoint_id == leaf_id), None)
    items = leaf.channels[field].items if leaf and field in leaf.channels else ()
    if index >= len(items):
        return leaf_id
    wanted = items[index].digest
    for row in root:
        channel = row.channels.get(field)
        if channel and any(item.digest == wanted for item in channel.items):
            return row.checkpoint_id
    return leaf_id


def _tool_calls(message: dict) -> list[str]:
    calls = message.get("tool_calls")
    return [c.get("id") for c in calls if isinstance(c, dict) and c.get("id")] if isinstance(calls, list) else []


def dangling_tool_call_flags(state: CheckpointState, rows: list[CheckpointSizes]) -> list[Found]:
    """AI tool calls with no tool result, unless the run is waiting at an interrupt for that very call."""
    messages = [m for m in state.values.get("messages") or [] if isinstance(m, dict)]
    answered = {m.get("tool_call_id") for m in messages if m.get("type") == "tool"}
    interrupted = any(w.channel == "__interrupt__" for w in state.writes)
    found = []
    for index, message in enumerate(messages):
        if message.get("type") != "ai":
            continue
        missing = [cid for cid in _tool_calls(message) if cid not in answered]
        is_last = all(m.get("type") == "tool" for m in messages[index + 1 :])
        if not missing or (is_last and interrupted):
            continue
        found.append(dict(
            code="dangling-tool-call", field="messages",
            checkpoint_ids=tuple(dict.fromkeys((_first_holding(rows, state.checkpoint_id, "messages", index),
                                                state.checkpoint_id))),
            summary=f"AI message {message.get('id') or index} called {', '.join(missing)} and no tool result followed",
            why="most model APIs reject a history where a tool call has no matching tool message; the thread cannot continue",
            fix=text("health.dangling.fix"),
        ))
    return found


def todo_flags(state: CheckpointState, rows: list[CheckpointSizes]) -> list[Found]:
    todos = state.values.get("todos") or []
    active = [t for t in todos if isinstance(t, dict) and t.get("status") == "in_progress"]
    if len(active) < 2:
        return []
    names = ", ".join(str(t.get("content") or t.get("title") or t.get("id")) for t in active)
    return [dict(
        code="todos-in-progress", field="todos", checkpoint_ids=(state.checkpoint_id,),
        summary=f"{len(active)} todos in_progress at once: {names}",
        why="plan mode expects one task in progress at a time; several usually means updates were lost",
        fix="have the agent mark the finished task completed before starting the next (write_todos)",
    )]


LINTS = (dangling_tool_call_flags, todo_flags)  # LangGraph's: every thread; an app's come from its profile


def value_flags(state: CheckpointState, rows: list[CheckpointSizes]) -> list[Found]:
    """Every value lint on one decoded state; ``rows`` name where a payload first appeared.

    A lint that meets a field not shaped as it expects (a crafted or corrupt state) finds nothing
    there rather than failing the whole thread's health."""
    found: list[Found] = []
    for lint in (*LINTS, *value_lints()):
        try:
            found.extend(lint(state, rows))
        except (TypeError, AttributeError, ValueError, KeyError):
            continue
    return found
