"""The graph as the data shows it ran: nodes from the tasks the store recorded, edges from the transitions
actually taken between consecutive steps, with counts. It shows what ran, not the code's whole graph:
a node or edge the thread never took is not in it.

- Nodes: every task the attribution (``attribution``) names, by namespace: a subgraph's nodes form a
  cluster named by the node that ran it (its namespace ``node:task_id``, task ids folded).
- Edges: from each task of a step to each task of the next step on the same line of history that it
  triggered (``branch:to:NODE`` writes) or sent (``Send`` packets, drawn dashed); where a step's tasks
  wrote no trigger at all, to every task of the next step. A task whose step is the last of its run
  (no step follows) leads to ``__end__``. Counts are how many times each transition was taken.
- Marks: tasks that were interrupted (an ``__interrupt__`` write), failed (an ``__error__``) or cancelled
  (LangGraph stopped them when a sibling failed: their error a ``CancelledError``), and the nodes due next at
  the thread's newest checkpoint (``next_nodes``).
- Bounds: past ``MAX_NODES`` nodes, the busiest are drawn and the rest folded into one node that says how
  many it stands for (edges to them lead to it; transitions between two of them are counted, not drawn),
  so a thread of thousands of distinct node names draws as fast as one of three; building it costs time
  linear in the steps and their tasks (a step's transitions are grouped by drawn node, never paired task
  by task).

``infer_graph`` builds it from a ``History`` and every checkpoint's write keys; ``flow_dot.to_dot`` writes
it as Graphviz DOT; ``graph_json`` is the CLI's ``graph --json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from ..store import WriteKey
from .attribution import STEP, Attribution, attribute, next_nodes, pending_tasks
from .lineage import History, Key

END = "__end__"
START = "__start__"


def cluster_of(ns: str) -> str:
    """``research:3f2a…|fetch:9c1b…`` -> ``research/fetch`` (task ids folded: every run of a subgraph is one cluster)."""
    return "/".join(part.split(":", 1)[0] for part in ns.split("|")) if ns else ""


@dataclass
class GraphNode:
    name: str
    cluster: str  # "" for the root graph, else the subgraph path (``research``)
    runs: int = 0
    interrupted: int = 0
    failed: int = 0
    cancelled: int = 0
    fields: dict[str, int] = field(default_factory=dict)  # field -> times written
    due_next: bool = False

    @property
    def id(self) -> str:
        return f"{self.cluster}/{self.name}" if self.cluster else self.name


@dataclass
class GraphEdge:
    source: str  # node ids
    target: str
    count: int = 0
    kind: str = "trigger"  # "trigger" (branch:to:), "send" (Send), "sequence" (no trigger written)


@dataclass
class FlowGraph:
    nodes: dict[str, GraphNode]  # by id
    edges: dict[tuple[str, str, str], GraphEdge]
    clusters: dict[str, str]  # cluster -> the parent node that ran it
    steps: int = 0
    left_out: int = 0  # nodes not drawn one by one: folded into the node ``other``
    other: str | None = None  # the id of the node they are folded into
    hidden: int = 0  # transitions between two left-out nodes: not drawn, counted here
    folded: frozenset[str] = frozenset()  # the ids of the left-out nodes

    @property
    def total_nodes(self) -> int:
        """How many nodes ran, those left out included."""
        return len(self.nodes) - (self.other is not None) + self.left_out

    def node_ids(self, names: Iterable[str], cluster: str = "") -> list[str]:
        """The drawn nodes named ``names`` in ``cluster``: the fold's node for those left out."""
        wanted = set(names)
        ids = [n.id for n in self.nodes.values() if n.name in wanted and n.cluster == cluster and n.id != self.other]
        if self.other is not None and any(_id(name, cluster) in self.folded for name in wanted):
            ids.append(self.other)
        return ids


def _id(name: str, cluster: str) -> str:
    return f"{cluster}/{name}" if cluster else name


def _node(graph: FlowGraph, name: str, cluster: str) -> GraphNode:
    node_id = _id(name, cluster)
    if node_id not in graph.nodes:
        graph.nodes[node_id] = GraphNode(name, cluster)
    return graph.nodes[node_id]


@dataclass
class _Step:
    """One step's tasks and what ran after it (the next steps' node names), kept between the two passes."""

    cluster: str
    tasks: tuple[Any, ...]
    following: list[list[str]]
    sent: dict[str, tuple[str, ...]]  # task id -> the nodes it started with Send
    any_targets: bool


MAX_NODES = 40  # past this many, a graph draws the busiest nodes and folds the rest into one


def infer_graph(history: History, writes: Mapping[Key, Sequence[WriteKey]], max_nodes: int | None = MAX_NODES) -> FlowGraph:
    """The graph the thread ran, from its history and every checkpoint's write keys (``Store.write_keys``).

    Past ``max_nodes`` nodes (None: no bound), the busiest ``max_nodes - 1`` are kept and the rest folded into
    one node (``FlowGraph.other``) that edges to them lead to; transitions between two left-out nodes are
    counted (``FlowGraph.hidden``), not drawn. Time is linear in the steps and their tasks."""
    graph = FlowGraph({}, {}, {})
    made: dict[Key, Attribution] = {key: attribute(history, key, writes) for key in history.nodes}
    for ns in sorted({k[0] for k in history.nodes if k[0]}):  # in one order, whatever the hash seed
        outer, _, last = ns.rpartition("|")
        parent_node = last.split(":", 1)[0]
        graph.clusters.setdefault(cluster_of(ns), f"{cluster_of(outer)}/{parent_node}" if outer else parent_node)
    steps: list[_Step] = []
    for key, attribution in made.items():
        if attribution.made_by != STEP or not attribution.tasks:
            continue
        cluster = cluster_of(key[0])
        graph.steps += 1
        for task in attribution.tasks:
            node = _node(graph, task.node, cluster)
            node.runs += 1
            for name in task.fields:
                node.fields[name] = node.fields.get(name, 0) + 1
        following = [[t.node for t in made[c].tasks] for c in history.nodes[key].children
                     if c[0] == key[0] and made[c].made_by == STEP and made[c].tasks]
        if not following:  # tasks that ran from it without a checkpoint after them: interrupted, failed, running
            stopped = [t.node for t in pending_tasks(history, key, writes)
                       if t.kind != "update" and (t.fields or t.interrupted or t.errored)]
            following = [stopped] if stopped else []
        step = _Step(cluster, attribution.tasks, following, _sends_by_task(writes.get(history.nodes[key].parent, ())),
                     _any_targets(attribution))
        _targets(graph, step)
        steps.append(step)
    for key in history.nodes:
        for task in pending_tasks(history, key, writes):
            if task.interrupted or task.errored:
                node = _node(graph, task.node, cluster_of(key[0]))
                node.interrupted += task.interrupted
                node.failed += task.failed
                node.cancelled += task.cancelled
    head = history.head
    if head is not None:
        for name in next_nodes(history, head, writes):
            _node(graph, name, cluster_of(head[0])).due_next = True
    graph = _fold(graph, max_nodes)
    for step in steps:
        _edges(graph, step)
    return graph


def _sends_by_task(stored: Sequence[WriteKey]) -> dict[str, tuple[str, ...]]:
    """The nodes each task started with ``Send`` (its ``__pregel_tasks`` writes, stored with the step's writes)."""
    sent: dict[str, list[str]] = {}
    for write in stored:
        if write.send_to:
            sent.setdefault(write.task_id, []).append(write.send_to)
    return {task_id: tuple(names) for task_id, names in sent.items()}


def _any_targets(attribution: Attribution) -> bool:
    return any(t.triggers for t in attribution.tasks) or bool(attribution.sends)


def _untargeted(step: _Step, task: Any) -> bool:
    """A task that triggered and sent nothing: where no task of its step did, it leads to every next task."""
    return not task.triggers and not step.sent.get(task.task_id)


def _targets(graph: FlowGraph, step: _Step) -> None:
    """The nodes the step's edges lead to, made nodes of the graph (``__end__`` after a run's last step)."""
    if not step.following:
        if any(not task.interrupted and _untargeted(step, task) for task in step.tasks):
            _node(graph, END, step.cluster)
        return
    named = {name for task in step.tasks for name in (*task.triggers, *step.sent.get(task.task_id, ()))}
    everything = not step.any_targets and any(_untargeted(step, task) for task in step.tasks)
    for ran in step.following:
        for name in ran:
            if everything or name in named:
                _node(graph, name, step.cluster)


def _fold(graph: FlowGraph, max_nodes: int | None) -> FlowGraph:
    """``graph`` (no edges yet) with at most ``max_nodes`` nodes: the busiest (the root's start and end first,
    then by runs, then in the order they were met), and one node standing for the rest."""
    if max_nodes is None or len(graph.nodes) <= max_nodes:
        return graph
    order = {node_id: i for i, node_id in enumerate(graph.nodes)}
    ranked = sorted(graph.nodes.values(), key=lambda n: (not (n.name in (START, END) and not n.cluster), -n.runs,
                                                         order[n.id]))
    kept = {n.id for n in ranked[:max(max_nodes - 1, 1)]}
    left = [n for n in graph.nodes.values() if n.id not in kept]
    other = "__other_nodes__"
    while other in graph.nodes:
        other += "_"
    folded = GraphNode(f"{len(left):,} other nodes", "", runs=sum(n.runs for n in left),
                       interrupted=sum(n.interrupted for n in left), failed=sum(n.failed for n in left),
                       cancelled=sum(n.cancelled for n in left))
    nodes = {node_id: node for node_id, node in graph.nodes.items() if node_id in kept}
    nodes[other] = folded
    shown = {n.cluster for n in nodes.values() if n.cluster}
    shown |= {c.rsplit("/", i)[0] for c in shown for i in range(1, c.count("/") + 1)}
    clusters = {c: parent for c, parent in graph.clusters.items() if c in shown}
    return FlowGraph(nodes, {}, clusters, graph.steps, len(left), other, 0, frozenset(n.id for n in left))


def _edges(graph: FlowGraph, step: _Step) -> None:
    """The step's transitions as edges between drawn nodes, counted: from each task to each next task it
    triggered or sent, or (no task of the step triggered anything) to every next task; ``__end__`` after a
    run's last step. Grouped by drawn node, so a step of many tasks costs its tasks, not their pairs."""
    def drawn(name: str) -> str:
        node_id = _id(name, step.cluster)
        return node_id if node_id in graph.nodes and node_id != graph.other else graph.other or node_id

    if not step.following:
        for task in step.tasks:
            if not task.interrupted and _untargeted(step, task):
                _add(graph, drawn(task.node), drawn(END), "trigger", 1)
        return
    sends: dict[str, dict[str, int]] = {}  # target name -> drawn source -> tasks
    triggers: dict[str, dict[str, int]] = {}
    everywhere: dict[str, int] = {}
    for task in step.tasks:
        source = drawn(task.node)
        sent = dict.fromkeys(step.sent.get(task.task_id, ()))
        for name in sent:
            _count(sends.setdefault(name, {}), source, 1)
        for name in dict.fromkeys(task.triggers):
            if name not in sent:
                _count(triggers.setdefault(name, {}), source, 1)
        if not step.any_targets and _untargeted(step, task):
            _count(everywhere, source, 1)
    for ran in step.following:
        times: dict[str, int] = {}
        for name in ran:
            _count(times, name, 1)
        targets: dict[str, int] = {}
        for name, n in times.items():
            target = drawn(name)
            for source, tasks in sends.get(name, {}).items():
                _add(graph, source, target, "send", tasks * n)
            for source, tasks in triggers.get(name, {}).items():
                _add(graph, source, target, "trigger", tasks * n)
            _count(targets, target, n)
        for source, tasks in everywhere.items():
            for target, n in targets.items():
                _add(graph, source, target, "sequence", tasks * n)


def _count(counts: dict[str, int], key: str, n: int) -> None:
    counts[key] = counts.get(key, 0) + n


def _add(graph: FlowGraph, source: str, target: str, kind: str, count: int) -> None:
    if source == target == graph.other:
        graph.hidden += count
        return
    graph.edges.setdefault((source, target, kind), GraphEdge(source, target, 0, kind)).count += count


def left_out_text(graph: FlowGraph) -> str:
    """What a folded graph leaves out, in one sentence ("" when every node is drawn)."""
    if not graph.left_out:
        return ""
    text = (f"the {len(graph.nodes) - 1:,} busiest of {graph.total_nodes:,} nodes drawn; the other {graph.left_out:,} "
            "are folded into one node, which edges to them lead to")
    if graph.hidden:
        text += f" ({graph.hidden:,} transition(s) between two of them not drawn)"
    return text


def graph_json(graph: FlowGraph) -> dict[str, Any]:
    """The graph as plain data: nodes (runs, interrupts, failures, cancellations, fields written), edges with counts, clusters."""
    data: dict[str, Any] = {
        "shows": "what ran in this thread, inferred from its stored writes; not the code's whole graph",
        "steps": graph.steps,
        "nodes": [{"id": n.id, "name": n.name, "subgraph": n.cluster or None, "runs": n.runs,
                   "interrupted": n.interrupted, "failed": n.failed, "cancelled": n.cancelled, "wrote": n.fields,
                   "next": n.due_next}
                  | ({"left_out_nodes": graph.left_out} if n.id == graph.other else {})
                  for n in graph.nodes.values()],
        "edges": [{"from": e.source, "to": e.target, "count": e.count, "kind": e.kind} for e in graph.edges.values()],
        "subgraphs": [{"subgraph": c, "run_by": p} for c, p in sorted(graph.clusters.items())],
    }
    if graph.left_out:
        data["left_out"] = {"nodes": graph.left_out, "of": graph.total_nodes, "folded_into": graph.other,
                            "transitions_not_drawn": graph.hidden, "says": left_out_text(graph)}
    return data
