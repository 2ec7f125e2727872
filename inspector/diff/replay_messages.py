"""Messages as the reducers see them while a thread is replayed.

A stored message list is a list of dicts; the reducers (``add_messages`` and its kin)
take LangChain messages. ``MessageMemo`` rebuilds each stored message once per
thread, and ``fold_messages`` applies LangGraph's own ``add_messages`` to what a step
adds instead of to the whole conversation: when a write removes nothing and names no
message the conversation already holds, ``add_messages(conversation + tail, write)``
is ``conversation + add_messages(tail, write)`` (the reducer keeps every message it
does not name, in order), so the real reducer runs on the short tail and the result
is the one the long call gives. Any other write (a ``RemoveMessage``, an id already
there, a chunk, a conversation holding a message without an id) goes through the
reducer on the whole list, as before.

Most steps need neither: ``appended`` checks, on the stored dicts, that every write is plain messages
(a base message type and an id) the conversation does not hold, once each and nothing removed, over a
conversation of plain messages with ids. Then ``add_messages`` keeps the conversation as it is and adds
the written messages after it, unchanged (a plain message with an id is neither converted nor given an
id), and the child stores them as they were written: the result is the stored conversation followed by
the written dicts. Only other writes load LangChain's messages and LangGraph's ``add_messages``
(``_load``); a thread whose schema names no message reducer replays without them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Callable

from ..schema.default_schema import is_add_messages
from ..store.not_utf8 import named

# LangChain's message classes and LangGraph's reducer, bound by ``_load`` on first use
BaseMessage: Any = None
BaseMessageChunk: Any = None
RemoveMessage: Any = None
messages_from_dict: Any = None
add_messages: Any = None

GENERATED_ID = "(id assigned by add_messages)"
MESSAGE_TYPES = {"human", "ai", "system", "tool", "function", "chat", "remove"}
MESSAGE_TYPES |= {f"{t}Chunk" for t in ("AIMessage", "HumanMessage", "SystemMessage", "ToolMessage",
                                        "FunctionMessage", "ChatMessage")}
REDUCER_FAILED = "the reducer refused a stored write"
PLAIN_TYPES = frozenset({"human", "ai", "system", "tool", "function", "chat"})  # not a chunk, not a removal


def _load() -> None:
    """Import LangChain's messages and LangGraph's ``add_messages`` (once; a message channel is replayed)."""
    global BaseMessage, BaseMessageChunk, RemoveMessage, messages_from_dict, add_messages
    if add_messages is None:
        from langchain_core.messages import BaseMessage, BaseMessageChunk, RemoveMessage, messages_from_dict
        from langgraph.graph.message import add_messages


class ReplayError(Exception):
    """A write the reducer could not apply; the field is reported as unverified, the error as a finding."""

    def __init__(self, message: str, reason: str = REDUCER_FAILED) -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class _Converted:
    """A stored message list as the reducer sees it: the dicts, their messages, the set of their ids, for
    each message the dict to give back after the reducer (None where dumping the message gives another),
    and whether every item is a plain message with an id (what lets ``fold_messages`` fold a tail)."""

    source: list[Any]
    messages: list[Any]
    ids: set[str]
    plain: list[dict | None]
    all_plain: bool
    all_identified: bool


def _identified(message: Any) -> bool:
    return isinstance(message, BaseMessage) and not isinstance(message, BaseMessageChunk) and message.id is not None


class MessageMemo:
    """While a thread is replayed, each stored message dict is rebuilt as a LangChain message once.

    Consecutive states share their message dicts (``store.carried``), so a step converts only the
    messages it adds to the list before it (and those a step wrote are the messages converted from its
    writes, when the stored dict equals the written one), and a message the reducer kept is given back as the very
    dict it came from when that dict is what dumping the message gives (checked once per message): the
    comparison with the child's stored value then meets the same objects. Results are equal to
    converting every message at every step. Messages without an id are not remembered:
    ``add_messages`` assigns them one in place.
    """

    def __init__(self) -> None:
        self.dicts: dict[int, tuple[BaseMessage, dict | None]] = {}  # id(message) -> (message, its dict or None)
        self.written: dict[str, tuple[dict, BaseMessage]] = {}  # message id -> (a write's dict, its message)
        self.last: _Converted | None = None
        self.plain_list: list | None = None  # the last conversation ``appended`` found all plain, and its ids
        self.plain_ids: set[str] = set()

    def convert(self, value: Any) -> Any:
        found = self.written.get(value.get("id")) if isinstance(value, dict) else None
        # the message a step wrote comes back stored in the child: an equal dict gives an equal message
        message = found[1] if found is not None and found[0] == value else as_message(value)
        if isinstance(message, BaseMessage) and message.id is not None and message is not value:
            same = {**message.model_dump()} == value
            self.dicts[id(message)] = (message, value if same else None)
        return message

    def convert_list(self, value: list[Any]) -> _Converted:
        """``value`` converted, reusing the last list converted where ``value`` begins with it (the last
        one is not used again: its id set grows into the new one's)."""
        last, start = self.last, 0
        if last is not None and len(last.source) <= len(value) and value[: len(last.source)] == last.source:
            start = len(last.source)
        messages = [self.convert(v) for v in value[start:]]
        ids = {m.id for m in messages if isinstance(m, BaseMessage) and m.id}
        plain = [self.plain(m) if isinstance(m, BaseMessage) else None for m in messages]
        all_plain = all(p is not None for p in plain)
        all_identified = all(_identified(m) for m in messages)
        if start:
            last.ids.update(ids)
            messages, ids, plain = last.messages + messages, last.ids, last.plain + plain
            all_plain, all_identified = all_plain and last.all_plain, all_identified and last.all_identified
        self.last = _Converted(value, messages, ids, plain, all_plain, all_identified)
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


def _plain_id(item: Any) -> str | None:
    """The id of a stored plain message dict with an id (see ``appended``), else None."""
    if type(item) is dict and item.get("type") in PLAIN_TYPES:
        found = item.get("id")
        return found if type(found) is str and found else None
    return None


def _plain_conversation(value: list, memo: MessageMemo) -> set[str] | None:
    """The ids of ``value`` when all its items are plain messages with ids (the items a longer conversation
    shares with the last one checked are not checked again), else None."""
    last, ids, start = memo.plain_list, memo.plain_ids, 0
    if last is not None and len(last) <= len(value) and value[: len(last)] == last:
        start = len(last)
    else:
        ids = set()
    memo.plain_list = None
    for item in value[start:]:
        found = _plain_id(item)
        if found is None:
            return None
        ids.add(found)
    memo.plain_list, memo.plain_ids = value, ids
    return ids


def appended(current: Any, writes: list[Any]) -> list[Any] | None:
    """``add_messages`` folding ``writes`` into ``current``, on the stored dicts, when every write only adds
    plain messages the conversation does not hold (see the module's docstring); None otherwise, and
    outside a thread's replay (whose memo spares checking the conversation again at every step)."""
    memo = _MEMO.get()
    if memo is None or not isinstance(current, list):
        return None
    items = [item for write in writes for item in (write if isinstance(write, list) else [write])]
    new = [_plain_id(item) for item in items]
    if None in new or len(set(new)) != len(new):
        return None
    held = _plain_conversation(current, memo)
    if held is None or not held.isdisjoint(new):
        return None
    return current + items


class KnownIds:
    """The message ids a step's input held (the stored list's and the writes'): an id outside them was
    assigned by ``add_messages``. The stored list's ids are the memo's set, not copied."""

    def __init__(self) -> None:
        self.base: set[str] = set()
        self.extra: set[str] = set()

    def __contains__(self, message_id: object) -> bool:
        return message_id in self.base or message_id in self.extra

    def update(self, ids: Any) -> None:
        self.extra.update(ids)


def as_message(value: Any) -> Any:
    """A stored message dict as a LangChain message; anything else as it is."""
    _load()
    if isinstance(value, dict) and value.get("type") in MESSAGE_TYPES:
        data = {k: v for k, v in value.items() if k != "__type__"}
        try:
            return messages_from_dict([{"type": value["type"], "data": data}])[0]
        except Exception as exc:  # pydantic rejects a malformed stored message
            raise ReplayError(f"message {named(value.get('id'))} cannot be rebuilt ({type(exc).__name__})") from None
    return value


def stored_messages(value: list[Any], known: KnownIds) -> _Converted | None:
    """The channel's stored list converted through the memo (None outside a thread's replay)."""
    memo = _MEMO.get()
    if memo is None:
        return None
    _load()
    converted = memo.convert_list(value)
    known.base = converted.ids
    return converted


def as_messages(value: Any, known: KnownIds) -> Any:
    """``value`` (a write, or a stored value outside a thread's replay) as LangChain messages."""
    _load()
    converted = [as_message(v) for v in value] if isinstance(value, list) else as_message(value)
    items = converted if isinstance(converted, list) else [converted]
    known.update(m.id for m in items if isinstance(m, BaseMessage) and m.id)
    memo = _MEMO.get()
    if memo is not None:
        for source, message in zip(value if isinstance(value, list) else [value], items):
            if isinstance(message, BaseMessage) and message is not source and message.id is not None:
                memo.written[message.id] = (source, message)
    return converted


def _appends_only(write: Any, held: set[str]) -> bool:
    """The write removes nothing and names no message ``held`` holds: it lands after them."""
    items = write if isinstance(write, list) else [write]
    return all(isinstance(m, BaseMessage) and not isinstance(m, RemoveMessage) and m.id not in held for m in items)


class MessageFold:
    """Writes folded one at a time into a stored message list by ``reducer`` (LangGraph's), the long list
    spared where that gives the same result (see the module's docstring). ``base``: the stored list as
    the memo converted it (None: fold into ``result`` as it is)."""

    def __init__(self, reducer: Callable[[Any, Any], Any], result: Any, base: _Converted | None = None) -> None:
        _load()
        self.reducer, self.result, self.base = reducer, result, base
        spare = base is not None and is_add_messages(reducer) and base.all_identified
        self.tail: list[Any] | None = [] if spare else None

    def add(self, write: Any) -> None:
        if self.tail is not None and _appends_only(write, self.base.ids):
            self.tail = self.reducer(self.tail, write)
            return
        if self.tail is not None:
            self.result, self.tail = self.result + self.tail, None
        self.result = self.reducer(self.result, write)

    def value(self) -> Any:
        return self.result + self.tail if self.tail else self.result


def plain_messages(value: Any, known: KnownIds) -> Any:
    """The reducer's messages as stored dicts again; ids the reducer assigned read as ``GENERATED_ID``."""
    if not isinstance(value, list):
        return value
    _load()
    memo = _MEMO.get()
    last = memo.last if memo is not None else None
    start = 0
    if last is not None and last.all_plain and len(last.messages) <= len(value) \
            and value[: len(last.messages)] == last.messages:
        start = len(last.messages)  # the stored list's messages, kept by the reducer: their own dicts
    rest = [_plain_message(m, known, memo) if isinstance(m, BaseMessage) else m for m in value[start:]]
    return last.plain + rest if start else rest


def _plain_message(message: BaseMessage, known: KnownIds, memo: MessageMemo | None) -> dict:
    if message.id in known and memo is not None and (stored := memo.plain(message)) is not None:
        return stored  # equal to the dump below, and the very dict the store gave
    return {**message.model_dump(), **({"id": GENERATED_ID} if message.id not in known else {})}
