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

import dataclasses
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .decode import DELTA_SENTINEL_TYPE, DELTA_SNAPSHOT_TYPE, Opaque, Problem, message_dict, overwritten
from .model import checkpoint_step, is_internal_channel

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


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Any = _Unknown()  # a parent the backend does not say (a saver read through its API)


@dataclass(frozen=True)
class Ancestor:
    """One checkpoint on the way up, the values it stores for the channels still sought, its parent's id
    (None at the thread's first checkpoint; ``UNKNOWN`` where the backend does not say) and the channels it
    has a version for."""

    checkpoint_id: str
    values: dict[str, Any]
    parent: Any = UNKNOWN
    versioned: Any = None  # the channels with a version here (None: not read), to tell a thread's real start


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
    sources: dict[str, str] = field(default_factory=dict)  # channel -> where its value comes from, in words
    # channels whose walk shows they are DeltaChannels: a snapshot seed, or the alpha sentinel on the way
    evidence: set[str] = field(default_factory=set)
    histories: dict[str, "DeltaHistory"] = field(default_factory=dict)  # what each value was rebuilt from


def is_snapshot(value: Any) -> bool:
    return isinstance(value, dict) and value.get("__type__") == DELTA_SNAPSHOT_TYPE


def is_sentinel(value: Any) -> bool:
    """LangGraph 1.2's alpha ``DELTA_SENTINEL``: a DeltaChannel stored this in place of its value (an empty msgpack
    extension, code 8); the installed LangGraph decodes it as None and uses that as the value, without a replay."""
    return isinstance(value, dict) and value.get("__type__") == DELTA_SENTINEL_TYPE


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


def unnamed_candidates(channel_versions: Any, stored: dict[str, Any], metadata: dict[str, Any]) -> list[str]:
    """State channels with a version but no stored value in a checkpoint whose metadata has no
    ``counters_since_delta_snapshot`` (LangGraph 1.2 before the counters): DeltaChannels, if the walk up finds
    a snapshot or the alpha sentinel (a full-mode channel always stores its value)."""
    if DELTA_COUNTERS_KEY in metadata or not isinstance(channel_versions, dict):
        return []
    return [name for name in channel_versions
            if isinstance(name, str) and name not in stored and not is_internal_channel(name)]


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
    # the walk stopped, without a seed, at ``cut_at``: a checkpoint whose parent the store does not hold (deleted,
    # as a retention script that drops a thread's oldest checkpoints leaves it) or a parent cycle
    cut: bool = False
    cut_at: str | None = None
    sentinels: int = 0  # checkpoints on the way that stored LangGraph 1.2 alpha's sentinel for the channel

    @property
    def start(self) -> Any:
        """The seed's value (a snapshot unwrapped), or None when there is none."""
        return self.seed.get("value") if is_snapshot(self.seed) else self.seed

    @property
    def seed_kind(self) -> str | None:
        """``snapshot`` (a ``DeltaSnapshot``), ``plain`` (a value stored whole: before the channel was a
        DeltaChannel, or in full mode), or None (no seed)."""
        if not self.has_seed:
            return None
        return "snapshot" if is_snapshot(self.seed) else "plain"


def source_text(found: DeltaHistory) -> str:
    """Where a rebuilt delta channel's value comes from, in words: ``seed: snapshot at step 7 + 3 replayed
    write(s)``, ``no seed: starts empty at the thread's first checkpoint + 5 replayed write(s)``, or
    ``cannot be rebuilt: no seed`` (the chain is cut)."""
    writes = f"{len(found.writes)} replayed write(s)"
    if found.cut:
        step = checkpoint_step(found.cut_at or "")
        where = f"step {step}" if step is not None else "the oldest checkpoint left"
        return (f"cannot be rebuilt: no seed (the chain is cut at {where}: the checkpoints before it are not in the "
                f"store; {len(found.writes)} surviving write(s) are not the whole value)")
    if found.seed_kind is None:
        return f"no seed: starts empty at the thread's first checkpoint + {writes}"
    step = checkpoint_step(found.seed_checkpoint_id or "")
    at = f"step {step}" if step is not None else f"checkpoint {found.seed_checkpoint_id}"
    if found.seed_kind == "snapshot":
        return f"seed: snapshot at {at} + {writes}"
    return f"seed: full value stored at {at} (a plain seed, as before DeltaChannel) + {writes}"


def history(
    channels: Sequence[str],
    ancestors: Iterable[Ancestor],
    writes_on: Callable[[list[str], list[str]], list[ChannelWrite]],
    parent: Any = UNKNOWN,
) -> dict[str, DeltaHistory]:
    """Walk up from a checkpoint's parent to each channel's nearest stored value; collect the writes since.

    ``ancestors`` starts at the checkpoint's parent (``parent``: its id, None for the thread's first
    checkpoint); ``writes_on(checkpoint_ids, channels)`` returns the writes stored against those
    checkpoints. The seed's own checkpoint is on the path: its writes produced its child, so they are
    part of the history. LangGraph 1.2 alpha's sentinel is not a seed: the walk goes on past it. A walk
    that ends, without a seed, at a checkpoint whose parent the store does not hold is ``cut``.
    """
    if not channels:
        return {}
    chains: dict[str, list[str]] = {name: [] for name in channels}
    seeds: dict[str, Ancestor] = {}
    sentinels: dict[str, int] = dict.fromkeys(channels, 0)
    active = set(channels)
    last: Ancestor | None = None
    for ancestor in ancestors:
        last = ancestor
        for name in active:
            chains[name].append(ancestor.checkpoint_id)
        for name in [n for n in active if n in ancestor.values]:
            if is_sentinel(ancestor.values[name]):
                sentinels[name] += 1
                continue
            seeds[name] = ancestor
            active.discard(name)
        if not active:
            break
    end = last.parent if last is not None else parent
    cut = isinstance(end, str) and bool(end)  # the walk ran out before the thread's first checkpoint
    # the walk reached a checkpoint without a parent that has a version for the channel but no value: LangGraph
    # snapshots every delta channel a thread's first checkpoint holds, so the steps before it were removed (a
    # retention that clears the parent link of the oldest checkpoint it keeps)
    # (LangGraph 1.2's alphas stored the sentinel there instead: the channel then starts empty)
    # (a checkpoint without a parent needing a rebuild itself is judged by ``rebuild_at_root``)
    if end is None and last is not None:
        root = set(last.versioned or ()) - {name for name in channels if is_sentinel(last.values.get(name))}
    else:
        root = set()
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
            cut=seed is None and (cut or name in root),
            cut_at=(last.checkpoint_id if last is not None else None) if seed is None and (cut or name in root) else None,
            sentinels=sentinels[name],
        )
    return out


NOT_REBUILT = "cannot be rebuilt: no seed"


def rebuild_at_root(histories: dict[str, DeltaHistory], sentinels: Collection[str]) -> dict[str, DeltaHistory]:
    """The histories of a checkpoint without a parent: a delta channel it has a version for but stores nothing of
    cannot be rebuilt (LangGraph snapshots them at a thread's first checkpoint, so the steps before were removed),
    unless it stores LangGraph 1.2 alpha's sentinel, which starts the channel empty."""
    return {name: found if name in sentinels or found.has_seed else dataclasses.replace(found, cut=True)
            for name, found in histories.items()}


def fold_histories(histories: dict[str, DeltaHistory], schema: Reducers | None = None) -> Rebuilt:
    """Each channel's seed followed by its writes, folded with the channel's reducer in ``schema``
    (None: the default source's). A channel whose chain is cut is not folded: its value is an ``Opaque``
    saying it cannot be rebuilt (never an empty or partial value), with a problem on its field."""
    out = Rebuilt()  # a channel with no stored value up to the thread's first checkpoint starts empty, as in LangGraph
    if histories and schema is None:
        schema = reducers_from(None)
    out.histories = dict(histories)
    for name, found in histories.items():
        out.sources[name] = source_text(found)
        if found.seed_kind == "snapshot" or found.sentinels:
            out.evidence.add(name)
        if found.cut:
            out.values[name] = Opaque("delta channel", 0, NOT_REBUILT)
            out.problems.append(Problem(
                f"{out.sources[name]}: the checkpoints before it, with the seed (the last snapshot or full value), are "
                "gone, so the value at this checkpoint is unknown; LangGraph itself would rebuild it from the surviving "
                "writes alone, silently short", name, "delta-cut"))
            continue
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
