"""Where the time went: how long each step took, from checkpoint timestamps, by the node that ran it.

A step runs from its parent checkpoint to the checkpoint it produced, so its duration is the time
between the two checkpoints' timestamps (the uuid6 ids LangGraph gives them, read without any state).
The step is the attribution's (``attribution``): its nodes are charged with its time. Several tasks
in one step ran in parallel, so each of them is charged the step's whole wall time, and the step is
counted once in the thread's total. The time before a new run's input checkpoint is the wait between
runs, not a node's: it is listed as such and charged to no node. A step whose timestamps are missing
(ids that are not uuid6) or run backwards (dated before its parent: a writer's clock set back) has no duration.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterable, Mapping

from .attribution import INPUT, STEP, Attribution
from .lineage import History, Key

WAIT = "(wait between runs)"


@dataclass(frozen=True)
class StepTime:
    """One checkpoint's step: when it started (its parent's time) and ended (its own), and who ran it."""

    key: Key
    step: int | None
    label: str
    nodes: tuple[str, ...]
    started: datetime | None
    ended: datetime | None
    seconds: float | None
    waiting: bool = False  # the time before a new run's input: no node ran

    @property
    def charged_to(self) -> tuple[str, ...]:
        return () if self.waiting else self.nodes or ("(no task)",)


def step_times(history: History, made: Mapping[Key, Attribution]) -> list[StepTime]:
    """The steps of the checkpoints in ``made``, oldest first."""
    out = []
    for key in sorted(made, key=lambda k: history.nodes[k].order, reverse=True):
        node = history.nodes[key]
        attribution = made[key]
        parent = node.parent if node.parent is not None and node.parent[0] == key[0] else None
        started = history.nodes[parent].row.created_at if parent is not None else None
        ended = node.row.created_at
        seconds = (ended - started).total_seconds() if started is not None and ended is not None else None
        if seconds is not None and seconds < 0:  # a clock set back between the two: no duration to tell
            seconds = None
        out.append(StepTime(key, node.row.step, attribution.label, attribution.nodes, started, ended,
                            seconds, waiting=attribution.made_by == INPUT))
    return out


@dataclass(frozen=True)
class NodeTotal:
    node: str
    seconds: float
    steps: int
    slowest: float

    @property
    def mean(self) -> float:
        return self.seconds / self.steps if self.steps else 0.0


def node_totals(times: Iterable[StepTime]) -> list[NodeTotal]:
    """Per node: total seconds, steps and the slowest step; the most time first."""
    totals: dict[str, list[float]] = {}
    for time in times:
        if time.seconds is None:
            continue
        for node in time.charged_to:
            totals.setdefault(node, []).append(time.seconds)
    return sorted((NodeTotal(n, sum(v), len(v), max(v)) for n, v in totals.items()),
                  key=lambda t: (-t.seconds, t.node))


def slowest_steps(times: Iterable[StepTime], count: int = 5) -> list[StepTime]:
    """The ``count`` longest steps that ran a node (waits between runs left out), longest first."""
    timed = [t for t in times if t.seconds is not None and not t.waiting]
    return sorted(timed, key=lambda t: -(t.seconds or 0))[:count]


def total_seconds(times: Iterable[StepTime]) -> float:
    """The time spent in steps (waits between runs left out), each step counted once."""
    return sum(t.seconds or 0 for t in times if not t.waiting and t.seconds is not None)


def seconds_text(value: float | None) -> str:
    """``0.42 s``, ``12.3 s``, ``3 min 05 s``; ``?`` for no duration."""
    if value is None:
        return "?"
    if value < 10:
        return f"{value:.2f} s"
    if value < 60:
        return f"{value:.1f} s"
    whole = int(value)
    return f"{whole // 60} min {whole % 60:02d} s" if whole < 3600 else f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def summary(times: list[StepTime]) -> str:
    """``36 steps in 4.21 s; slowest: step 12 (agent) 0.80 s; most time: agent 2.10 s over 8 steps``."""
    steps = [t for t in times if not t.waiting and t.seconds is not None]
    if not steps:
        return "no timed step"
    slow = slowest_steps(steps, 1)[0]
    top = node_totals(steps)[0]
    return (f"{len(steps)} step(s) in {seconds_text(total_seconds(steps))}; slowest: step {slow.step} "
            f"({', '.join(slow.charged_to)}) {seconds_text(slow.seconds)}; most time: {top.node} "
            f"{seconds_text(top.seconds)} over {top.steps} step(s)")


__all__ = ["STEP", "WAIT", "NodeTotal", "StepTime", "node_totals", "seconds_text", "slowest_steps", "step_times",
           "summary", "total_seconds"]
