"""A schema read from a state class (its channels and reducers), DeerFlow's ThreadState, and the active one."""


from __future__ import annotations

import contextlib
import typing
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Callable

from .default import DEFAULT_SCHEMA_NAME, thread_schema
from .model import REPLACE, UNKNOWN, Reducer, Schema  # noqa: F401 (re-exported)
from .operator_code import SchemaError  # noqa: F401 (re-exported)
from .thread_state import ThreadState

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
    return Schema(label, tuple(order), reducers, initial, frozenset(opaque), _subgraph_schemas(obj, label))


def _subgraph_schemas(obj: Any, label: str) -> dict[str, Schema]:
    """A compiled graph's subgraphs (nested ones by ``parent|child``), each read as its own schema; a subgraph
    LangGraph cannot list or read is left out (its namespaces then use the root's schema)."""
    listing = getattr(obj, "get_subgraphs", None)
    if listing is None:
        return {}
    try:
        found = list(listing(recurse=True))
    except Exception:  # noqa: BLE001 - the operator's graph refusing to list: no subgraph schemas
        return {}
    subgraphs = {}
    for path, subgraph in found:
        if _state_class(subgraph) is None:
            continue
        with contextlib.suppress(Exception):  # a subgraph LangGraph cannot read as a schema
            read = schema_of(subgraph, f"{label} [{path}]")
            subgraphs[path] = Schema(read.name, read.fields, read.reducers, read.initial, read.opaque)
    return subgraphs


def reducers_of(obj: Any) -> dict[str, Reducer]:
    """Channel name -> reducer, read from the ``Annotated`` metadata of a state class's fields."""
    return dict(schema_of(obj).reducers)


DEFAULT_SCHEMA = schema_of(ThreadState, DEFAULT_SCHEMA_NAME)


def load_schema(spec: str) -> Schema:
    """Import the class or graph ``module.path:Name`` / ``path/to/file.py:Name`` names (operator only)."""
    from .operator_code import check_spec, import_failure

    target, attribute = check_spec(spec)
    from ..store import StoreError
    from ..store.not_utf8 import quoted
    from ..store.saver.loading import import_target

    try:
        module = import_target(target)
    except StoreError as exc:
        cause = exc.__cause__ or exc.__context__
        worded = import_failure(cause, spec.strip()) if cause is not None else None
        raise SchemaError(f"schema {quoted(spec)}: {worded or exc}") from None
    try:
        obj = getattr(module, attribute)
    except AttributeError:
        raise SchemaError(f"schema {quoted(spec)}: {target} has no attribute {quoted(attribute)}") from None
    if _state_class(obj) is None and not isinstance(obj, type):
        raise SchemaError(f"schema {quoted(spec)} is a {type(obj).__name__}, not a state class or a LangGraph graph")
    return schema_of(obj, spec.strip())


# -- the active schema --------------------------------------------------------------

_named: list[Schema | None] = [None]  # the schema the operator named at start-up, if any
_active: list[Schema] = []  # ``using`` blocks


def operator_schema() -> Schema | None:
    """The schema the operator named (``--schema``, setting ``schema``), or None: each thread's profile decides."""
    return _named[-1]


def active() -> Schema:
    """The schema the inspector reads the current thread in.

    Inside a ``using`` block, that schema; else the one the thread's profile chose
    (``inspector.profiles.reading``: the operator's schema when named, the profile's otherwise);
    else the operator's schema; else DeerFlow's ThreadState (functions handed bare values).
    """
    if _active:
        return _active[-1]
    chosen = thread_schema()
    if chosen is not None:
        return DEFAULT_SCHEMA if chosen == "default" else chosen
    return _named[-1] or DEFAULT_SCHEMA


def activate(schema: Schema | None) -> Schema:
    """Make ``schema`` the one the operator named (at start-up: the CLI's ``--schema``, the dashboard's
    settings); None: none named, each thread is read with its profile's schema."""
    _named[-1] = schema
    return active()


def activate_spec(spec: str | None) -> Schema:
    """Load and activate the schema ``spec`` names; an empty ``spec`` names none."""
    return activate(load_schema(spec) if spec and spec.strip() else None)


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
