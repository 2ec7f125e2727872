"""The checkpoints DeerFlow writes outside graph steps, named from their metadata.

DeerFlow's main branch writes some checkpoints straight through the saver or
``update_state``; their metadata says what they are:

- ``run finished``: after each run, a copy of the newest checkpoint whose metadata
  carries ``run_durations`` (run id -> seconds) and
  ``writes: {"runtime_run_duration": {"run_ids": [...]}}``;
- ``goal set`` / ``goal cleared``: ``writes: {<node>: {"goal": ...}}``, a goal
  written through ``put``;
- ``title set``: ``writes: {"runtime_interrupt_title": {...}}``, the title an
  interrupted first run gets;
- ``branch copy``: the checkpoints that start a branch thread (``update_state``
  ``as_node="branch"``, metadata ``branch_parent_*``), carrying the parent's state.

LangGraph's PostgresSaver drops the ``writes`` key from the metadata it stores.
There a run-duration checkpoint is still recognised, by ``run_durations``
gaining a run its parent's lacked. Delta mode carries DeerFlow's marker
``deerflow_checkpoint_channel_mode: "delta"``.

The generic part (``put`` checkpoints, LangGraph's delta counters, step labels)
is ``inspector.history.checkpoint_kinds``, which asks this module through the
profile (``Profile.checkpoint_kind``).
"""

from __future__ import annotations

from typing import Any

from ...history.checkpoint_kinds import CheckpointKind, seconds
from ...store import CheckpointRow
from ...store.model import branch_of

RUN_DURATION_WRITE = "runtime_run_duration"
INTERRUPT_TITLE_WRITE = "runtime_interrupt_title"
DELTA_MARKER = "deerflow_checkpoint_channel_mode"


def _run_finished(durations: dict[str, Any], run_ids: Any) -> CheckpointKind:
    parts = []
    for run_id in run_ids if isinstance(run_ids, list) else []:
        took = durations.get(run_id)
        known = isinstance(took, (int, float)) and not isinstance(took, bool)
        parts.append(f"run {str(run_id)[:8]}: {seconds(took) if known else 'duration unknown'}")
    return CheckpointKind("run finished", ", ".join(parts))


def _durations(metadata: Any) -> dict[str, Any]:
    durations = metadata.get("run_durations") if isinstance(metadata, dict) else None
    return durations if isinstance(durations, dict) else {}


def _goal(node: str, goal: Any) -> CheckpointKind:
    by = "" if node == "goal" else f"by {node}"
    if goal is None:
        return CheckpointKind("goal cleared", by)
    goal = goal if isinstance(goal, dict) else {}
    verdict = goal.get("last_evaluation")
    bits = [by, goal.get("status") if isinstance(goal.get("status"), str) else "",
            goal["objective"][:60] if isinstance(goal.get("objective"), str) else ""]
    if isinstance(verdict, dict) and isinstance(verdict.get("satisfied"), bool):
        bits.append("evaluated: " + ("satisfied" if verdict["satisfied"] else "not yet satisfied"))
    return CheckpointKind("goal set", " · ".join(b for b in bits if b))


def checkpoint_kind(metadata: dict[str, Any], parent: CheckpointRow | None = None) -> CheckpointKind | None:
    """What DeerFlow wrote this checkpoint (not of a graph step) for; None when it is none of DeerFlow's own.

    ``parent`` (the checkpoint it was written on top of) is needed only where the saver dropped ``writes``.
    """
    writes = metadata.get("writes")
    if isinstance(writes, dict):
        if RUN_DURATION_WRITE in writes:
            run_ids = writes[RUN_DURATION_WRITE]
            return _run_finished(_durations(metadata), run_ids.get("run_ids") if isinstance(run_ids, dict) else None)
        if INTERRUPT_TITLE_WRITE in writes:
            title = writes[INTERRUPT_TITLE_WRITE]
            title = title.get("title") if isinstance(title, dict) else None
            return CheckpointKind("title set", f"after an interrupted run: {title[:60]}" if isinstance(title, str)
                                  else "after an interrupted run")
        for node, written in writes.items():
            if isinstance(written, dict) and set(written) == {"goal"}:
                return _goal(str(node), written["goal"])
    origin = branch_of("", metadata)
    if origin is not None:
        return CheckpointKind("branch copy", f"from {origin.parent_thread_id}")
    if "writes" in metadata or metadata.get("source") != "update" or parent is None:
        return None
    before = _durations(parent.metadata)
    new_runs = sorted(run for run, took in _durations(metadata).items() if before.get(run) != took)
    return _run_finished(_durations(metadata), new_runs) if new_runs else None


def delta_marker(metadata: dict[str, Any]) -> str | None:
    """``DELTA_MARKER`` when DeerFlow marked the checkpoint as written in delta mode, else None."""
    return DELTA_MARKER if metadata.get(DELTA_MARKER) == "delta" else None
