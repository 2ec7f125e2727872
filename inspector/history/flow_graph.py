"""The graph as the data shows it ran: nodes from the tasks the store recorded, edges from the transitions
actually taken between consecutive steps, with counts. It shows what ran, not the code's whole graph:
a node or edge the thread never took is not in it.

- Nodes: every task the attribution (``attribution``) names, by namespace: a subgraph's nodes form a
  cluster named by the node that ran it (its namespace ``node:task_id``, task ids folded).
- Edges: from each task of a step to each task of the next step on the same line of history that it
  triggered (``branch:to:NODE`` writes) or sent (``Send`` packets, drawn dashed); where a step's tasks
  wrote no trigger at all, to every task of the next step. A task whose step is the last of its run
  (no step follows) leads to ``__end__``. Counts are how many times each transition was taken.
- Marks: tasks that were interrupted (an ``__interrupt__`` write) or failed (``__error__``), and the
  nodes due next at the thread's newest checkpoint (``next_nodes``).

``infer_graph`` builds it from a ``History`` and every checkpoint's write keys; ``to_dot`` writes
Graphviz DOT (every name quoted and escaped: text from the data stays text), with the nodes of one
step and the fields they wrote highlighted; ``graph_json`` is the CLI's ``graph --json``.
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

    def node_ids(self, names: Iterable[str], cluster: str = "") -> list[str]:
        wanted = set(names)
        return [n.id for n in self.nodes.values() if n.name in wanted and n.cluster == cluster]


def _node(graph: FlowGraph, name: str, cluster: str) -> GraphNode:
    node_id = f"{cluster}/{name}" if cluster else name
    if node_id not in graph.nodes:
        graph.nodes[node_id] = GraphNode(name, cluster)
    return graph.nodes[node_id]


def _edge(graph: FlowGraph, source: GraphNode, target: GraphNode, kind: str) -> None:
    key = (source.id, target.id, kind)
    graph.edges.setdefault(key, GraphEdge(source.id, target.id, 0, kind)).count += 1


def infer_graph(history: History, writes: Mapping[Key, Sequence[WriteKey]]) -> FlowGraph:
    """The graph the thread ran, from its history and every checkpoint's write keys (``Store.write_keys``)."""
    graph = FlowGraph({}, {}, {})
    made: dict[Key, Attribution] = {key: attribute(history, key, writes) for key in history.nodes}
    for ns in sorted({k[0] for k in history.nodes if k[0]}):  # in one order, whatever the hash seed
        outer, _, last = ns.rpartition("|")
        parent_node = last.split(":", 1)[0]
        graph.clusters.setdefault(cluster_of(ns), f"{cluster_of(outer)}/{parent_node}" if outer else parent_node)
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
                       if t.kind != "update" and (t.fields or t.interrupted or t.failed)]
            following = [stopped] if stopped else []
        for task in attribution.tasks:
            source = _node(graph, task.node, cluster)
            sent = _sent_by(task, writes.get(history.nodes[key].parent, ()))
            if not following:
                if not task.interrupted and not task.triggers and not sent:
                    _edge(graph, source, _node(graph, END, cluster), "trigger")
                continue
            for ran in following:
                targets = set(task.triggers) | set(sent)
                for name in ran:
                    if name in sent:
                        _edge(graph, source, _node(graph, name, cluster), "send")
                    elif name in task.triggers or (not targets and not _any_targets(attribution)):
                        _edge(graph, source, _node(graph, name, cluster),
                              "trigger" if name in task.triggers else "sequence")
    for key in history.nodes:
        for task in pending_tasks(history, key, writes):
            if task.interrupted or task.failed:
                node = _node(graph, task.node, cluster_of(key[0]))
                node.interrupted += task.interrupted
                node.failed += task.failed
    head = history.head
    if head is not None:
        for name in next_nodes(history, head, writes):
            _node(graph, name, cluster_of(head[0])).due_next = True
    return graph


def _sent_by(task: Any, stored: Sequence[WriteKey]) -> list[str]:
    """The nodes ``task`` started with ``Send`` (its ``__pregel_tasks`` writes, stored with the step's writes)."""
    return [w.send_to for w in stored if w.task_id == task.task_id and w.send_to]


def _any_targets(attribution: Attribution) -> bool:
    return any(t.triggers for t in attribution.tasks) or bool(attribution.sends)


def _quote(text: str) -> str:
    """A DOT quoted string: backslashes and quotes escaped, line breaks and control characters dropped."""
    cleaned = "".join(ch if ch.isprintable() else " " for ch in str(text))
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


HIGHLIGHT = "#f59e0b"
WIDE_NODES = 14  # up to this many nodes, the graph is laid out left to right


def to_dot(graph: FlowGraph, highlight: Iterable[str] = (), wrote: Iterable[str] = (), title: str = "") -> str:
    """Graphviz DOT of the graph: left to right (top down past ``WIDE_NODES``), subgraphs as clusters,
    edge labels the counts (``×3``), sends dashed, transitions no trigger named dotted, interrupted nodes
    double-bordered, nodes due next dashed; the node ids in ``highlight`` filled, with the fields in
    ``wrote`` listed beside them."""
    highlight, wrote = set(highlight), list(dict.fromkeys(wrote))
    # a few nodes read best left to right; a long chain laid out that way shrinks to fit the page: top down
    direction = "LR" if len(graph.nodes) <= WIDE_NODES else "TB"
    lines = ["digraph flow {", f'  graph [rankdir={direction}, fontname="Helvetica", fontsize=11, nodesep=0.25, ranksep=0.45'
             + (f", label={_quote(title)}, labelloc=t" if title else "") + "];",
             '  node [shape=box, style="rounded,filled", fillcolor="#f8fafc", color="#64748b", fontname="Helvetica", '
             'fontsize=11, height=0.3];',
             '  edge [color="#64748b", fontname="Helvetica", fontsize=9, arrowsize=0.6];']

    def node_line(node: GraphNode, indent: str) -> str:
        label = [node.name]
        extra = []
        if node.runs:
            label.append(f"×{node.runs}")
        if node.interrupted:
            label.append(f"interrupted ×{node.interrupted}")
            extra.append("peripheries=2")
        if node.failed:
            label.append(f"failed ×{node.failed}")
            extra.append('color="#dc2626"')
        if node.due_next:
            label.append("next")
            extra.append('style="rounded,filled,dashed"')
        if node.name in (START, END):
            extra.append('shape=oval, fillcolor="#e2e8f0"')
        if node.id in highlight:
            extra.append(f'fillcolor="{HIGHLIGHT}", penwidth=2')
        label_text = "\"" + "\\n".join(_quote(line)[1:-1] for line in label) + "\""  # lines joined by DOT's \n
        return f"{indent}{_quote(node.id)} [label={label_text}{', ' if extra else ''}{', '.join(extra)}];"

    by_cluster: dict[str, list[GraphNode]] = {}
    for node in graph.nodes.values():
        by_cluster.setdefault(node.cluster, []).append(node)
    names = sorted(c for c in set(by_cluster) | set(graph.clusters) if c)
    numbers = {c: i for i, c in enumerate(names)}

    def emit(cluster: str, indent: str) -> None:  # a subgraph's cluster drawn inside the one that ran it
        for node in by_cluster.get(cluster, []):
            lines.append(node_line(node, indent))
        for inner in (c for c in names if c.rpartition("/")[0] == cluster):
            run_by = graph.clusters.get(inner, "?").rpartition("/")[2]
            lines.append(f"{indent}subgraph cluster_{numbers[inner]} {{")
            lines.append(f'{indent}  label={_quote("subgraph " + inner.rpartition("/")[2] + " (run by node " + run_by + ")")};'
                         ' style="rounded,dashed"; color="#94a3b8";')
            emit(inner, indent + "  ")
            lines.append(f"{indent}}}")

    emit("", "  ")
    for edge in graph.edges.values():
        attrs = [f"label={_quote('×' + str(edge.count))}"]
        if edge.kind == "send":
            attrs.append("style=dashed")
        if edge.kind == "sequence":
            attrs.append('style=dotted')
        if edge.source in highlight or edge.target in highlight:
            attrs.append(f'color="{HIGHLIGHT}", penwidth=1.6')
        lines.append(f"  {_quote(edge.source)} -> {_quote(edge.target)} [{', '.join(attrs)}];")
    for cluster, parent in graph.clusters.items():  # the node that ran a subgraph leads into it
        inner = next((n for n in by_cluster.get(cluster, []) if n.name == START), None)
        outer = graph.nodes.get(parent)
        if inner is not None and outer is not None:
            lines.append(f'  {_quote(outer.id)} -> {_quote(inner.id)} [style=dotted, arrowhead=none, color="#94a3b8"];')
    if wrote and highlight:
        lines.append(f'  "__wrote__" [shape=note, fillcolor="#fef3c7", color="{HIGHLIGHT}", '
                     f'label={_quote("wrote: " + ", ".join(wrote))}];')
        for node_id in sorted(highlight):
            if node_id in graph.nodes:
                lines.append(f'  {_quote(node_id)} -> "__wrote__" [style=dotted, arrowhead=none, color="{HIGHLIGHT}"];')
    lines.append("}")
    return "\n".join(lines)


def graph_json(graph: FlowGraph) -> dict[str, Any]:
    """The graph as plain data: nodes (runs, interrupts, fields written), edges with counts, clusters."""
    return {
        "shows": "what ran in this thread, inferred from its stored writes; not the code's whole graph",
        "steps": graph.steps,
        "nodes": [{"id": n.id, "name": n.name, "subgraph": n.cluster or None, "runs": n.runs,
                   "interrupted": n.interrupted, "failed": n.failed, "wrote": n.fields, "next": n.due_next}
                  for n in graph.nodes.values()],
        "edges": [{"from": e.source, "to": e.target, "count": e.count, "kind": e.kind} for e in graph.edges.values()],
        "subgraphs": [{"subgraph": c, "run_by": p} for c, p in sorted(graph.clusters.items())],
    }
