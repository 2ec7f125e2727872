"""Pieces every backend builds its answers from: decoded write records, the channel split, not-found errors."""

from __future__ import annotations

import dataclasses
import itertools
import re
from typing import Any, Callable, Collection, Iterable, Iterator, Sequence, TypeVar

from . import delta, formats
from .decode import DELTA_SNAPSHOT_TYPE, Problem, decode_typed
from .model import (
    ERROR_CHANNEL,
    ERROR_READ_BYTES,
    TASKS_CHANNEL,
    CheckpointRow,
    CheckpointState,
    Key,
    NotFound,
    ThreadSummary,
    WriteKey,
    WriteRecord,
    checkpoint_step,
    checkpoint_time,
    is_internal_channel,
)
from .not_utf8 import named, quoted

# Streaming reads fetch blobs in batches of at most this many rows or bytes, so a long history
# is never held in memory at once.
BATCH_ROWS = 64
BATCH_BYTES = 16_000_000

T = TypeVar("T")

# Rebuilds delta channels: names -> what ``delta.fold_histories`` gives, or (values, problems).
Rebuilder = Callable[[list[str]], "delta.Rebuilt | tuple[dict[str, Any], list[Problem]]"]

WriteRow = tuple[str, str | None, int, str, str | None, bytes | None]  # task_id, task_path, idx, channel, type, data


def write_records(rows: Iterable[WriteRow]) -> tuple[list[WriteRecord], list[Problem]]:
    """Decode stored writes (what tasks wrote, before reducers); problems name the write's channel."""
    records, problems = [], []
    for task_id, path, idx, channel, type_tag, data in rows:
        decoded = decode_typed(type_tag, data, channel)
        problems.extend(Problem(f"pending write: {p.message}", p.field, p.kind) for p in decoded.problems)
        records.append(WriteRecord(task_id, path or "", idx, channel, decoded.value, type_tag, len(data or b"")))
    return records, problems


def send_target(value: Any) -> str | None:
    """The node a decoded ``Send`` packet names (``{"__type__": "langgraph.types.Send", "value": [node, arg]}``)."""
    if isinstance(value, dict) and str(value.get("__type__", "")).endswith(".Send"):
        inner = value.get("value")
        node = inner[0] if isinstance(inner, (list, tuple)) and inner else (
            inner.get("node") if isinstance(inner, dict) else None)
        return node if isinstance(node, str) else None
    return None


_EXCEPTION_CLASS = re.compile(r"([A-Za-z_][A-Za-z0-9_]{0,99})\(")


def error_class(value: Any) -> str | None:
    """The exception class an ``__error__`` write names: LangGraph stores ``repr(exception)``
    (``RuntimeError('the source is down')``, ``CancelledError()``); None for anything else."""
    found = _EXCEPTION_CLASS.match(value) if isinstance(value, str) else None
    return found.group(1) if found else None


def key_values(channel: str, value: Any) -> tuple[str | None, str | None]:
    """(``send_to``, ``error``) of a ``WriteKey`` from the decoded value of a write to ``channel``."""
    if channel == TASKS_CHANNEL:
        return send_target(value), None
    if channel == ERROR_CHANNEL:
        return None, error_class(value)
    return None, None


def reads_value(channel: str, size: int) -> bool:
    """Whether a write key carries its write's value: a ``Send`` packet, an error of at most ``ERROR_READ_BYTES``
    (the SQL backends' queries spell the same rule)."""
    return channel == TASKS_CHANNEL or (channel == ERROR_CHANNEL and size <= ERROR_READ_BYTES)


# ns, checkpoint id, task_id, task_path, idx, channel, size, then type and data where ``reads_value``
WriteKeyRow = tuple[str, str, str, str | None, int, str, int | None, str | None, bytes | None]


def write_keys_from(rows: Iterable[WriteKeyRow]) -> dict[Key, list[WriteKey]]:
    """``Store.write_keys`` from stored rows in task order: a ``Send`` packet's target and an error's class
    decoded, nothing else."""
    found: dict[Key, list[WriteKey]] = {}
    for ns, cid, task_id, path, idx, channel, size, type_tag, data in rows:
        target, error = key_values(channel, decode_typed(type_tag, data, channel).value) if data is not None else (None, None)
        found.setdefault((ns, cid), []).append(
            WriteKey(str(task_id), path or "", int(idx), channel, int(size or 0), target, error))
    return found


def thread_summaries(rows: Iterable[tuple], extra_bytes: dict[str, int], titles: dict[str, str]) -> list[ThreadSummary]:
    """Thread-list rows ``(thread_id, checkpoints, newest root id, own bytes, namespaces, newest id)``
    with the bytes stored beside the checkpoint rows (writes, blobs) and the titles."""
    return [
        ThreadSummary(
            thread_id=tid,
            checkpoints=count,
            newest_checkpoint_id=newest_root or newest_any,
            updated_at=checkpoint_time(newest_any),
            stored_bytes=int(own or 0) + extra_bytes.get(tid, 0),
            title=titles.get(tid),
            namespaces=namespaces,
        )
        for tid, count, newest_root, own, namespaces, newest_any in rows
    ]


def newest_writes_from(rows: Iterable[tuple]) -> dict[str, tuple[str, list[WriteKey]]]:
    """``Store.newest_write_keys`` from rows ``(thread_id, newest root id, task_id, task_path, idx, channel,
    size)`` in task order; a thread without writes has one row of NULL write keys."""
    found: dict[str, tuple[str, list[WriteKey]]] = {}
    for tid, cid, task_id, path, idx, channel, size in rows:
        entry = found.setdefault(tid, (cid, []))
        if channel is not None:
            entry[1].append(WriteKey(str(task_id), path or "", int(idx), channel, int(size or 0)))
    return found


def titles_from(rows: Iterable[tuple[str, str | None, bytes | None]]) -> dict[str, str]:
    """``thread_id -> title`` from ``(thread_id, type, value)`` rows of the newest ``title`` writes."""
    titles: dict[str, str] = {}
    for thread_id, type_tag, data in rows:
        title = decode_typed(type_tag, data, "title").value
        if isinstance(title, str):
            titles[thread_id] = title
    return titles


def split_channels(channel_values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the state's fields, LangGraph's internal channels)."""
    values = {k: v for k, v in channel_values.items() if not is_internal_channel(k)}
    internal = {k: v for k, v in channel_values.items() if is_internal_channel(k)}
    return values, internal


def like_pattern(search: str) -> str:
    """``search`` as a substring pattern for ``LIKE ... ESCAPE '\\'``: ``%`` and ``_`` match themselves."""
    escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def checkpoint_not_found(thread_id: str, checkpoint_id: str | None, ns: str) -> NotFound:
    where = f"checkpoint {quoted(checkpoint_id)}" if checkpoint_id else "checkpoint"
    ns_text = f" in namespace {quoted(ns)}" if ns else ""
    return NotFound(f"no {where}{ns_text} for thread {quoted(thread_id)}")


def assemble_state(
    *,
    thread_id: str,
    ns: str,
    checkpoint_id: str,
    parent: str | None,
    header: dict[str, Any],
    channel_values: dict[str, Any],
    channel_bytes: dict[str, int],
    metadata: dict[str, Any],
    writes: list[WriteRecord],
    problems: list[Problem],
    stored_bytes: int,
    rebuild: Rebuilder,
    channels: Collection[str] | None = None,
) -> CheckpointState:
    """A decoded checkpoint as every backend returns it: delta channels rebuilt and marked,
    the state's fields apart from LangGraph's internal channels. ``channels``: only these
    were decoded, so only these are rebuilt."""
    header, channel_values, node_channels, migrated = formats.migrate(header, channel_values)
    channel_values, missing, sources = delta_forms(header, channel_values, metadata)
    candidates = delta.unnamed_candidates(header.get("channel_versions"), channel_values, metadata)
    candidates = [name for name in candidates if name not in missing]
    if channels is not None:
        missing = [name for name in missing if name in channels]
        candidates = [name for name in candidates if name in channels]
    problems = list(problems)
    if missing or candidates:
        sentinels = [name for name, text in sources.items() if text.startswith(SENTINEL_STORED)]
        result = rebuild(missing + candidates, sentinels) if sentinels else rebuild(missing + candidates)
        rebuilt = result if isinstance(result, delta.Rebuilt) else delta.Rebuilt(*result)
        dropped = {name for name in candidates if name not in rebuilt.evidence}  # full-mode channels, not delta
        missing += [name for name in candidates if name not in dropped]
        channel_values.update({k: v for k, v in rebuilt.values.items() if k not in dropped})
        problems += [p for p in rebuilt.problems if p.field not in dropped]
        for name, text in rebuilt.sources.items():
            if name not in dropped:
                sources[name] = f"{sources[name]}; rebuilt: {text}" if name in sources else text
        histories = {k: v for k, v in rebuilt.histories.items() if k not in dropped}
    else:
        histories = {}
    values, internal = split_channels(channel_values)
    if migrated:
        internal.update((name, values.pop(name)) for name in node_channels if name in values)
        problems.insert(0, Problem(migrated, None, "format"))
    return CheckpointState(thread_id, ns, checkpoint_id, parent, values, internal, metadata, writes, problems,
                           header=header, channel_bytes=channel_bytes, stored_bytes=stored_bytes,
                           rebuilt_channels=tuple(missing), delta_sources=sources, delta_history=histories)


SNAPSHOT_STORED = "snapshot stored at this checkpoint"
SENTINEL_STORED = ("LangGraph 1.2 alpha's sentinel stored at this checkpoint (the installed LangGraph reads it as "
                   "an empty value, without replaying)")


def delta_forms(header: dict[str, Any], channel_values: dict[str, Any],
                metadata: dict[str, Any]) -> tuple[dict[str, Any], list[str], dict[str, str]]:
    """A checkpoint's stored channel values read for its delta channels: snapshots unwrapped, the alpha sentinel
    taken out (the channel is rebuilt, as if nothing were stored); the delta channels to rebuild; and the source
    of each delta channel's value stored here (``snapshot stored at this checkpoint``, ...)."""
    step = checkpoint_step(str(header.get("id") or ""))
    here = f" (step {step})" if step is not None else ""
    sources: dict[str, str] = {}
    named = delta.delta_channels(metadata)
    for name, value in channel_values.items():
        if delta.is_snapshot(value):
            sources[name] = f"{SNAPSHOT_STORED}{here}"
        elif delta.is_sentinel(value):
            sources[name] = SENTINEL_STORED
        elif name in named:
            sources[name] = f"full value stored at this checkpoint{here} (a plain row in a delta channel)"
    sentinels = [name for name, value in channel_values.items() if delta.is_sentinel(value)]
    values = delta.unwrap_snapshots({k: v for k, v in channel_values.items() if k not in sentinels})
    missing = delta.channels_to_rebuild(header.get("channel_versions"), values, metadata)
    return values, missing + [name for name in sentinels if name not in missing], sources


def sql_delta_history(store: Any, thread_id: str, ns: str, parent: str | None, channels: list[str],
                      carried: CheckpointState | None = None) -> dict[str, delta.DeltaHistory]:
    """What ``channels`` of a SQL backend's checkpoint (whose parent is ``parent``) are rebuilt from.

    ``carried``: the parent's state when a stream has it at hand. A channel it rebuilt continues its history
    with the writes stored against it; a channel it stores is the seed; only the others walk further up.
    """
    def writes_on(cids: list[str], names: list[str]) -> list[delta.ChannelWrite]:
        return store._channel_writes(thread_id, ns, cids, names)

    if carried is None or carried.checkpoint_id != parent:
        return delta.history(channels, store._ancestors(thread_id, ns, parent, channels), writes_on, parent)
    held = {**carried.internal, **carried.values}
    continued = {name: carried.delta_history[name] for name in channels if name in carried.delta_history}
    stored: dict[str, Any] = {}
    for name in channels:
        if name in continued or name not in held:
            continue
        source = carried.delta_sources.get(name, "")
        stored[name] = {"__type__": DELTA_SNAPSHOT_TYPE, "value": held[name]} if source.startswith(SNAPSHOT_STORED) \
            else held[name]
    rest = [name for name in channels if name not in continued]
    out: dict[str, delta.DeltaHistory] = {}
    if rest:
        versions = carried.header.get("channel_versions")
        ancestors = itertools.chain([delta.Ancestor(parent, stored, carried.parent_checkpoint_id,
                                                    frozenset(versions) if isinstance(versions, dict) else None)],
                                    store._ancestors(thread_id, ns, carried.parent_checkpoint_id, rest))
        out = delta.history(rest, ancestors, writes_on, parent)
    if continued:
        writes = writes_on([parent], list(continued))
        for name, before in continued.items():
            mine = sorted((w for w in writes if w.channel == name), key=lambda w: (w.task_path, w.task_id, w.idx))
            stored_sentinel = carried.delta_sources.get(name, "").startswith(SENTINEL_STORED)
            out[name] = dataclasses.replace(before, writes=before.writes + tuple(mine),
                                            sentinels=before.sentinels + int(stored_sentinel))
    return out


def sql_checkpoint_delta_history(store: Any, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str,
                                 mark: str) -> dict[str, delta.DeltaHistory]:
    """``Store.delta_history`` of a SQL backend (``mark``: its parameter placeholder, ``?`` or ``%s``)."""
    rows = store._query(
        f"SELECT parent_checkpoint_id FROM checkpoints WHERE thread_id = {mark} AND checkpoint_ns = {mark} "
        f"AND checkpoint_id = {mark}",
        [thread_id, ns, checkpoint_id],
    )
    if not rows:
        raise checkpoint_not_found(thread_id, checkpoint_id, ns)
    return sql_delta_history(store, thread_id, ns, rows[0][0], list(channels))


def sql_rebuilder(store: Any, thread_id: str, ns: str, parent: str | None,
                  carried: CheckpointState | None = None) -> Rebuilder:
    """Rebuild delta channels of a SQL backend from its ancestors' stored values and writes."""

    def run(missing: list[str], sentinels: Collection[str] = ()) -> delta.Rebuilt:
        histories = sql_delta_history(store, thread_id, ns, parent, missing, carried)
        if parent is None:
            histories = delta.rebuild_at_root(histories, sentinels)
        return delta.fold_histories(histories, delta.reducers_from(store.schema))

    return run


def keys_only_row(thread_id: str, ns: str, checkpoint_id: str, parent: str | None, stored_bytes: int,
                  writes: tuple[tuple[str, ...], int], parents: dict[str, Any] | None = None) -> CheckpointRow:
    """A ``timeline_keys`` row: keys and lengths, step read from the id, no metadata but ``parents``."""
    return CheckpointRow(
        thread_id=thread_id,
        checkpoint_ns=ns,
        checkpoint_id=checkpoint_id,
        parent_checkpoint_id=parent,
        step=checkpoint_step(checkpoint_id),
        source=None,
        created_at=checkpoint_time(checkpoint_id),
        stored_bytes=int(stored_bytes or 0),
        writes_bytes=int(writes[1] or 0),
        write_channels=writes[0],
        metadata={"parents": parents} if parents is not None else {},
        keys_only=True,
    )


# A step is an integer a 64-bit column holds (SQLite's, msgpack's, Arrow's): LangGraph's steps are small, and a
# larger one (JSON holds any) is no step the inspector can count, store or draw.
STEP_RANGE = range(-(2**63), 2**63)


def step_and_source(metadata: dict[str, Any]) -> tuple[int | None, str | None]:
    """The step and source a checkpoint's metadata records (None where they are not what LangGraph writes)."""
    step, source = metadata.get("step"), metadata.get("source")
    return (step if is_step(step) else None), (source if isinstance(source, str) else None)


def is_step(value: Any) -> bool:
    """Whether ``value`` is a step number: an integer (not a boolean) in ``STEP_RANGE``."""
    return type(value) is int and value in STEP_RANGE


def step_problem(metadata: dict[str, Any]) -> str | None:
    """What is wrong with the ``step`` a checkpoint's metadata records (None: a step number, or no step)."""
    step = metadata.get("step")
    if step is None or is_step(step):
        return None
    if type(step) is int:
        what = f"an integer of {len(str(abs(step)))} digits, past 64 bits"
    elif isinstance(step, float):
        what = "a number that is not finite" if step != step or step in (float("inf"), float("-inf")) else "a fraction"
    else:
        what = f"a {type(step).__name__}, not an integer"
    return f"metadata step {named(step)} is no step number ({what}); the step is left blank"


def full_row(thread_id: str, ns: str, checkpoint_id: str, parent: str | None, stored_bytes: int,
             writes: tuple[tuple[str, ...], int], metadata: dict[str, Any]) -> CheckpointRow:
    """A timeline row with its metadata (step and source from it)."""
    step, source = step_and_source(metadata)
    problem = step_problem(metadata)
    return CheckpointRow(thread_id, ns, checkpoint_id, parent, step, source, checkpoint_time(checkpoint_id),
                         int(stored_bytes or 0), writes_bytes=int(writes[1] or 0), write_channels=writes[0],
                         metadata=metadata, problems=(problem,) if problem else ())


def batches(items: Sequence[T], size_of: Callable[[T], int]) -> Iterator[list[T]]:
    """``items`` in runs of at most ``BATCH_ROWS`` items or ``BATCH_BYTES`` bytes (one item at least)."""
    batch: list[T] = []
    total = 0
    for item in items:
        size = size_of(item)
        if batch and (len(batch) >= BATCH_ROWS or total + size > BATCH_BYTES):
            yield batch
            batch, total = [], 0
        batch.append(item)
        total += size
    if batch:
        yield batch


def stream_writes(ids: list[str], checkpoint_ids: Collection[str] | None,
                  write_rows: Callable[[list[str]], dict[str, list[tuple]]]) -> Iterator[tuple[str, list[WriteRecord]]]:
    """``Store.iter_writes`` from the ids of checkpoints with writes (oldest first) and a batch reader."""
    if checkpoint_ids is not None:
        wanted = set(checkpoint_ids)
        ids = [cid for cid in ids if cid in wanted]
    return ((cid, write_records(rows)[0]) for batch in batches(ids, lambda _: 1)
            for cid, rows in sorted(write_rows(batch).items()))


def thread_not_found(thread_id: str) -> NotFound:
    return NotFound(f"no thread {quoted(thread_id)} in this store")


class HistoryTimeline:
    """``timeline`` as every backend answers it: the whole history, every namespace, newest first; a thread
    with no checkpoint is not found (a mixin: needs ``history``)."""

    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        rows = self.history(thread_id, None)  # type: ignore[attr-defined]
        if not rows:
            raise thread_not_found(thread_id)
        return rows
