"""A schema read from a state class (its channels and reducers), DeerFlow's ThreadState as the default, and the active one."""


from __future__ import annotations

import contextlib
import copy
import typing
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable

from .default import DEFAULT_SCHEMA_NAME, MESSAGE_REDUCERS, SchemaDrift, drift_between
from .thread_state import ThreadState

Reducer = Callable[[Any, Any], Any]

REPLACE = "replace"
UNKNOWN = "unknown"
# Reducers that fold LangChain messages: their values are rebuilt as messages before they are applied.


class SchemaError(ValueError):
    """A schema spec that cannot be loaded; the message says why, in one line."""


@dataclass(frozen=True, eq=False)
class Schema:
    """A state schema as the inspector uses it.

    ``reducers`` maps reducer channels to their reducer (called once per write);
    ``initial`` holds what a reducer channel starts from before its first write
    (an empty list or dict, as LangGraph makes it; a channel missing there takes
    its first write as it is); ``opaque`` names declared channels of a kind the
    inspector does not replay (``EphemeralValue``, ``Topic``, ...).
    """

    name: str
    fields: tuple[str, ...]
    reducers: Mapping[str, Reducer]
    initial: Mapping[str, Any] = field(default_factory=dict)
    opaque: frozenset[str] = frozenset()

    def declares(self, channel: str) -> bool:
        return channel in self.fields

    def knows(self, channel: str) -> bool:
        """True when the schema says how a write to ``channel`` lands (a reducer, or replace)."""
        return channel in self.fields and channel not in self.opaque

    def reducer_for(self, channel: str) -> Reducer | None:
        """The reducer that merges writes into ``channel``; None when a write replaces it or it is unknown."""
        return self.reducers.get(channel)

    def reducer_name(self, channel: str) -> str:
        """``add_messages``, ``merge_delegations``, ... ; ``replace``; or ``unknown``."""
        if not self.knows(channel):
            return UNKNOWN
        reducer = self.reducers.get(channel)
        if reducer is None:
            return REPLACE
        return getattr(reducer, "__name__", type(reducer).__name__).lstrip("_")  # LangGraph wraps add_messages

    def holds_messages(self, channel: str) -> bool:
        return self.reducer_name(channel) in MESSAGE_REDUCERS

    def starting_value(self, channel: str) -> tuple[bool, Any]:
        """(True, value) when the channel holds ``value`` before its first write; (False, None) when
        LangGraph takes the first write as it is."""
        if channel in self.initial:
            return True, copy.deepcopy(self.initial[channel])
        return False, None

    def order(self, names: Iterable[str]) -> list[str]:
        """Schema fields in schema order, then channels the schema does not declare, alphabetically."""
        present = set(names)
        return [f for f in self.fields if f in present] + sorted(present - set(self.fields))

    def drift(self, seen: Iterable[str]) -> SchemaDrift:
        """Channels in ``seen`` the schema lacks, and schema fields not in ``seen``."""
        return drift_between(self.fields, seen)


# -- reading a schema the way LangGraph does ----------------------------------------


def _per_write(batch_reducer: Callable[[Any, list[Any]], Any]) -> Reducer:
    """A ``DeltaChannel`` reducer (state, [writes]) as a reducer of one write at a time."""

    def reduce(existing: Any, new: Any) -> Any:
        return batch_reducer(existing, [new])

    reduce.__name__ = getattr(batch_reducer, "__name__", "delta_reducer")
    return reduce


def _state_class(obj: Any) -> type | None:
    """The state schema behind a ``StateGraph`` or a compiled graph, if ``obj`` is one."""
    builder = getattr(obj, "builder", obj)
    schema = getattr(builder, "state_schema", None)
    return schema if isinstance(schema, type) and hasattr(builder, "channels") else None


def _channels(obj: Any, label: str) -> tuple[dict[str, Any], list[str]]:
    from langgraph.graph import StateGraph

    builder = getattr(obj, "builder", obj)
    if _state_class(obj) is not None:
        channels = dict(builder.channels)
        hinted = list(typing.get_type_hints(builder.state_schema, include_extras=True))
        return channels, [*(n for n in hinted if n in channels), *(n for n in channels if n not in hinted)]
    if not isinstance(obj, type):
        raise SchemaError(f"{label} is a {type(obj).__name__}, not a state class or a LangGraph graph")
    try:
        hints = typing.get_type_hints(obj, include_extras=True)
    except Exception as exc:  # noqa: BLE001 - an unresolvable annotation in the operator's class
        raise SchemaError(f"cannot read the annotations of {label}: {type(exc).__name__}: {exc}") from None
    if not hints:
        raise SchemaError(f"{label} declares no fields: expected a TypedDict, dataclass or pydantic state class")
    try:
        channels = dict(StateGraph(obj).channels)
    except Exception as exc:  # noqa: BLE001 - LangGraph refusing the class, in one line
        raise SchemaError(f"LangGraph cannot read {label} as a state schema: {type(exc).__name__}: {exc}") from None
    return channels, [n for n in hints if n in channels]


def schema_of(obj: Any, name: str | None = None) -> Schema:
    """The ``Schema`` of a state class (TypedDict, dataclass, pydantic model) or of a LangGraph graph."""
    from langgraph.channels import BinaryOperatorAggregate, LastValue
    from langgraph.channels.delta import DeltaChannel
    from langgraph.channels.last_value import LastValueAfterFinish

    label = name or getattr(obj, "__qualname__", None) or type(obj).__name__
    channels, order = _channels(obj, label)
    reducers: dict[str, Reducer] = {}
    initial: dict[str, Any] = {}
    opaque: set[str] = set()
    for channel_name in order:
        channel = channels[channel_name]
        if isinstance(channel, BinaryOperatorAggregate):
            reducers[channel_name] = channel.operator
            if channel.is_available():
                initial[channel_name] = channel.get()
        elif isinstance(channel, DeltaChannel):
            reducers[channel_name] = _per_write(channel.reducer)
            # a type that cannot be built empty starts from its first write
            with contextlib.suppress(Exception):
                initial[channel_name] = channel.typ()
        elif not isinstance(channel, (LastValue, LastValueAfterFinish)):
            opaque.add(channel_name)
    return Schema(label, tuple(order), reducers, initial, frozenset(opaque))


def reducers_of(obj: Any) -> dict[str, Reducer]:
    """Channel name -> reducer, read from the ``Annotated`` metadata of a state class's fields."""
    return dict(schema_of(obj).reducers)


DEFAULT_SCHEMA = schema_of(ThreadState, DEFAULT_SCHEMA_NAME)


def load_schema(spec: str) -> Schema:
    """Import the class or graph ``module.path:Name`` / ``path/to/file.py:Name`` names (operator only)."""
    from ..store import StoreError
    from ..store.saver.loading import import_target

    target, sep, attribute = spec.strip().rpartition(":")
    if not sep or not target or not attribute.isidentifier():
        raise SchemaError(f"schema {spec!r}: expected module.path:Class or path/to/file.py:Class")
    try:
        module = import_target(target)
    except StoreError as exc:
        raise SchemaError(f"schema {spec!r}: {exc}") from None
    try:
        obj = getattr(module, attribute)
    except AttributeError:
        raise SchemaError(f"schema {spec!r}: {target} has no attribute {attribute!r}") from None
    if _state_class(obj) is None and not isinstance(obj, type):
        raise SchemaError(f"schema {spec!r} is a {type(obj).__name__}, not a state class or a LangGraph graph")
    return schema_of(obj, spec.strip())


# -- the active schema --------------------------------------------------------------

_active: list[Schema] = [DEFAULT_SCHEMA]


def active() -> Schema:
    """The schema the inspector reads threads in (DeerFlow's ThreadState unless the operator named one)."""
    return _active[-1]


def activate(schema: Schema) -> Schema:
    """Make ``schema`` the active one (at start-up: the CLI's ``--schema``, the dashboard's settings)."""
    _active[-1] = schema
    return schema


def activate_spec(spec: str | None) -> Schema:
    """Load and activate the schema ``spec`` names, or the default when ``spec`` is empty."""
    return activate(load_schema(spec) if spec and spec.strip() else DEFAULT_SCHEMA)


@contextmanager
def using(schema: Schema) -> Iterator[Schema]:
    """``schema`` active inside the block, the previous one after it."""
    _active.append(schema)
    try:
        yield schema
    finally:
        _active.pop()


def resolve(schema: Schema | None) -> Schema:
    return schema if schema is not None else active()
