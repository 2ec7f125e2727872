"""The graph expanded: the steps of one line of history in the order they ran, a node per task, as Langfuse's
agent graph draws a trace when its loops are not folded (``flow_graph`` is the aggregated view: each node once,
a loop drawn with its count).

The line of history (``History.path_through``) is cut into pages of ``STEPS_PER_PAGE`` steps counted from its
first checkpoint, and the page holding the selected step is drawn: moving within a page changes only which
nodes are lit, never the layout, and a page costs the attributions of its own steps. A step is its tasks (a
``Send`` fan-out side by side; past ``TASKS_PER_STEP`` of them, the rest as one node saying how many), or one
node naming what made it when no task did (an input, an update, a fork). Each step leads to the next; the steps
before and after the page are one node each, saying how many. So a page draws at most
``STEPS_PER_PAGE * TASKS_PER_STEP + 2`` nodes, within ``flow_graph.MAX_NODES``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from .attribution import STEP, Attribution
from .checkpoint_kinds import step_label
from .lineage import History, Key

STEPS_PER_PAGE = 9
TASKS_PER_STEP = 4  # drawn one by one; past this many, the last drawn node stands for the rest


@dataclass(frozen=True)
class StepNode:
    id: str  # the node's DOT id (made here, never from the data)
    lines: tuple[str, ...]  # its label: ``7 · agent``, ``interrupted``
    node: str | None  # the graph node whose task it is (None: an input, an update, a fold)
    step: int  # which step of the page it belongs to (-1: before it, STEPS_PER_PAGE: after it)
    failed: bool = False
    interrupted: bool = False
    fold: bool = False  # the steps before or after the page, or a step's further tasks


@dataclass
class StepGraph:
    nodes: list[StepNode]
    edges: list[tuple[str, str]] = field(default_factory=list)
    keys: list[Key] = field(default_factory=list)  # the page's checkpoints, oldest first: step i is keys[i]
    page: int = 0
    pages: int = 1
    path_length: int = 0

    def step_of(self, key: Key) -> int | None:
        """Which step of the page ``key`` is (None: not on it)."""
        return self.keys.index(key) if key in self.keys else None


def page_keys(history: History, key: Key, per_page: int = STEPS_PER_PAGE) -> tuple[list[Key], int, int, int]:
    """The page of ``key``'s line of history holding ``key``: its keys, the page's index, the pages, the line's
    length."""
    path = history.path_through(key)
    page = path.index(key) // per_page
    return path[page * per_page: (page + 1) * per_page], page, max(1, -(-len(path) // per_page)), len(path)


def step_graph(history: History, key: Key, made: Mapping[Key, Attribution],
               per_page: int = STEPS_PER_PAGE) -> StepGraph:
    """The page of ``key``'s line of history as a graph of its steps (``made``: the attributions of the page's
    checkpoints, ``page_keys``)."""
    keys, page, pages, length = page_keys(history, key, per_page)
    graph = StepGraph([], [], keys, page, pages, length)
    before = page * per_page
    after = length - before - len(keys)
    previous: list[str] = []
    if before:
        graph.nodes.append(StepNode("earlier", (f"{before:,} earlier step(s)",), None, -1, fold=True))
        previous = ["earlier"]
    for i, k in enumerate(keys):
        ids = []
        attribution = made.get(k)
        step = history.node(k).row.step
        number = "?" if step is None else str(step)
        tasks = attribution.tasks if attribution is not None and attribution.made_by == STEP else ()
        if not tasks:  # named as the tree names it: an input, an update, the app's own kind of checkpoint
            ids.append(f"s{i}")
            graph.nodes.append(StepNode(f"s{i}", (f"{number} · {step_label(history, k, attribution).split(' · ', 1)[-1]}",),
                                        None, i))
        drawn = tasks if len(tasks) <= TASKS_PER_STEP else tasks[:TASKS_PER_STEP - 1]
        for j, task in enumerate(drawn):
            lines = [f"{number} · {task.node}"]
            if task.interrupted:
                lines.append("interrupted")
            if task.failed:
                lines.append("failed")
            if task.cancelled:
                lines.append("cancelled")
            ids.append(f"s{i}t{j}")
            graph.nodes.append(StepNode(f"s{i}t{j}", tuple(lines), task.node, i, task.failed, task.interrupted))
        if len(drawn) < len(tasks):
            ids.append(f"s{i}more")
            graph.nodes.append(StepNode(f"s{i}more", (f"{number} · {len(tasks) - len(drawn):,} more task(s)",),
                                        None, i, fold=True))
        graph.edges.extend((a, b) for a in previous for b in ids)
        previous = ids
    if after:
        graph.nodes.append(StepNode("later", (f"{after:,} later step(s)",), None, per_page, fold=True))
        graph.edges.extend((a, "later") for a in previous)
    return graph
