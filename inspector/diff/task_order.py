"""The order LangGraph applied a step's writes in, where the store keeps no task path.

LangGraph applies the tasks of a step in the order of their task paths (``pregel/_algo.py``,
``apply_writes``: sorted by ``task_path_str(task.path)``): the pulled tasks (``~__pregel_pull, NODE``)
by node name, then the tasks a ``Send`` pushed (``~__pregel_push, I, ...``) by the index I of their
packet in the ``__pregel_tasks`` channel of the checkpoint they ran from. A saver that stores the path
(``langgraph-checkpoint-sqlite`` 3.1.2 and later, PostgreSQL) gives the writes in that order. Older
SQLite savers (3.1.1, DeerFlow's pin) and a saver read through its API keep only the task id, and the
id order is not LangGraph's: parallel writes to one channel folded by it give another value.

A task id is LangGraph's hash of what the task is (``prepare_single_task``): the id of the checkpoint
it ran from, its namespace, the step, its node, and ``__pregel_push`` with its packet's index or
``__pregel_pull`` with the node's trigger channels. So each task's path is found again from what the
checkpoint stores, by hashing the candidates it holds: every ``Send`` packet of its ``__pregel_tasks``
(node and index), and every node its trigger channels name (``branch:to:NODE``, ``join:...:NODE``,
``__start__``) with those channels and the ones the node has seen (``versions_seen``). Task ids are
never compared for order. A task no candidate matches has no known place: the caller treats a field
it wrote with another task in the same step as folded in an unknown order.
"""

from __future__ import annotations

import binascii
import hashlib
from itertools import combinations
from typing import Any, Iterator

from ..store import CheckpointState, WriteRecord
from ..store.model import TASKS_CHANNEL, checkpoint_step
from ..store.records import send_target, step_and_source

PULL = "__pregel_pull"
PUSH = "__pregel_push"
START = "__start__"
NO_CALL = f"{0:010d}"  # ``task_path_str(False)``: the last item of a pushed task's path, "no call made"
TRIGGER_PREFIXES = ("branch:to:", "join:", "start:")
MAX_TRIGGERS = 5  # a node's trigger channels tried together, at most (their subsets are hashed)


def pull_path(node: str) -> str:
    """``task_path_str((PULL, node))``."""
    return f"~{PULL}, {node}"


def push_path(index: int) -> str:
    """``task_path_str((PUSH, index, False))``: the path LangGraph gives the task of the index-th ``Send``."""
    return f"~{PUSH}, {index:010d}, {NO_CALL}"


def task_id(checkpoint_id: str, version: Any, *parts: str) -> str | None:
    """LangGraph's id of a task that ran from ``checkpoint_id`` (``_xxhash_str``, or ``_uuid5_str`` for
    checkpoints of format 1): the checkpoint id's bytes and ``parts`` hashed; None for an id that is no uuid."""
    try:
        data = binascii.unhexlify(checkpoint_id.replace("-", "")) + "".join(parts).encode()
    except (binascii.Error, ValueError, AttributeError, UnicodeEncodeError):
        return None
    if isinstance(version, int) and version <= 1:
        digest = hashlib.sha1(data, usedforsecurity=False).hexdigest()
    else:
        from xxhash import xxh3_128_hexdigest  # LangGraph's own dependency

        digest = xxh3_128_hexdigest(data)
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def _trigger_target(channel: str) -> str | None:
    """The node a trigger channel starts: ``branch:to:NODE``, ``join:A+B:NODE``, ``start:NODE``, ``__start__``."""
    if channel == START:
        return START
    if channel.startswith(TRIGGER_PREFIXES):
        return channel.rsplit(":", 1)[-1] or None
    return None


def _candidates(parent: CheckpointState) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``(path, node, hashed parts after the node)`` of every task the parent checkpoint could have started."""
    sends = parent.internal.get(TASKS_CHANNEL)
    for index, packet in enumerate(sends if isinstance(sends, list) else []):
        node = send_target(packet)
        if node is not None:
            yield push_path(index), node, (PUSH, str(index))
    versions = parent.header.get("channel_versions")
    seen = parent.header.get("versions_seen")
    channels = set(parent.internal) | (set(versions) if isinstance(versions, dict) else set())
    fired: dict[str, set[str]] = {}
    for channel in parent.internal:  # a trigger channel holding a value: its node runs in the next step
        node = _trigger_target(channel)
        if node is not None:
            fired.setdefault(node, set()).add(channel)
    for node in sorted(fired):
        pool = {START} if node == START else {c for c in channels if _trigger_target(c) == node} | {f"branch:to:{node}"}
        node_seen = seen.get(node) if isinstance(seen, dict) else None
        pool |= set(node_seen) if isinstance(node_seen, dict) else set()
        pool = set(sorted(pool)[:MAX_TRIGGERS]) | fired[node]
        for size in range(1, len(pool) + 1):
            for triggers in combinations(sorted(pool), size):
                yield pull_path(node), node, (PULL, *triggers)


def task_paths(parent: CheckpointState, task_ids: set[str]) -> dict[str, str]:
    """``task id -> task path`` for the tasks among ``task_ids`` that ran from ``parent``, as far as what the
    parent stores names them (see the module's docstring)."""
    step = step_and_source(parent.metadata)[0]
    step = step if step is not None else checkpoint_step(parent.checkpoint_id)
    if step is None or not task_ids:
        return {}
    version = parent.header.get("v")
    found: dict[str, str] = {}
    for path, node, rest in _candidates(parent):
        namespace = f"{parent.checkpoint_ns}|{node}" if parent.checkpoint_ns else node
        made = task_id(parent.checkpoint_id, version, namespace, str(step + 1), node, *rest)
        if made in task_ids and made not in found:
            found[made] = path
            if len(found) == len(task_ids):
                break
    return found


def in_task_order(parent: CheckpointState, writes: list[WriteRecord]) -> tuple[list[WriteRecord], set[str]]:
    """``writes`` (stored against ``parent``) in the order LangGraph applied them, and the ids of the tasks
    whose place is unknown (empty when it is known for every task that shares a channel with another).

    Writes with a stored task path are in that order already (the stores read them so). Where paths are
    missing, each task's path is found again (``task_paths``); tasks keep their own writes' order."""
    if all(w.task_path for w in writes):
        return writes, set()
    tasks: dict[str, list[WriteRecord]] = {}
    for write in writes:
        tasks.setdefault(write.task_id, []).append(write)
    shared = _sharing(tasks)
    if not shared:
        return writes, set()
    paths = {tid: records[0].task_path for tid, records in tasks.items() if records[0].task_path}
    paths.update(task_paths(parent, {tid for tid in shared if tid not in paths}))
    placed = sorted((tid for tid in tasks if tid in paths), key=lambda tid: paths[tid])
    unplaced = [tid for tid in tasks if tid not in paths]
    ordered = [w for tid in placed + unplaced for w in tasks[tid]]
    return ordered, {tid for tid in unplaced if tid in shared}


def _sharing(tasks: dict[str, list[WriteRecord]]) -> set[str]:
    """The tasks that wrote a channel another task also wrote (only their order can change a value)."""
    from ..store import is_internal_channel

    writers: dict[str, set[str]] = {}
    for tid, records in tasks.items():
        for record in records:
            if not is_internal_channel(record.channel):
                writers.setdefault(record.channel, set()).add(tid)
    return {tid for ids in writers.values() if len(ids) > 1 for tid in ids}
