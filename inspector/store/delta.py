"""Delta-mode channels (LangGraph's ``DeltaChannel``): values rebuilt from a snapshot and the writes since.

A ``DeltaChannel`` stores its full value only every few updates, as a
``DeltaSnapshot``; at the checkpoints between snapshots the channel has a version
but no stored value. Its value there is the nearest ancestor's stored value
followed by the writes stored against each checkpoint on the way down, folded
with the channel's reducer in the schema the caller hands over (``Reducers``:
anything with ``reducer_for`` and ``starting_value``, as ``inspector.schema.Schema``).
A store holds a ``SchemaSource``, called only when a channel is rebuilt; without
one it uses the default source, which the ``inspector`` package sets to its
active schema (``set_default_schema``). With no source at all, list writes
extend a list and anything else replaces the value.

The backends supply two things: the ancestors of a checkpoint, nearest first
(following ``parent_checkpoint_id``), with whatever values they store for the
channels asked for; and the decoded writes to those channels on a set of
checkpoints. ``history`` turns them into what each channel is rebuilt from (the
answer of ``Store.delta_history``), ``fold_histories`` into the values.
Everything here is plain data in, plain data out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .decode import DELTA_SNAPSHOT_TYPE, Problem, message_dict, overwritten
from .model import is_internal_channel

DELTA_COUNTERS_KEY = "counters_since_delta_snapshot"
DELTA_CHANNEL = "DeltaChannel"


class Reducers(Protocol):
    """What a fold needs of a state schema: each channel's reducer and its value before the first write."""

    def reducer_for(self, channel: str) -> Callable[[Any, Any], Any] | None: ...

    def starting_value(self, channel: str) -> tuple[bool, Any]: ...


SchemaSource = Callable[[], Reducers]  # called when a channel is rebuilt, so a schema loads only then


class NoReducers:
    """No schema: every channel's reducer is unknown."""

    def reducer_for(self, channel: str) -> None:
        return None

    def starting_value(self, channel: str) -> tuple[bool, Any]:
        return False, None


_default_source: list[SchemaSource] = [NoReducers]


def set_default_schema(source: SchemaSource) -> None:
    """The source a store or a fold uses when it was handed none."""
    _default_source[0] = source


def reducers_from(source: SchemaSource | None) -> Reducers:
    """The reducers ``source`` gives (the default source when None)."""
    return (source or _default_source[0])()


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


def delta_channels(*metadata: Any) -> frozenset[str]:
    """The channels LangGraph names as delta channels in these checkpoints' metadata
    (``counters_since_delta_snapshot``; a snapshot checkpoint has none, its parent and child name them)."""
    names: set[str] = set()
    for meta in metadata:
        counters = meta.get(DELTA_COUNTERS_KEY) if isinstance(meta, dict) else None
        if isinstance(counters, dict):
            names.update(name for name in counters if isinstance(name, str) and not is_internal_channel(name))
    return frozenset(names)


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


@dataclass(frozen=True)
class DeltaHistory:
    """What a delta channel's value at one checkpoint is rebuilt from.

    ``seed`` is the value stored at the nearest ancestor that stores one, as the
    decoder shows it (a ``DeltaSnapshot`` as ``{"__type__": "langgraph.DeltaSnapshot",
    "value": ...}``); ``has_seed`` is False when the walk reached the root without
    one, and the channel then starts empty. ``writes`` are the channel's writes on
    the ancestors from the seed's checkpoint down to the checkpoint's parent, in the
    order LangGraph applies them: oldest checkpoint first, then ``(task_path,
    task_id, idx)``. Writes stored at the checkpoint itself are pending, not included.
    """

    channel: str
    writes: tuple[ChannelWrite, ...] = ()
    seed: Any = None
    has_seed: bool = False
    seed_checkpoint_id: str | None = None

    @property
    def start(self) -> Any:
        """The seed's value (a snapshot unwrapped), or None when there is none."""
        return self.seed.get("value") if is_snapshot(self.seed) else self.seed


def history(
    channels: Sequence[str],
    ancestors: Iterable[Ancestor],
    writes_on: Callable[[list[str], list[str]], list[ChannelWrite]],
) -> dict[str, DeltaHistory]:
    """Walk up from a checkpoint's parent to each channel's nearest stored value; collect the writes since.

    ``ancestors`` starts at the checkpoint's parent; ``writes_on(checkpoint_ids, channels)``
    returns the writes stored against those checkpoints. The seed's own checkpoint is
    on the path: its writes produced its child, so they are part of the history.
    """
    if not channels:
        return {}
    chains: dict[str, list[str]] = {name: [] for name in channels}
    seeds: dict[str, Ancestor] = {}
    active = set(channels)
    for ancestor in ancestors:
        for name in active:
            chains[name].append(ancestor.checkpoint_id)
        for name in [n for n in active if n in ancestor.values]:
            seeds[name] = ancestor
            active.discard(name)
        if not active:
            break
    needed = sorted({cid for chain in chains.values() for cid in chain})
    writes = writes_on(needed, list(channels)) if needed else []
    out: dict[str, DeltaHistory] = {}
    for name in channels:
        order = {cid: position for position, cid in enumerate(reversed(chains[name]))}
        mine = sorted(
            (w for w in writes if w.channel == name and w.checkpoint_id in order),
            key=lambda w: (order[w.checkpoint_id], w.task_path, w.task_id, w.idx),
        )
        seed = seeds.get(name)
        out[name] = DeltaHistory(
            channel=name,
            writes=tuple(mine),
            seed=seed.values[name] if seed else None,
            has_seed=seed is not None,
            seed_checkpoint_id=seed.checkpoint_id if seed else None,
        )
    return out


def fold_histories(histories: dict[str, DeltaHistory], schema: Reducers | None = None) -> Rebuilt:
    """Each channel's seed followed by its writes, folded with the channel's reducer in ``schema``
    (None: the default source's)."""
    out = Rebuilt()  # a channel with no stored value up to the root starts empty, as in LangGraph
    if histories and schema is None:
        schema = reducers_from(None)
    for name, found in histories.items():
        value, problems = fold(name, found.start, [w.value for w in found.writes], schema)
        out.values[name] = value
        out.problems.extend(problems)
    return out


def rebuild(
    channels: Sequence[str],
    ancestors: Iterable[Ancestor],
    writes_on: Callable[[list[str], list[str]], list[ChannelWrite]],
    schema: Reducers | None = None,
) -> Rebuilt:
    """Rebuild ``channels`` from the nearest stored value up the chain plus the writes since (see ``history``)."""
    return fold_histories(history(channels, ancestors, writes_on), schema)


def fold(channel: str, start: Any, updates: list[Any], schema: Reducers | None = None) -> tuple[Any, list[Problem]]:
    """Apply ``updates`` to ``start`` one by one with ``channel``'s reducer in ``schema`` (None: the
    default source's); plain data back.

    An ``Overwrite`` write replaces the value, bypassing the reducer, as in LangGraph.
    """
    if schema is None:
        schema = reducers_from(None)
    reducer = schema.reducer_for(channel)
    problems: list[Problem] = []
    value = as_messages(start)
    for update in updates:
        is_overwrite, replacement = overwritten(update)
        update = as_messages(replacement if is_overwrite else update)
        if is_overwrite:
            value = update if update is not None else schema.starting_value(channel)[1]
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
