"""The step timeline as Temporal draws a workflow's: one lane per task, tasks that ran in parallel side by side.

A step's tasks ran together from its parent checkpoint to its own (``durations``: the timestamps are the
checkpoints', LangGraph stores none per task), so each task is a bar over the step's time in a lane of its own:
a node's lane, and where a step ran one node several times (a ``Send`` fan-out), one more lane for each further
task (``search``, ``search #2``, ``search #3``). Bars are coloured by node (``node_colours``); a task that wrote
an error (``__error__``) is red; a task LangGraph cancelled because a sibling failed (its error a
``CancelledError``) keeps its node's colour, faded; a task that failed or was cancelled where no checkpoint
followed (the run stopped there) has no end: it is a mark at its start. Durations are in milliseconds.

``lane_rows`` gives the bars as plain rows, ``lane_chart`` the Vega-Lite spec drawing them with a click selection
``step`` carrying ``checkpoint`` and ``ns``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping, Optional, Sequence

from ..store import WriteKey
from ..store.not_utf8 import spelled
from .attribution import Attribution, TaskWrites, pending_tasks, writes_needed
from .durations import WAIT, StepTime
from .lineage import History, Key
from .node_colours import FAILED, NO_NODE, NodeColours

SELECTION = "step"
CANCELLED_OPACITY = 0.5  # a cancelled task's bar: its node's colour, faded
LANE_PX = 22
NO_TASK = "(no task)"


def ms_text(ms: float | None) -> str:
    """``0.42 ms``, ``12.3 ms``, ``1,234 ms``; ``?`` for no duration."""
    if ms is None:
        return "?"
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.1f} ms" if ms < 100 else f"{ms:,.0f} ms"


def _lanes_of(tasks: Sequence[TaskWrites]) -> list[tuple[str, str, TaskWrites | None]]:
    """(lane, node, task) for a step's tasks: the node's lane for its first task, ``node #k`` for the k-th."""
    seen: dict[str, int] = {}
    out = []
    for task in tasks:
        seen[task.node] = seen.get(task.node, 0) + 1
        count = seen[task.node]
        out.append((task.node if count == 1 else f"{task.node} #{count}", task.node, task))
    return out


Stopped = tuple[Key, Optional[datetime], Sequence[TaskWrites]]


def run_ends(history: History, ns: str) -> list[Key]:
    """The checkpoints of namespace ``ns`` that no checkpoint of it followed: where its runs stopped."""
    return [k for k, node in history.nodes.items() if k[0] == ns and not any(c[0] == ns for c in node.children)]


def stop_keys(history: History, ns: str) -> list[Key]:
    """The checkpoints whose write keys ``stopped_failures`` reads: what naming the tasks of ``run_ends`` needs
    (``writes_needed``: their parents' ``Send`` packets name the tasks pushed from them)."""
    return writes_needed(history, run_ends(history, ns))


def stopped_failures(history: History, ns: str, writes: Mapping[Key, Sequence[WriteKey]]) -> list[Stopped]:
    """(checkpoint, its time, the tasks that failed or were cancelled from it) for each run of ``ns`` that stopped
    at a task's error (``writes``: the write keys of ``stop_keys``)."""
    out = []
    for key in run_ends(history, ns):
        errored = [t for t in pending_tasks(history, key, writes) if t.errored]
        if errored:
            out.append((key, history.node(key).row.created_at, errored))
    return out


FAILED_OUTCOME = "failed (it wrote an error)"
CANCELLED_OUTCOME = "cancelled (LangGraph stopped it when a task beside it failed)"


def _outcome(task: TaskWrites | None) -> str:
    return "ran" if task is None or not task.errored else CANCELLED_OUTCOME if task.cancelled else FAILED_OUTCOME


def _colour(task: TaskWrites | None, node: str, colours: NodeColours) -> str:
    """Red for a failed task, grey where no task ran, else the node's (a cancelled task's too: it is faded)."""
    return NO_NODE if task is None else FAILED if task.failed else colours(node)


def lane_rows(times: Sequence[StepTime], made: Mapping[Key, Attribution], colours: NodeColours,
              selected: Key | None = None,
              stopped: Iterable[Stopped] = ()) -> list[dict[str, Any]]:
    """One row per task of each timed step in ``times`` (``durations.step_times``), in its lane, with ``start``
    and ``end`` in seconds since the first step, ``ms`` and ``took`` (its duration), ``failed`` and ``colour``;
    ``stopped``: ``stopped_failures``, each such task a row with no end (``open``)."""
    timed = [t for t in times if t.seconds is not None and t.started is not None and t.ended is not None]
    starts = [t.started for t in timed] + [at for _, at, tasks in stopped if at is not None and tasks]
    if not starts:
        return []
    origin = min(starts)  # type: ignore[type-var]
    rows = []
    for t in timed:
        attribution = made.get(t.key)
        tasks = attribution.tasks if attribution is not None and not t.waiting else ()
        lanes = _lanes_of(tasks) if tasks else [(WAIT if t.waiting else NO_TASK, WAIT if t.waiting else NO_TASK, None)]
        ms = (t.seconds or 0.0) * 1000
        for lane, node, task in lanes:
            failed = task is not None and task.failed
            rows.append({
                "lane": spelled(lane), "node": spelled(node), "step": t.step, "label": spelled(t.label),
                "start": (t.started - origin).total_seconds(), "end": (t.ended - origin).total_seconds(),
                "ms": round(ms, 3), "took": ms_text(ms), "failed": failed, "open": False,
                "cancelled": task is not None and task.cancelled, "outcome": _outcome(task),
                "colour": _colour(task, node, colours),
                "checkpoint": t.key[1], "ns": t.key[0], "selected": t.key == selected,
            })
    for key, at, tasks in stopped:
        if at is None:
            continue
        for lane, node, task in _lanes_of(tasks):
            start = (at - origin).total_seconds()
            cancelled = task is not None and task.cancelled
            rows.append({
                "lane": spelled(lane), "node": spelled(node), "step": None,
                "label": spelled(f"{node} {'cancelled' if cancelled else 'failed'}"),
                "start": start, "end": start, "ms": None, "took": "? (no checkpoint followed)", "failed": not cancelled,
                "cancelled": cancelled, "open": True, "outcome": f"{_outcome(task)}; the run stopped there",
                "colour": _colour(task, node, colours),
                "checkpoint": key[1], "ns": key[0], "selected": key == selected,
            })
    return rows


def lane_chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The Vega-Lite spec: a bar per task in its lane (a mark where a failed task has no end), coloured by node
    (red: failed; faded: cancelled), the selected step outlined, a tooltip naming the step, the task's lane, its
    milliseconds and its outcome."""
    lanes = list(dict.fromkeys(r["lane"] for r in rows))
    y = {"field": "lane", "type": "nominal", "title": None, "sort": lanes, "scale": {"domain": lanes}}
    x = {"field": "start", "type": "quantitative", "title": "seconds since the first step"}
    tooltip = [{"field": "step", "type": "quantitative"}, {"field": "label", "type": "nominal", "title": "ran"},
               {"field": "lane", "type": "nominal", "title": "task"}, {"field": "took", "type": "nominal"},
               {"field": "outcome", "type": "nominal"}]
    colour = {"field": "colour", "type": "nominal", "scale": None, "legend": None}
    outline = {"stroke": {"condition": {"test": "datum.selected", "value": "#111827"}, "value": None},
               "strokeWidth": {"condition": {"test": "datum.selected", "value": 2}, "value": 0},
               "opacity": {"condition": {"test": "datum.cancelled", "value": CANCELLED_OPACITY}, "value": 1}}
    bars = {
        "transform": [{"filter": "!datum.open"}],
        "mark": {"type": "bar", "cursor": "pointer"},
        "params": [{"name": SELECTION, "select": {"type": "point", "fields": ["checkpoint", "ns"], "on": "click",
                                                  "toggle": False, "clear": False}}],
        "encoding": {"y": y, "x": x, "x2": {"field": "end"}, "color": colour, **outline, "tooltip": tooltip},
    }
    stops = {
        "transform": [{"filter": "datum.open"}],
        "mark": {"type": "point", "shape": "triangle-right", "filled": True, "size": 120},
        "encoding": {"y": y, "x": x, "color": colour, "opacity": outline["opacity"], "tooltip": tooltip},
    }
    return {
        "height": LANE_PX * max(len(lanes), 1),  # the width fits the page; the height is the lanes' (axis on top)
        "autosize": {"type": "fit-x", "contains": "padding"},
        "data": {"values": rows or [{}]},
        "layer": [bars, stops],
    }
