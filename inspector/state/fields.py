"""What the state view says about each field: order, sizes, reducers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from ..formatting import human_bytes
from ..store import CheckpointState
from ..store.delta import NOT_REBUILT, delta_channels

if TYPE_CHECKING:
    from .. import schema as schemas


def _resolve(schema: Any) -> Any:
    """``schema``, or the active one; while no schema has been loaded, the default's names read from its source
    (``schema.default.active_names``): naming a field's reducer does not load LangGraph's graph package."""
    if schema is not None:
        return schema
    from ..schema.default import active_names

    return active_names()


def field_order(values: Iterable[str], schema: schemas.Schema | None = None) -> list[str]:
    """Schema fields in schema order, then fields the schema does not know, alphabetically."""
    return _resolve(schema).order(values)


def reducer_label(name: str, schema: schemas.Schema | None = None, rebuilt: bool = False, delta: bool = False) -> str:
    """``reducer merge_delegations``, ``reducer replace``, or why the reducer is unknown. ``delta``: the field
    is a delta channel (its checkpoint's metadata names it so); ``rebuilt``: its value here was rebuilt from
    writes. A delta channel is named by its channel and the fold its app's profile knows (DeerFlow's
    delta-mode ``messages``: ``merge_message_writes``)."""
    from ..profiles import delta_fold

    schema = _resolve(schema)
    delta = delta or rebuilt
    fold = delta_fold(name) if delta else None
    if fold is not None:
        return f"reducer {fold} (DeltaChannel{', rebuilt from writes' if rebuilt else ''})"
    if not schema.declares(name):
        return "reducer unknown (not in the schema)"
    if not schema.knows(name):
        return "reducer unknown (a channel kind replay does not model)"
    how = " (delta channel, rebuilt from writes)" if rebuilt else " (DeltaChannel)" if delta else ""
    return f"reducer {schema.reducer_name(name)}{how}"


def count_of(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return f"{len(value)} item(s)"
    if isinstance(value, dict):
        return f"{len(value)} key(s)"
    return ""


def delta_source(name: str, state: CheckpointState) -> str | None:
    """Where a delta channel's value at ``state`` comes from: ``rebuilt from deltas (seed: snapshot at step 7 + 3
    replayed write(s))``, ``snapshot stored at this checkpoint (step 9)``, ``cannot be rebuilt: no seed (...)``."""
    source = state.delta_sources.get(name)
    if name not in state.rebuilt_channels:
        return source
    if source and source.startswith(NOT_REBUILT):
        return source
    return f"rebuilt from deltas ({source or 'nothing stored at this checkpoint'})"


def field_summary(name: str, value: Any, state: CheckpointState, schema: schemas.Schema | None = None) -> str:
    """``3 item(s) · 1.2 KB stored · reducer add_messages`` (or ``reducer unknown (not in the schema)``)."""
    parts = [count_of(value)]
    if name in state.channel_bytes:
        parts.append(f"{human_bytes(state.channel_bytes[name])} stored")
    source = delta_source(name, state)
    if source:
        parts.append(source)
    parts.append(reducer_label(name, schema, name in state.rebuilt_channels, name in delta_channels(state.metadata)))
    return " · ".join(p for p in parts if p)
