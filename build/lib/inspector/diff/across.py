"""A checkpoint of one thread against a checkpoint of another: two runs of the same task, side by side.

Fields are compared as ``diff`` compares them, in each reducer's terms, with one
exception: two runs give their messages (and tool calls) different ids, so
``messages`` are aligned by content instead. A message's content is what it
says and does: its type, name, text, tool calls (name and arguments) and extra
fields, without ids, token counts and response metadata. Messages with the same
content match whatever their ids; in a stretch where the runs differ, messages
of the same type are paired as changed, the rest are added or removed.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from typing import Any

from ..profiles import reads_thread
from ..store import Store
from .model import Change, StateDiff
from .nested import first_difference
from .state_diff import diff
from .summaries import message_line

# Keys that differ between runs of the same content: ids, and what the model reported about the call.
RUN_KEYS = frozenset({"id", "tool_call_id", "response_metadata", "usage_metadata", "run_id"})


def content_of(message: Any) -> Any:
    """A message without what differs between runs (ids, token counts, response metadata)."""
    if not isinstance(message, dict):
        return message
    out = {k: v for k, v in message.items() if k not in RUN_KEYS}
    for key in ("tool_calls", "invalid_tool_calls"):
        if isinstance(out.get(key), list):
            out[key] = [{k: v for k, v in c.items() if k != "id"} if isinstance(c, dict) else c for c in out[key]]
    return out


def _signature(message: Any) -> str:
    return json.dumps(content_of(message), sort_keys=True, default=repr, ensure_ascii=False)


def _key(message: Any, index: int) -> str:
    mid = message.get("id") if isinstance(message, dict) else None
    return str(mid) if mid else f"#{index}"


def _kind(message: Any) -> Any:
    return message.get("type") if isinstance(message, dict) else type(message).__name__


def aligned_message_changes(before: Any, after: Any) -> tuple[list[Change], str | None]:
    """``messages`` of two runs compared by content; the note says how many matched with other ids."""
    old, new = list(before or []), list(after or [])
    matcher = SequenceMatcher(a=[_signature(m) for m in old], b=[_signature(m) for m in new], autojunk=False)
    changes: list[Change] = []
    renamed = 0
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            renamed += sum(1 for i, j in zip(range(a0, a1), range(b0, b1)) if _key(old[i], i) != _key(new[j], j))
            continue
        left, right = list(range(a0, a1)), list(range(b0, b1))
        while left and right and _kind(old[left[0]]) == _kind(new[right[0]]):
            i, j = left.pop(0), right.pop(0)
            where = first_difference(content_of(old[i]), content_of(new[j])) or ""
            changes.append(Change("changed", _key(new[j], j), f"changed: {message_line(new[j])} ({where})",
                                  before=message_line(old[i]), after=message_line(new[j])))
        changes += [Change("removed", _key(old[i], i), f"only in the first: {message_line(old[i])}",
                           before=message_line(old[i])) for i in left]
        changes += [Change("added", _key(new[j], j), f"only in the second: {message_line(new[j])}",
                           after=message_line(new[j])) for j in right]
    note = f"{renamed} message(s) matched by content although their ids differ" if renamed else None
    return changes, note


@reads_thread
def diff_threads(store: Store, thread_id: str, other_thread_id: str, from_id: str | None = None,
                 to_id: str | None = None, ns: str = "", internal: bool = False) -> StateDiff:
    """``thread_id`` at ``from_id`` against ``other_thread_id`` at ``to_id`` (default: the newest of each).

    Raises ``NotFound`` for an unknown thread or checkpoint.
    """
    return compare_across(store.state(thread_id, from_id, ns), store.state(other_thread_id, to_id, ns), internal)


def compare_across(before: Any, after: Any, internal: bool = False) -> StateDiff:
    """``diff`` of two decoded states of different threads, messages aligned by content."""
    result = diff(before, after, internal=internal)
    result.before_thread_id = before.thread_id
    for other in result.fields:
        other.note = None  # notes read a step's writes ("cleared by the {} rule"): no step joins two threads
    field = result.field("messages")
    if field is not None and "messages" in before.values and "messages" in after.values:
        field.changes, field.note = aligned_message_changes(before.values["messages"], after.values["messages"])
        field.status = "changed" if field.changes else "unchanged"
        if not field.changes:
            field.before = field.after = None
    return result
