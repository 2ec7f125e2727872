"""What the state view says about each field: order, sizes, reducers."""

from __future__ import annotations

from typing import Any, Iterable

from .store import CheckpointState
from .thread_state import FIELDS, reducer_name
from .units import human_bytes


def field_order(values: Iterable[str]) -> list[str]:
    """Schema fields in schema order, then fields the schema does not know, alphabetically."""
    names = list(values)
    known = [f for f in FIELDS if f in names]
    return known + sorted(n for n in names if n not in FIELDS)


def is_known_field(name: str) -> bool:
    return name in FIELDS


def count_of(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return f"{len(value)} item(s)"
    if isinstance(value, dict):
        return f"{len(value)} key(s)"
    return ""


def field_summary(name: str, value: Any, state: CheckpointState) -> str:
    """``3 item(s) · 1.2 KB stored · reducer add_messages`` (or ``not in the schema``)."""
    parts = [count_of(value)]
    if name in state.channel_bytes:
        parts.append(f"{human_bytes(state.channel_bytes[name])} stored")
    if name in state.rebuilt_channels:
        parts.append("rebuilt from deltas (nothing stored at this checkpoint)")
    parts.append(f"reducer {reducer_name(name).lstrip('_')}" if is_known_field(name) else "not in the schema")
    return " · ".join(p for p in parts if p)
