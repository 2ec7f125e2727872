"""What is known of the default schema (DeerFlow's ThreadState) without loading it, and schema drift.

Loading a schema means reading it the way LangGraph does (``inspector.schema``), which
imports LangGraph's graph package. Work that only names the active schema, lists its
fields (for drift), names their reducers (``state``) or asks whether its code changed
reads what is here instead: the default's name, its source files, and its fields and
reducer names as ``ThreadState`` declares them (read from the source; a test holds
them equal to what LangGraph reads).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DEFAULT_SCHEMA_NAME = "DeerFlow ThreadState"
# Reducers that fold messages into their channel (LangGraph's, and DeerFlow's delta-mode ones).
MESSAGE_REDUCERS = frozenset({"add_messages", "merge_message_writes", "messages_delta_reducer"})
# The files the default schema is made of: its reducers, and how a schema is read.
DEFAULT_SCHEMA_SOURCES = tuple(Path(__file__).with_name(name) for name in (
    "thread_state.py", "thread_state_reducers.py", "reading.py", "default_schema.py"))


@dataclass(frozen=True)
class SchemaDrift:
    """Where a thread and the schema disagree: channels the schema lacks, fields never written."""

    unknown_channels: tuple[str, ...] = ()
    unwritten_fields: tuple[str, ...] = ()
    schema: str = ""  # the schema's name

    def __bool__(self) -> bool:
        return bool(self.unknown_channels or self.unwritten_fields)


def drift_between(fields: Iterable[str], seen: Iterable[str], schema: str = "") -> SchemaDrift:
    """Channels in ``seen`` that ``fields`` lack, and ``fields`` not in ``seen`` (LangGraph's channels left out).

    A schema without fields (a profile that knows no app's schema) has no drift: nothing was expected."""
    from ..store.model import is_internal_channel

    fields = tuple(fields)
    if not fields:
        return SchemaDrift(schema=schema)
    channels = {c for c in seen if not is_internal_channel(c)}
    return SchemaDrift(
        unknown_channels=tuple(sorted(c for c in channels if c not in fields)),
        unwritten_fields=tuple(f for f in fields if f not in channels),
        schema=schema,
    )


@cache
def _declared() -> dict[str, str]:
    """``ThreadState``'s fields in declaration order and their reducers' names (``replace`` without one),
    read from ``thread_state.py``: ``Annotated[type, reducer]`` names the reducer last."""
    tree = ast.parse(DEFAULT_SCHEMA_SOURCES[0].read_text())
    state = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ThreadState")
    fields = {}
    for item in state.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            note = item.annotation
            annotated = isinstance(note, ast.Subscript) and getattr(note.value, "id", None) == "Annotated"
            last = note.slice.elts[-1] if annotated and isinstance(note.slice, ast.Tuple) else None
            fields[item.target.id] = last.id if isinstance(last, ast.Name) else "replace"
    return fields


def default_fields() -> tuple[str, ...]:
    """``ThreadState``'s fields in declaration order, read from ``thread_state.py``."""
    return tuple(_declared())


@dataclass(frozen=True)
class SchemaNames:
    """What the default schema says about channels without loading it: names, order, reducer names
    (the parts of ``inspector.schema.Schema`` the ``state`` command prints)."""

    name: str
    reducers: dict[str, str]

    @property
    def fields(self) -> tuple[str, ...]:
        return tuple(self.reducers)

    def declares(self, channel: str) -> bool:
        return channel in self.reducers

    def knows(self, channel: str) -> bool:
        return channel in self.reducers

    def reducer_name(self, channel: str) -> str:
        return self.reducers.get(channel, "unknown")

    def holds_messages(self, channel: str) -> bool:
        return self.reducer_name(channel) in MESSAGE_REDUCERS

    def order(self, names: Iterable[str]) -> list[str]:
        present = set(names)
        return [f for f in self.fields if f in present] + sorted(present - set(self.fields))


# -- the schema of the thread being read ---------------------------------------------
# Set by ``inspector.profiles.reading`` for the thread a piece of work reads: a ``Schema``, or
# ``DEFAULT`` (DeerFlow's ThreadState, loaded only when reducers are needed). A context variable:
# every dashboard session runs in its own thread.

DEFAULT = "default"
_THREAD: ContextVar[Any] = ContextVar("thread_schema", default=None)


def thread_schema() -> Any:
    """The schema chosen for the thread being read (a ``Schema`` or ``DEFAULT``), or None."""
    return _THREAD.get()


@contextmanager
def reading_schema(schema: Any) -> Iterator[Any]:
    """``schema`` (a ``Schema`` or ``DEFAULT``) is the thread's schema inside the block."""
    token = _THREAD.set(schema)
    try:
        yield schema
    finally:
        _THREAD.reset(token)


def _default_names() -> SchemaNames:
    return SchemaNames(DEFAULT_SCHEMA_NAME, _declared())


def active_names() -> "SchemaNames | object":
    """The active schema, or, when none has been loaded, the default's names read from its source."""
    loaded = _loaded()
    if loaded is not None:
        return loaded.active()
    chosen = thread_schema()
    return _default_names() if chosen is None or chosen == DEFAULT else chosen


def _loaded():  # the schema module, when something has loaded it
    return sys.modules.get("inspector.schema.reading")


def schema_pending() -> bool:
    """Whether the thread being read has an app's schema not built yet (``model.DeferredSchema``): naming its
    fields would import the app's package."""
    return getattr(thread_schema(), "is_built", True) is False


def active_schema_name() -> str:
    """The active schema's name (the default's, when no schema has been loaded)."""
    return active_names().name


def active_fields() -> tuple[str, ...]:
    """The active schema's fields (the default's, read from its source, when no schema has been loaded)."""
    return tuple(active_names().fields)
