"""Replay verification: parent state + the writes stored on it, through the schema's reducers,
compared with the child's stored state.

Each field of a step comes out verified (``confirmed``), ``unverified`` or
``mismatch``. Only a field whose reducer the schema names can mismatch: a
channel the schema does not declare is "unverified (reducer unknown)", and so is
anything the store does not hold enough to check (values ``update_state`` or a
direct ``put`` applied without storing writes, a reducer refusing a stored
write). Writes follow LangGraph's channel rules: a reducer channel with no value
yet takes its first write as it is (the value of an ``Overwrite``, as DeerFlow
stores it; a stored wrapper reads as the value it holds), and
an ``Overwrite`` write bypasses the reducer (later writes in the same step are ignored).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, messages_from_dict

from .. import schema as schemas
from ..schema.thread_state import SandboxConflict
from ..store import CheckpointState, WriteRecord, is_internal_channel
from ..store.decode import Opaque, overwritten
from .model import UNKNOWN_REDUCER, FieldCheck, StepReplay
from .nested import first_difference
from .writes import describe_writes, step_writes, update_writes, writes_by_channel

GENERATED_ID = "(id assigned by add_messages)"
MESSAGE_TYPES = {"human", "ai", "system", "tool", "function", "chat", "remove"}
MESSAGE_TYPES |= {f"{t}Chunk" for t in ("AIMessage", "HumanMessage", "SystemMessage", "ToolMessage",
                                        "FunctionMessage", "ChatMessage")}

NOT_STORED = "written by update_state or the saver; the values written are not stored"
REDUCER_FAILED = "the reducer refused a stored write"
SANDBOX_CONFLICT = "merge_sandbox refused the stored writes"
OPAQUE_VALUE = "a value written or stored could not be decoded (opaque, undecodable or too deep to walk)"


class ReplayError(Exception):
    """A write the reducer could not apply; the field is reported as unverified, the error as a finding."""

    def __init__(self, message: str, reason: str = REDUCER_FAILED) -> None:
        super().__init__(message)
        self.reason = reason


class _Nothing:
    """A channel with no value yet (LangGraph's MISSING)."""

    def __repr__(self) -> str:
        return "<nothing>"


NOTHING = _Nothing()


def start_value(channel: str, values: dict[str, Any], schema: schemas.Schema) -> Any:
    """What ``channel`` holds before a step's writes: its value, the schema's empty value, or NOTHING."""
    if channel in values:
        return values[channel]
    has, value = schema.starting_value(channel)
    return value if has else NOTHING


# -- messages as the reducer sees them -------------------------------------------


@dataclass
class _Converted:
    """A stored message list as the reducer sees it: the dicts, their messages, the ids, and for each
    message the dict to give back after the reducer (None where dumping the message gives another)."""

    source: list[Any]
    messages: list[Any]
    ids: list[str]
    plain: list[dict | None]
    all_plain: bool


class MessageMemo:
    """While a thread is replayed, each stored message dict is rebuilt as a LangChain message once.

    Consecutive states share their message dicts (``store.carried``), so a step converts only the
    messages it adds to the list before it, and a message the reducer kept is given back as the very
    dict it came from when that dict is what dumping the message gives (checked once per message): the
    comparison with the child's stored value then meets the same objects. Results are equal to
    converting every message at every step. Messages without an id are not remembered:
    ``add_messages`` assigns them one in place.
    """

    def __init__(self) -> None:
        self.dicts: dict[int, tuple[BaseMessage, dict | None]] = {}  # id(message) -> (message, its dict or None)
        self.last: _Converted | None = None

    def convert(self, value: Any) -> Any:
        message = _as_message(value)
        if isinstance(message, BaseMessage) and message.id is not None and message is not value:
            same = {**message.model_dump()} == value
            self.dicts[id(message)] = (message, value if same else None)
        return message

    def convert_list(self, value: list[Any]) -> _Converted:
        """``value`` converted, reusing the last list converted where ``value`` begins with it."""
        last, start = self.last, 0
        if last is not None and len(last.source) <= len(value) and value[: len(last.source)] == last.source:
            start = len(last.source)
        messages = [self.convert(v) for v in value[start:]]
        ids = [m.id for m in messages if isinstance(m, BaseMessage) and m.id]
        plain = [self.plain(m) if isinstance(m, BaseMessage) else None for m in messages]
        all_plain = all(p is not None for p in plain)
        if start:
            messages, ids, plain = last.messages + messages, last.ids + ids, last.plain + plain
            all_plain = all_plain and last.all_plain
        self.last = _Converted(value, messages, ids, plain, all_plain)
        return self.last

    def plain(self, message: BaseMessage) -> dict | None:
        found = self.dicts.get(id(message))
        return found[1] if found is not None and found[0] is message else None


_MEMO: ContextVar[MessageMemo | None] = ContextVar("replay_message_memo", default=None)


@contextmanager
def remembering_messages() -> Iterator[MessageMemo]:
    """Replay inside the block converts each stored message once (see ``MessageMemo``)."""
    token = _MEMO.set(MessageMemo())
    try:
        yield _MEMO.get()
    finally:
        _MEMO.reset(token)


def _as_message(value: Any) -> Any:
    if isinstance(value, dict) and value.get("type") in MESSAGE_TYPES:
        data = {k: v for k, v in value.items() if k != "__type__"}
        try:
            return messages_from_dict([{"type": value["type"], "data": data}])[0]
        except Exception as exc:  # pydantic rejects a malformed stored message
            raise ReplayError(f"message {value.get('id')!r} cannot be rebuilt ({type(exc).__name__})") from None
    return value


def _as_messages(value: Any, known: set[str], stored: bool = False) -> Any:
    """``value`` as LangChain messages; ``stored``: the channel's stored list (remembered while replaying)."""
    memo = _MEMO.get()
    if stored and memo is not None and isinstance(value, list):
        converted = memo.convert_list(value)
        known.update(converted.ids)
        return list(converted.messages)
    converted = [_as_message(v) for v in value] if isinstance(value, list) else _as_message(value)
    items = converted if isinstance(converted, list) else [converted]
    known.update(m.id for m in items if isinstance(m, BaseMessage) and m.id)
    return converted


def _plain_messages(value: Any, known: set[str]) -> Any:
    if not isinstance(value, list):
        return value
    memo = _MEMO.get()
    last = memo.last if memo is not None else None
    start = 0
    if last is not None and last.all_plain and len(last.messages) <= len(value) \
            and value[: len(last.messages)] == last.messages:
        start = len(last.messages)  # the stored list's messages, kept by the reducer: their own dicts
    rest = [_plain_message(m, known, memo) if isinstance(m, BaseMessage) else m for m in value[start:]]
    return last.plain + rest if start else rest


def _plain_message(message: BaseMessage, known: set[str], memo: MessageMemo | None) -> dict:
    if message.id in known and memo is not None and (stored := memo.plain(message)) is not None:
        return stored  # equal to the dump below, and the very dict the store gave
    return {**message.model_dump(), **({"id": GENERATED_ID} if message.id not in known else {})}


# -- replay ------------------------------------------------------------------------


def apply_writes(channel: str, current: Any, values: list[Any], schema: schemas.Schema | None = None) -> Any:
    """``current`` (or ``NOTHING``) after ``values`` were written to ``channel`` in task order.

    Raises ``ReplayError`` when the reducer refuses a write. The caller decides
    what a channel the schema does not know means; here it replaces.
    """
    schema = schemas.resolve(schema)
    reducer = schema.reducer_for(channel)
    if reducer is None:
        return values[-1]
    messages = schema.holds_messages(channel)
    known: set[str] = set()

    def prepared(value: Any, stored: bool = False) -> Any:
        return _as_messages(value, known, stored) if messages else value

    pending = list(values)
    overwrote = False
    if current is NOTHING:
        # the first write is taken as it is; an Overwrite one stores its value, as DeltaChannel does and as
        # DeerFlow's patch of BinaryOperatorAggregate makes it (LangGraph would store the wrapper itself)
        overwrote, first = overwritten(pending[0])
        result = prepared(first if overwrote else pending[0])
        pending.pop(0)
    else:
        result = prepared(current, stored=True)
    for value in pending:
        is_overwrite, replacement = overwritten(value)
        if is_overwrite:
            result, overwrote = prepared(replacement), True
        elif not overwrote:
            try:
                result = reducer(result, prepared(value))
            except SandboxConflict as exc:
                raise ReplayError(f"{exc}: two different sandboxes in one thread, a sandbox lifecycle bug "
                                  "(DeerFlow fails such a step)", SANDBOX_CONFLICT) from None
            except ReplayError:
                raise
            except Exception as exc:
                raise ReplayError(f"{schema.reducer_name(channel)} failed on a stored write "
                                  f"({type(exc).__name__}: {exc})") from None
    return _plain_messages(result, known) if messages else result


def replay(parent: CheckpointState | dict[str, Any], writes: list[WriteRecord],
           schema: schemas.Schema | None = None) -> dict[str, Any]:
    """The field values the writes produce on top of ``parent``, through the schema's reducers.

    Message ids that ``add_messages`` generated read as ``GENERATED_ID``. Raises
    ``ReplayError`` when a reducer cannot apply a stored write.
    """
    schema = schemas.resolve(schema)
    values = dict(parent.values if isinstance(parent, CheckpointState) else parent)
    for channel, written in (writes_by_channel(writes) or {}).items():
        values[channel] = apply_writes(channel, start_value(channel, values, schema), written, schema)
    return values


def _messages_difference(expected: list[Any], stored: Any) -> str | None:
    if not isinstance(stored, list):
        return first_difference(expected, stored, "messages")
    aligned = [
        {**e, "id": s.get("id")} if isinstance(e, dict) and e.get("id") == GENERATED_ID and isinstance(s, dict) else e
        for e, s in zip(expected, stored)
    ] + expected[len(stored):]
    return first_difference(aligned, stored, "messages")


def field_difference(field: str, expected: Any, stored: Any, schema: schemas.Schema | None = None) -> str | None:
    """The first difference between a replayed and a stored field value, or None when they agree."""
    if expected == stored:
        return None
    if schemas.resolve(schema).holds_messages(field) and isinstance(expected, list):
        return _messages_difference(expected, stored)
    return first_difference(expected, stored, field)


# -- one step ----------------------------------------------------------------------


def _written_channels(parent: CheckpointState, child: CheckpointState) -> set[str]:
    """Channels whose version changed between parent and child: what ``update_state`` or ``put`` wrote."""
    old = parent.header.get("channel_versions") or {}
    new = child.header.get("channel_versions") or {}
    return {k for k, v in new.items() if old.get(k) != v}


def _step(child: CheckpointState, status: str, note: str | None = None) -> StepReplay:
    return StepReplay(
        thread_id=child.thread_id, checkpoint_ns=child.checkpoint_ns, checkpoint_id=child.checkpoint_id,
        parent_checkpoint_id=child.parent_checkpoint_id, step=child.metadata.get("step"),
        source=child.metadata.get("source"), status=status, note=note,
    )


def replay_step(parent: CheckpointState, child: CheckpointState, schema: schemas.Schema | None = None,
                sole_child: bool = False) -> StepReplay:
    """Check ``child`` against ``parent`` and the writes stored on it.

    ``sole_child``: ``child`` is the parent's only child, so writes ``update_state``
    stored on the parent can only be the ones that made it.
    """
    schema = schemas.resolve(schema)
    source = child.metadata.get("source")
    writes = step_writes(parent, source)
    if writes is None and sole_child:
        writes = update_writes(parent, _written_channels(parent, child))
    result = _step(child, "match")
    result.wrote = describe_writes(writes)
    fields = schema.order(set(parent.values) | set(child.values) | set(writes_by_channel(writes) or {}))
    if writes is None:
        result.note = f"{source}: the values written to this checkpoint are not stored as writes"
        result.fields = _check_update(parent, child, fields, schema)
    else:
        result.fields = _check_replay(parent, child, writes, fields, schema, result.findings)
    if result.mismatches:
        result.status = "mismatch"
    elif result.unverified:
        result.status = "unverified"
    return result


def _check_replay(parent: CheckpointState, child: CheckpointState, writes: list[WriteRecord], fields: list[str],
                  schema: schemas.Schema, findings: list[str]) -> list[FieldCheck]:
    written = writes_by_channel(writes) or {}
    checks = []
    for name in fields:
        if is_internal_channel(name):
            continue
        reducer = schema.reducer_name(name)
        stored = child.values.get(name)
        if name not in written:
            checks.append(_carried(name, reducer, parent.values.get(name), stored, schema))
            continue
        if not schema.knows(name):
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=UNKNOWN_REDUCER))
            continue
        if isinstance(stored, Opaque) or any(isinstance(value, Opaque) for value in written[name]):
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=OPAQUE_VALUE))
            continue
        try:
            expected = apply_writes(name, start_value(name, parent.values, schema), written[name], schema)
        except ReplayError as exc:
            findings.append(f"{name}: {exc}")
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=exc.reason))
            continue
        difference = field_difference(name, expected, stored, schema)
        if difference and parent.values.get(name) is None and _stored_wrapper_holds(name, expected, stored, schema):
            difference = None
        checks.append(FieldCheck(name, reducer, "mismatch" if difference else "confirmed", True, difference))
    return checks


def _stored_wrapper_holds(name: str, expected: Any, stored: Any, schema: schemas.Schema) -> bool:
    """An ``Overwrite`` written into a channel with no value, stored as the wrapper rather than its value
    (a channel that keeps its first write as it is): the wrapper holds the value replay expects."""
    is_wrapper, inner = overwritten(stored)
    return is_wrapper and field_difference(name, expected, inner, schema) is None


def _carried(name: str, reducer: str, before: Any, stored: Any, schema: schemas.Schema) -> FieldCheck:
    """A field no write touched: it must be carried over unchanged (or its reducer is unknown)."""
    difference = field_difference(name, before, stored, schema)
    if difference is None:
        return FieldCheck(name, reducer, "confirmed", False)
    if not schema.knows(name):
        return FieldCheck(name, reducer, "unverified", False, reason=UNKNOWN_REDUCER)
    return FieldCheck(name, reducer, "mismatch", False, difference)


def _check_update(parent: CheckpointState, child: CheckpointState, fields: list[str],
                  schema: schemas.Schema) -> list[FieldCheck]:
    changed = _written_channels(parent, child)
    checks = []
    for name in fields:
        if is_internal_channel(name):
            continue
        reducer = schema.reducer_name(name)
        if name in changed:
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=NOT_STORED))
        else:
            checks.append(_carried(name, reducer, parent.values.get(name), child.values.get(name), schema))
    return checks
