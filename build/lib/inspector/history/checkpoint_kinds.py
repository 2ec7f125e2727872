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
gaining a run its parent's lacked; any other ``update`` checkpoint on a parent
with no stored writes (so not ``update_state``, which stores its writes there)
is named ``put``: written straight through the saver, what for is not recorded.

Delta mode is read from DeerFlow's ``deerflow_checkpoint_channel_mode: "delta"``
marker (or LangGraph's ``counters_since_delta_snapshot``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from ..store import BranchThread, CheckpointRow
from ..store.model import branch_of
from .lineage import History, Key

if TYPE_CHECKING:
    from .attribution import Attribution

RUN_DURATION_WRITE = "runtime_run_duration"
INTERRUPT_TITLE_WRITE = "runtime_interrupt_title"
DELTA_MARKER = "deerflow_checkpoint_channel_mode"
GRAPH_SOURCES = ("input", "loop")  # checkpoints of graph steps, never one of DeerFlow's own writes


@dataclass(frozen=True)
class CheckpointKind:
    name: str  # "run finished", "goal set", "goal cleared", "title set", "branch copy"
    detail: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} ({self.detail})" if self.detail else self.name


def seconds(value: int | float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    total = int(value)
    if total < 60:
        return f"{total} s"
    if total < 3600:
        return f"{total // 60} min {total % 60:02d} s"
    return f"{total // 3600} h {total % 3600 // 60:02d} min"


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


def checkpoint_kind(metadata: Any, parent: CheckpointRow | None = None) -> CheckpointKind | None:
    """What DeerFlow wrote this checkpoint for, when it is not a graph step; None for ordinary checkpoints.

    ``parent`` (the checkpoint it was written on top of) is needed only where the saver dropped ``writes``.
    """
    if not isinstance(metadata, dict) or metadata.get("source") in GRAPH_SOURCES:
        return None
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
    if new_runs:
        return _run_finished(_durations(metadata), new_runs)
    if not parent.write_channels:
        return CheckpointKind("put", "written straight through the saver, not by a graph step")
    return None


def parent_row(history: History, key: Key) -> CheckpointRow | None:
    """The checkpoint ``key`` was written on top of, in its own namespace."""
    parent = history.node(key).parent
    return history.node(parent).row if parent is not None and parent[0] == key[0] else None


def kind_at(history: History, key: Key) -> CheckpointKind | None:
    return checkpoint_kind(history.node(key).row.metadata, parent_row(history, key))


def step_label(history: History, key: Key, made: "Attribution | None" = None) -> str:
    """``7 · view_image_middleware → viewed_images, messages`` (``made``: the checkpoint's attribution), or the
    kind's name for DeerFlow's own checkpoints (``7 · run finished``); without an attribution, ``6 · loop``."""
    row, kind = history.node(key).row, kind_at(history, key)
    if kind is None and made is not None:
        return made.label
    return f"{row.step} · {kind.name if kind else row.source or '?'}"


def delta_marker(metadata: Any) -> str | None:
    """The metadata key that says a checkpoint was written in delta mode (DeerFlow's marker first), or None."""
    if not isinstance(metadata, dict):
        return None
    if metadata.get(DELTA_MARKER) == "delta":
        return DELTA_MARKER
    counters = metadata.get("counters_since_delta_snapshot")
    return "counters_since_delta_snapshot" if isinstance(counters, dict) and counters else None


def branch_origin(rows: Iterable[CheckpointRow]) -> BranchThread | None:
    """Where a thread was branched from: the branch record of its oldest root checkpoint that carries one."""
    for row in sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id):
        origin = branch_of(row.thread_id, row.metadata)
        if origin is not None:
            return origin
    return None
