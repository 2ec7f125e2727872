"""Delta-mode channels (LangGraph's ``DeltaChannel``): values rebuilt from a snapshot and the writes since.

A ``DeltaChannel`` stores its full value only every few updates, as a
``DeltaSnapshot``; at the checkpoints between snapshots the channel has a version
but no stored value. Its value there is the nearest ancestor's stored value
followed by the writes stored against each checkpoint on the way down, folded
with the channel's reducer from ``inspector.thread_state``.

The backends supply two things: the ancestors of a checkpoint, nearest first
(following ``parent_checkpoint_id``), with whatever values they store for the
channels asked for; and the decoded writes to those channels on a set of
checkpoints. Everything here is plain data in, plain data out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .decode import DELTA_SNAPSHOT_TYPE, Problem, message_dict
from .model import is_internal_channel

OVERWRITE_TYPE = "langgraph.types.Overwrite"
DELTA_COUNTERS_KEY = "counters_since_delta_snapshot"


@dataclass(frozen=True)
class Ancestor:
    """One checkpoint on the way up, and the values it stores for the channels still sought."""

    checkpoint_id: str
    values: dict[str, Any]


@dataclass(frozen=True)
class ChannelWrite:
    """A decoded write to a delta channel, with the keys LangGraph orders a step's writes by."""

    checkpoint_id: str
    task_path: str
    task_id: str
    idx: int
    channel: str
    value: Any


@dataclass
class Rebuilt:
    values: dict[str, Any] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def is_snapshot(value: Any) -> bool:
    return isinstance(value, dict) and value.get("__type__") == DELTA_SNAPSHOT_TYPE


def unwrap_snapshots(values: dict[str, Any]) -> dict[str, Any]:
    """Channel values with each ``DeltaSnapshot`` replaced by the value it holds."""
    return {name: value.get("value") if is_snapshot(value) else value for name, value in values.items()}


def channels_to_rebuild(channel_versions: Any, stored: dict[str, Any], metadata: dict[str, Any]) -> list[str]:
    """Delta channels that have a version here but no stored value.

    LangGraph names them in the checkpoint metadata's ``counters_since_delta_snapshot``.
    """
    counters = metadata.get(DELTA_COUNTERS_KEY)
    if not isinstance(counters, dict) or not isinstance(channel_versions, dict):
        return []
    return [
        name
        for name in counters
        if name in channel_versions and name not in stored and not is_internal_channel(name)
    ]


def rebuild(
    channels: Sequence[str],
    ancestors: Iterable[Ancestor],
    writes_on: Callable[[list[str], list[str]], list[ChannelWrite]],
) -> Rebuilt:
    """Rebuild ``channels`` from the nearest stored value up the chain plus the writes since.

    ``ancestors`` starts at the checkpoint's parent; ``writes_on(checkpoint_ids, channels)``
    returns the writes stored against those checkpoints.
    """
    chains: dict[str, list[str]] = {name: [] for name in channels}
    seeds: dict[str, Any] = {}
    active = set(channels)
    for ancestor in ancestors:
        for name in active:
            chains[name].append(ancestor.checkpoint_id)
        for name in [n for n in active if n in ancestor.values]:
            seeds[name] = ancestor.values[name]
            active.discard(name)
        if not active:
            break
    out = Rebuilt()  # a channel with no stored value up to the root starts empty, as in LangGraph
    needed = sorted({cid for chain in chains.values() for cid in chain})
    writes = writes_on(needed, list(channels)) if needed else []
    for name in channels:
        order = {cid: position for position, cid in enumerate(reversed(chains[name]))}
        mine = sorted(
            (w for w in writes if w.channel == name and w.checkpoint_id in order),
            key=lambda w: (order[w.checkpoint_id], w.task_path, w.task_id, w.idx),
        )
        seed = seeds.get(name)
        start = seed.get("value") if is_snapshot(seed) else seed
        value, problems = fold(name, start, [w.value for w in mine])
        out.values[name] = value
        out.problems.extend(problems)
    return out


def fold(channel: str, start: Any, updates: list[Any]) -> tuple[Any, list[Problem]]:
    """Apply ``updates`` to ``start`` one by one with ``channel``'s reducer; plain data back."""
    from ..thread_state import reducer_for  # LangGraph's reducers: loaded only when a channel is rebuilt

    reducer = reducer_for(channel)
    problems: list[Problem] = []
    value = as_messages(start)
    updates = [as_messages(u) for u in updates]
    for update in updates:
        if isinstance(update, dict) and update.get("__type__") == OVERWRITE_TYPE:
            value = update.get("value")
        elif reducer is None:
            value = _fold_unknown(value, update)
        elif value is None:
            value = reducer([], update) if isinstance(update, list) else update
        else:
            try:
                value = reducer(value, update)
            except Exception as exc:  # a reducer refusing stored data must not break the page
                problems.append(Problem(f"rebuilding from deltas stopped: {type(exc).__name__}: {exc}", channel, "delta"))
                break
    if value is None and start is None:
        value = []
    return as_plain(value), problems


def _fold_unknown(value: Any, update: Any) -> Any:
    """No known reducer: list writes extend a list value, anything else replaces it."""
    if isinstance(update, list):
        return [*(value if isinstance(value, list) else []), *update]
    return update


MESSAGE_TYPES = frozenset({"human", "ai", "tool", "system", "function", "chat", "remove"})


def as_messages(value: Any) -> Any:
    """Message dicts as LangChain messages (a fixed table of LangChain's own classes), for the reducers."""
    if isinstance(value, list):
        return [as_messages(v) for v in value]
    if isinstance(value, dict) and value.get("type") in MESSAGE_TYPES and "content" in value:
        from langchain_core.messages import messages_from_dict

        try:
            return messages_from_dict([{"type": value["type"], "data": value}])[0]
        except (ValueError, TypeError, KeyError):
            return value
    return value


def as_plain(value: Any) -> Any:
    """LangChain messages (as reducers return them) back to the decoder's message dicts."""
    from langchain_core.messages import BaseMessage

    if isinstance(value, BaseMessage):
        return message_dict(value.model_dump(), type(value).__name__)
    if isinstance(value, list):
        return [as_plain(v) for v in value]
    return value
