"""Pieces every backend builds its answers from: decoded write records, the channel split, not-found errors."""

from __future__ import annotations

import itertools
from typing import Any, Callable, Collection, Iterable, Iterator, Sequence, TypeVar

from . import delta
from .decode import Problem, decode_typed
from .model import (
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

# Rebuilds delta channels: names -> (values, problems).
Rebuilder = Callable[[list[str]], tuple[dict[str, Any], list[Problem]]]

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


# ns, checkpoint id, task_id, task_path, idx, channel, size, then type and data of a ``__pregel_tasks`` write
WriteKeyRow = tuple[str, str, str, str | None, int, str, int | None, str | None, bytes | None]


def write_keys_from(rows: Iterable[WriteKeyRow]) -> dict[Key, list[WriteKey]]:
    """``Store.write_keys`` from stored rows in task order: a ``Send`` packet's target decoded, nothing else."""
    found: dict[Key, list[WriteKey]] = {}
    for ns, cid, task_id, path, idx, channel, size, type_tag, data in rows:
        target = send_target(decode_typed(type_tag, data, channel).value) if channel == TASKS_CHANNEL else None
        found.setdefault((ns, cid), []).append(WriteKey(str(task_id), path or "", int(idx), channel, int(size or 0), target))
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
    channel_values = delta.unwrap_snapshots(channel_values)
    missing = delta.channels_to_rebuild(header.get("channel_versions"), channel_values, metadata)
    if channels is not None:
        missing = [name for name in missing if name in channels]
    problems = list(problems)
    if missing:
        rebuilt, rebuild_problems = rebuild(missing)
        channel_values.update(rebuilt)
        problems += rebuild_problems
    values, internal = split_channels(channel_values)
    return CheckpointState(
        thread_id=thread_id,
        checkpoint_ns=ns,
        checkpoint_id=checkpoint_id,
        parent_checkpoint_id=parent,
        values=values,
        internal=internal,
        metadata=metadata,
        writes=writes,
        problems=problems,
        header=header,
        channel_bytes=channel_bytes,
        stored_bytes=stored_bytes,
        rebuilt_channels=tuple(missing),
    )


def sql_delta_history(store: Any, thread_id: str, ns: str, parent: str | None, channels: list[str],
                      carried: CheckpointState | None = None) -> dict[str, delta.DeltaHistory]:
    """What ``channels`` of a SQL backend's checkpoint (whose parent is ``parent``) are rebuilt from.

    ``carried``: the parent's state when a stream has it at hand; its values seed the walk, so the
    history above it is read only for a channel it does not hold.
    """
    ancestors: Iterable[delta.Ancestor] = store._ancestors(thread_id, ns, parent, channels)
    if carried is not None and carried.checkpoint_id == parent:
        held = {**carried.internal, **carried.values}
        ancestors = itertools.chain(
            [delta.Ancestor(parent, {name: held[name] for name in channels if name in held})],
            store._ancestors(thread_id, ns, carried.parent_checkpoint_id, channels),
        )
    return delta.history(channels, ancestors, lambda cids, names: store._channel_writes(thread_id, ns, cids, names))


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

    def run(missing: list[str]) -> tuple[dict[str, Any], list[Problem]]:
        histories = sql_delta_history(store, thread_id, ns, parent, missing, carried)
        rebuilt = delta.fold_histories(histories, delta.reducers_from(store.schema))
        return rebuilt.values, rebuilt.problems

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
    return CheckpointRow(
        thread_id=thread_id,
        checkpoint_ns=ns,
        checkpoint_id=checkpoint_id,
        parent_checkpoint_id=parent,
        step=step,
        source=source,
        created_at=checkpoint_time(checkpoint_id),
        stored_bytes=int(stored_bytes or 0),
        writes_bytes=int(writes[1] or 0),
        write_channels=writes[0],
        metadata=metadata,
        problems=(problem,) if problem else (),
    )


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
