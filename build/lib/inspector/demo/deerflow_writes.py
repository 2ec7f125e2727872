"""Checkpoints DeerFlow writes outside graph steps, written the way its main branch writes them.

- ``persist_run_durations``: after a run, a copy of the newest checkpoint with
  ``run_durations`` and ``writes: {"runtime_run_duration": ...}`` in its metadata,
  ``put`` straight through the saver (``runtime/runs/worker.py``);
- ``write_thread_goal``: the goal written through ``put`` with the new ``goal``
  value and no task writes, by the goal API (``as_node="goal"``, on an empty root
  checkpoint ``ensure_thread_checkpoint`` puts for a new thread) or by the goal
  evaluator after a run (``runtime/goal.py``, ``runtime/runs/worker.py``);
- ``branch_thread``: a new thread whose checkpoints are written by
  ``update_state(..., as_node="branch")`` over a state-only graph, every reducer
  field wrapped in ``Overwrite`` and the ``branch_parent_*`` metadata
  (``app/gateway/routers/threads.py``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.channels import BinaryOperatorAggregate, DeltaChannel
from langgraph.checkpoint.base import BaseCheckpointSaver, empty_checkpoint
from langgraph.errors import InvalidUpdateError
from langgraph.graph import START, StateGraph
from langgraph.types import Overwrite

BRANCH_EXCLUDED_CHANNELS = frozenset({"sandbox", "thread_data"})


def _root(thread_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def _put_copy(saver: BaseCheckpointSaver, thread_id: str, update: dict[str, Any], metadata_update: dict[str, Any],
              new_versions: dict[str, Any] | None = None) -> dict:
    """``put`` a copy of the newest root checkpoint with a fresh id, parented to it."""
    newest = saver.get_tuple(_root(thread_id))
    if newest is None:
        raise LookupError(f"thread {thread_id} has no checkpoint")
    checkpoint = {**copy.deepcopy(newest.checkpoint), **update}
    marker = empty_checkpoint()
    checkpoint.update({"id": marker["id"], "ts": marker["ts"]})
    metadata = dict(newest.metadata or {})
    step = metadata.get("step")
    metadata.update({"source": "update", "step": step + 1 if isinstance(step, int) else 1, **metadata_update})
    parent = {"configurable": {**_root(thread_id)["configurable"],
                               "checkpoint_id": newest.config["configurable"]["checkpoint_id"]}}
    return saver.put(parent, checkpoint, metadata, new_versions or {})


def persist_run_durations(saver: BaseCheckpointSaver, thread_id: str, durations: dict[str, int]) -> dict:
    """A metadata-only checkpoint recording how long runs took (seconds), merged into the newest checkpoint's
    ``run_durations`` (a graph step's checkpoint has none, so usually just this run's)."""
    newest = saver.get_tuple(_root(thread_id))
    known = dict((newest.metadata or {}).get("run_durations") or {}) if newest else {}
    known.update(durations)
    return _put_copy(saver, thread_id, {}, {
        "run_durations": known, "writes": {"runtime_run_duration": {"run_ids": sorted(durations)}}})


def ensure_thread_checkpoint(saver: BaseCheckpointSaver, thread_id: str, created_at: str) -> None:
    """An empty root checkpoint for a thread that has none yet (the goal API may run before the first run)."""
    if saver.get_tuple(_root(thread_id)) is None:
        metadata = {"step": -1, "source": "input", "writes": None, "parents": {}, "created_at": created_at}
        saver.put(_root(thread_id), empty_checkpoint(), metadata, {})


def new_goal(objective: str, now: str, max_continuations: int = 3) -> dict[str, Any]:
    """A fresh active goal, shaped as DeerFlow's ``build_goal_state`` makes it."""
    return {"objective": objective, "status": "active", "created_at": now, "updated_at": now,
            "continuation_count": 0, "max_continuations": max_continuations, "no_progress_count": 0,
            "max_no_progress_continuations": 2}


def evaluated_goal(goal: dict[str, Any], run_id: str, reason: str, now: str) -> dict[str, Any]:
    """The goal with the evaluator's verdict on a run that did not satisfy it (``attach_goal_evaluation``)."""
    return {**goal, "continuation_count": goal["continuation_count"] + 1, "updated_at": now,
            "last_evaluation": {"satisfied": False, "blocker": False, "reason": reason, "evidence_summary": "",
                                "run_id": run_id, "evaluated_at": now, "progress_key": run_id[:8]}}


def write_thread_goal(saver: BaseCheckpointSaver, thread_id: str, goal: dict | None, as_node: str = "goal") -> dict:
    """The goal set (or cleared, with ``None``) on the newest checkpoint, written through ``put``."""
    newest = saver.get_tuple(_root(thread_id))
    values = dict(newest.checkpoint.get("channel_values") or {})
    if goal is None:
        values.pop("goal", None)
    else:
        values["goal"] = copy.deepcopy(goal)
    versions = dict(newest.checkpoint.get("channel_versions") or {})
    versions["goal"] = saver.get_next_version(versions.get("goal"), None)
    return _put_copy(saver, thread_id, {"channel_values": values, "channel_versions": versions},
                     {"writes": {as_node: {"goal": goal}}}, {"goal": versions["goal"]})


def checkpoint_before_message(saver: BaseCheckpointSaver, head: Any, message_id: str, max_depth: int = 400) -> Any:
    """Walking up from ``head``, the first settled checkpoint (no step pending, not a run-duration copy) whose
    messages do not hold ``message_id``: where a branch replays the branched turn from. None when there is none."""
    current = head
    for _ in range(max_depth):
        if current.parent_config is None:
            return None
        current = saver.get_tuple(current.parent_config)
        values = current.checkpoint.get("channel_values") or {}
        if current.metadata.get("source") == "update" and "run_durations" in current.metadata:
            continue  # a run-duration copy (PostgresSaver drops the "writes" that would say so)
        pending = any(key == "__start__" or key.startswith("branch:to:") for key in values)  # a step is due
        if not pending and message_id not in {getattr(m, "id", None) for m in values.get("messages", [])}:
            return current
    return None


@contextmanager
def first_overwrite_unwrapped() -> Iterator[None]:
    """While open, an ``Overwrite`` written into an empty reducer channel stores its value, not the wrapper.

    LangGraph seeds an empty ``BinaryOperatorAggregate`` (a ``X | None`` field has no default) with the first
    value verbatim, so a branch's ``Overwrite(...)`` would be stored as such; DeerFlow patches this at import
    (``deerflow/checkpoint_patches.py``, its issue 4380). The demo applies the same fix only while it writes.
    """
    original = BinaryOperatorAggregate.update

    def update(self: BinaryOperatorAggregate, values: Any) -> bool:
        if values and not self.is_available() and isinstance(values[0], Overwrite):
            if any(isinstance(value, Overwrite) for value in values[1:]):
                raise InvalidUpdateError("Can receive only one Overwrite value per super-step.")
            self.value = values[0].value
            return True
        return original(self, values)

    BinaryOperatorAggregate.update = update  # type: ignore[method-assign]
    try:
        yield
    finally:
        BinaryOperatorAggregate.update = original  # type: ignore[method-assign]


def _reducer_channels(graph: Any) -> frozenset[str]:
    return frozenset(name for name, channel in graph.channels.items()
                     if isinstance(channel, (BinaryOperatorAggregate, DeltaChannel)))


def branch_thread(saver: BaseCheckpointSaver, schema: type, parent_thread_id: str, branch_point: dict,
                  new_thread_id: str, message_id: str, created_at: str, base_point: dict | None = None,
                  metadata: dict[str, Any] | None = None) -> dict:
    """A new thread holding the parent's state at ``branch_point`` (a checkpoint config), written as DeerFlow does.

    ``base_point`` is the checkpoint before the branched turn's user message (DeerFlow writes it first, so the
    branch can replay that turn). Returns the branch head's config.
    """
    graph = StateGraph(schema)
    graph.add_node("branch", lambda state: {})
    graph.add_edge(START, "branch")
    writer = graph.compile(checkpointer=saver)
    reducers = _reducer_channels(writer)

    def values_at(point: dict) -> dict[str, Any]:
        values = dict(writer.get_state(point).values)
        return {key: Overwrite(list(value) if key == "messages" else value) if key in reducers else value
                for key, value in values.items() if key not in BRANCH_EXCLUDED_CHANNELS}

    branch_metadata = {
        "deerflow_branch": True,
        "branch_parent_thread_id": parent_thread_id,
        "branch_parent_checkpoint_id": branch_point["configurable"]["checkpoint_id"],
        "branch_parent_message_id": message_id,
        "branch_created_at": created_at,
    }
    stamp = {**branch_metadata, "source": "branch", "updated_at": created_at, "created_at": created_at,
             **(metadata or {})}
    head = {"configurable": {"thread_id": new_thread_id, "checkpoint_ns": ""}, "metadata": dict(stamp)}
    with first_overwrite_unwrapped():
        if base_point is not None:
            head = writer.update_state(head, values_at(base_point), as_node="branch")
            head.setdefault("metadata", {}).update(stamp)
        return writer.update_state(head, values_at(branch_point), as_node="branch")
