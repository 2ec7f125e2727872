"""Replay verification: parent state + the writes stored on it, through the shared reducers,
compared with the child's stored state.

Fields that match are confirmed; a mismatch (a node that bypassed a reducer, a
store written by another reducer version, a corrupted value) is flagged with the
field and its first difference. Channels without a known reducer replace.
"""

from __future__ import annotations

import typing
from typing import Any

from langchain_core.messages import BaseMessage, messages_from_dict

from ..history import HistoryProblem, build_history, key_of
from ..store import CheckpointRow, CheckpointState, NotFound, Store, WriteRecord, is_internal_channel
from ..thread_state import ThreadState, reducer_for, reducer_name
from .model import FieldCheck, StepReplay
from .nested import first_difference
from .writes import describe_writes, step_writes, writes_by_channel

GENERATED_ID = "(id assigned by add_messages)"
MESSAGE_TYPES = {"human", "ai", "system", "tool", "function", "chat", "remove"}
MESSAGE_TYPES |= {f"{t}Chunk" for t in ("AIMessage", "HumanMessage", "SystemMessage", "ToolMessage",
                                        "FunctionMessage", "ChatMessage")}


class ReplayError(Exception):
    """A write the reducer could not apply; the field is reported as unverified."""


def _initial(channel: str) -> Any:
    """What a reducer channel holds before its first write: an empty value of the field's type."""
    hint = typing.get_type_hints(ThreadState, include_extras=True).get(channel)
    base = typing.get_origin(getattr(hint, "__origin__", None)) or getattr(hint, "__origin__", None)
    return base() if base in (list, dict) else None


# -- messages as the reducer sees them -------------------------------------------


def _as_message(value: Any) -> Any:
    if isinstance(value, dict) and value.get("type") in MESSAGE_TYPES:
        data = {k: v for k, v in value.items() if k != "__type__"}
        try:
            return messages_from_dict([{"type": value["type"], "data": data}])[0]
        except Exception as exc:  # pydantic rejects a malformed stored message
            raise ReplayError(f"message {value.get('id')!r} cannot be rebuilt ({type(exc).__name__})") from None
    return value


def _as_messages(value: Any) -> Any:
    if isinstance(value, list):
        return [_as_message(v) for v in value]
    return _as_message(value)


def _messages_reducer(current: Any, values: list[Any]) -> list[dict[str, Any]]:
    reducer = reducer_for("messages")
    merged = _as_messages(current if current is not None else [])
    known = {m.id for m in merged if isinstance(m, BaseMessage)}
    for value in values:
        written = _as_messages(value)
        items = written if isinstance(written, list) else [written]
        known |= {m.id for m in items if isinstance(m, BaseMessage) and m.id}
        merged = reducer(merged, written)
    return [
        {**m.model_dump(), **({"id": GENERATED_ID} if m.id not in known else {})} if isinstance(m, BaseMessage) else m
        for m in merged
    ]


# -- replay ------------------------------------------------------------------------


def apply_writes(channel: str, current: Any, values: list[Any]) -> Any:
    """``current`` after ``values`` were written to ``channel`` in task order."""
    reducer = reducer_for(channel)
    if reducer is None:
        return values[-1]
    result = current
    try:
        if channel == "messages":
            return _messages_reducer(current, values)
        for value in values:
            result = reducer(result, value)
    except ReplayError:
        raise
    except Exception as exc:
        raise ReplayError(f"{reducer_name(channel)} failed on a stored write ({type(exc).__name__}: {exc})") from None
    return result


def replay(parent: CheckpointState | dict[str, Any], writes: list[WriteRecord]) -> dict[str, Any]:
    """The field values the writes produce on top of ``parent``, through the shared reducers.

    Message ids that ``add_messages`` generated read as ``GENERATED_ID``. Raises
    ``ReplayError`` when a reducer cannot apply a stored write.
    """
    values = dict(parent.values if isinstance(parent, CheckpointState) else parent)
    for channel, written in (writes_by_channel(writes) or {}).items():
        start = values[channel] if channel in values else _initial(channel)
        values[channel] = apply_writes(channel, start, written)
    return values


def _messages_difference(expected: list[Any], stored: Any) -> str | None:
    if not isinstance(stored, list):
        return first_difference(expected, stored, "messages")
    aligned = [
        {**e, "id": s.get("id")} if isinstance(e, dict) and e.get("id") == GENERATED_ID and isinstance(s, dict) else e
        for e, s in zip(expected, stored)
    ] + expected[len(stored):]
    return first_difference(aligned, stored, "messages")


def field_difference(field: str, expected: Any, stored: Any) -> str | None:
    """The first difference between a replayed and a stored field value, or None when they agree."""
    if expected == stored:
        return None
    if field == "messages" and isinstance(expected, list):
        return _messages_difference(expected, stored)
    return first_difference(expected, stored, field)


# -- one step ----------------------------------------------------------------------


def _written_channels(parent: CheckpointState, child: CheckpointState) -> set[str]:
    """Channels whose version changed between parent and child: what ``update_state`` wrote."""
    old = parent.header.get("channel_versions") or {}
    new = child.header.get("channel_versions") or {}
    return {k for k, v in new.items() if old.get(k) != v}


def _step(parent: CheckpointState | None, child: CheckpointState, status: str, note: str | None = None) -> StepReplay:
    return StepReplay(
        thread_id=child.thread_id, checkpoint_ns=child.checkpoint_ns, checkpoint_id=child.checkpoint_id,
        parent_checkpoint_id=child.parent_checkpoint_id, step=child.metadata.get("step"),
        source=child.metadata.get("source"), status=status, note=note,
    )


def replay_step(parent: CheckpointState, child: CheckpointState) -> StepReplay:
    """Check ``child`` against ``parent`` and the writes stored on it."""
    source = child.metadata.get("source")
    writes = step_writes(parent, source)
    result = _step(parent, child, "match")
    result.wrote = describe_writes(writes)
    fields = sorted(set(parent.values) | set(child.values) | set(writes_by_channel(writes) or {}))
    if writes is None:
        result.note = f"{source}: update_state applies its values without storing them as writes"
        result.fields = _check_update(parent, child, fields)
    else:
        result.fields = _check_replay(parent, child, writes, fields)
    if result.mismatches:
        result.status = "mismatch"
    elif any(f.status == "unverified" for f in result.fields):
        result.status = "unverified"
    return result


def _check_replay(parent: CheckpointState, child: CheckpointState, writes: list[WriteRecord],
                  fields: list[str]) -> list[FieldCheck]:
    written = writes_by_channel(writes) or {}
    checks = []
    for name in fields:
        if is_internal_channel(name):
            continue
        try:
            expected = (
                apply_writes(name, parent.values.get(name, _initial(name)), written[name])
                if name in written else parent.values.get(name)
            )
        except ReplayError as exc:
            checks.append(FieldCheck(name, reducer_name(name), "unverified", True, str(exc)))
            continue
        difference = field_difference(name, expected, child.values.get(name))
        status = "mismatch" if difference else "confirmed"
        checks.append(FieldCheck(name, reducer_name(name), status, name in written, difference))
    return checks


def _check_update(parent: CheckpointState, child: CheckpointState, fields: list[str]) -> list[FieldCheck]:
    changed = _written_channels(parent, child)
    checks = []
    for name in fields:
        if is_internal_channel(name):
            continue
        if name in changed:
            checks.append(FieldCheck(name, reducer_name(name), "unverified", True,
                                     "written by update_state; its values are not stored"))
            continue
        difference = field_difference(name, parent.values.get(name), child.values.get(name))
        checks.append(FieldCheck(name, reducer_name(name), "mismatch" if difference else "confirmed", False, difference))
    return checks


# -- a whole thread ----------------------------------------------------------------


def replay_thread(store: Store, thread_id: str, ns: str = "") -> list[StepReplay]:
    """Replay every checkpoint of one namespace of a thread against its parent, oldest first.

    Each state is decoded once and dropped as soon as its last child was checked. A checkpoint
    on a broken link of the history (parent cycle, missing parent, duplicate id) is not replayed:
    its step is ``broken`` and its note names the problem.
    """
    history = build_history(store.timeline(thread_id))
    rows = sorted((history.node(k).row for k in history.ordered if k[0] == ns), key=lambda r: r.checkpoint_id)
    if not rows:
        raise NotFound(f"no checkpoints in namespace {ns!r} for thread {thread_id!r}")
    children: dict[str, int] = {}
    for row in rows:
        if row.parent_checkpoint_id:
            children[row.parent_checkpoint_id] = children.get(row.parent_checkpoint_id, 0) + 1
    cache: dict[str, CheckpointState] = {}

    def load(checkpoint_id: str) -> CheckpointState:
        if checkpoint_id not in cache:
            cache[checkpoint_id] = store.state(thread_id, checkpoint_id, ns)
        return cache[checkpoint_id]

    results = []
    for row in rows:
        problem = history.problem_of(key_of(row))
        results.append(_broken(row, problem) if problem is not None else _replay_row(load, load(row.checkpoint_id)))
        if row.parent_checkpoint_id and children.get(row.parent_checkpoint_id, 0) > 0:
            children[row.parent_checkpoint_id] -= 1
            if children[row.parent_checkpoint_id] == 0:
                cache.pop(row.parent_checkpoint_id, None)
        if not children.get(row.checkpoint_id):
            cache.pop(row.checkpoint_id, None)
    return results


def _broken(row: CheckpointRow, problem: HistoryProblem) -> StepReplay:
    return StepReplay(
        thread_id=row.thread_id, checkpoint_ns=row.checkpoint_ns, checkpoint_id=row.checkpoint_id,
        parent_checkpoint_id=row.parent_checkpoint_id, step=row.step, source=row.source, status="broken",
        note=problem.message,
    )


def _replay_row(load, child: CheckpointState) -> StepReplay:
    if not child.parent_checkpoint_id:
        return _step(None, child, "first", "the first checkpoint: nothing to replay")
    try:
        parent = load(child.parent_checkpoint_id)
    except NotFound:
        return _step(None, child, "unverified", "the parent checkpoint is not in the store")
    return replay_step(parent, child)
