"""The flow graphs as Graphviz DOT: the aggregated graph (``flow_graph``: each node once, loops with their counts)
and the expanded one (``step_graph``: the steps of a page in the order they ran).

Every name from the data is quoted and escaped (text stays text); ids of the expanded graph and every class are
made here. Nodes are filled with a light tint of their node's colour and outlined in it (``node_colours``: the
same colour as on every other surface); the lit node(s) are filled with it and outlined in black.

Each drawn node carries a class of its own (``n3`` in the aggregated graph; ``k2``, the page's third step, in the
expanded one) and each edge the classes of its ends (``from-n3 to-n5``), so a page can light the nodes of a step
with a style (``lit_style``) while the graph's DOT, and so its layout, stays the same from step to step: Play
redraws no graph and no node moves.

Sizes are in points; a browser draws the graph scaled to its panel, so what decides the text's size on screen is
the graph's width against the panel's: ``direction`` "TB" (top to bottom) keeps a graph narrow where its panel is.
"""

from __future__ import annotations

from typing import Iterable

from .flow_graph import END, START, FlowGraph, GraphNode, left_out_text
from .node_colours import ENDS, FAILED, NO_NODE, NodeColours, node_colours
from .step_graph import StepGraph

HIGHLIGHT = "#f59e0b"  # the CLI's note of what the lit step wrote
LIT_OUTLINE = "#111827"
WIDE_NODES = 14  # up to this many nodes, the CLI's graph is laid out left to right
NODE_PT, EDGE_PT, LABEL_PT = 14, 11, 12  # the fonts' sizes (``page_css.GRAPH_TEXT`` draws them at these sizes)
TINT = "40"  # the alpha of a node's fill: a quarter of its colour


def _quote(text: str) -> str:
    """A DOT quoted string: backslashes and quotes escaped, line breaks and control characters dropped."""
    cleaned = "".join(ch if ch.isprintable() else " " for ch in str(text))
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(lines: Iterable[str]) -> str:
    """A DOT quoted label of several lines, joined by DOT's ``\\n``."""
    return "\"" + "\\n".join(_quote(line)[1:-1] for line in lines) + "\""


def _head(direction: str, heading: str) -> list[str]:
    return ["digraph flow {",
            f'  graph [rankdir={direction}, fontname="Helvetica", fontsize={LABEL_PT}, nodesep=0.25, ranksep=0.4'
            + (f", label={_label(heading.splitlines())}, labelloc=t" if heading else "") + "];",
            f'  node [shape=box, style="rounded,filled", fillcolor="#f8fafc", color="#64748b", fontname="Helvetica", '
            f'fontsize={NODE_PT}, height=0.3, margin="0.12,0.04"];',
            f'  edge [color="#64748b", fontname="Helvetica", fontsize={EDGE_PT}, arrowsize=0.6];']


def _paint(colour: str, lit: bool) -> list[str]:
    if lit:
        return [f'fillcolor="{colour}"', f'color="{LIT_OUTLINE}"', "penwidth=3"]
    return [f'fillcolor="{colour}{TINT}"', f'color="{colour}"', "penwidth=1.5"]


def graph_classes(graph: FlowGraph) -> dict[str, str]:
    """Each drawn node's class (``n0``, ``n1``, ...) by its id, in the graph's order."""
    return {node_id: f"n{i}" for i, node_id in enumerate(graph.nodes)}


def to_dot(graph: FlowGraph, highlight: Iterable[str] = (), wrote: Iterable[str] = (), title: str = "",
           colours: NodeColours | None = None, direction: str | None = None) -> str:
    """Graphviz DOT of the aggregated graph: subgraphs as clusters, edge labels the counts (``×3``), sends dashed,
    transitions no trigger named dotted, interrupted nodes double-bordered, failed ones outlined in red (cancelled
    ones counted in their label), nodes due next dashed; nodes in their colours (``colours``: the thread's); the
    node ids in ``highlight`` lit, with the fields in ``wrote`` in a note beside them (the CLI's; a page says them
    beside the graph, which keeps its layout). ``direction``: "TB" or "LR"; by default left to right up to
    ``WIDE_NODES`` nodes, else top down."""
    highlight, wrote = set(highlight), list(dict.fromkeys(wrote))
    colours = colours or node_colours(n.name for n in graph.nodes.values())
    direction = direction or ("LR" if len(graph.nodes) <= WIDE_NODES else "TB")
    heading = "\n".join(line for line in (title, left_out_text(graph)) if line)
    lines = _head(direction, heading)
    classes = graph_classes(graph)

    def node_line(node_id: str, node: GraphNode, indent: str) -> str:  # by its key: the fold's is ``graph.other``
        label = [node.name]
        extra = []
        ends = node.name in (START, END) and node_id != graph.other
        if node.runs:
            label.append(f"×{node.runs}")
        if node.interrupted:
            label.append(f"interrupted ×{node.interrupted}")
            extra.append("peripheries=2")
        if node.failed:
            label.append(f"failed ×{node.failed}")
        if node.cancelled:
            label.append(f"cancelled ×{node.cancelled}")
        if node.due_next:
            label.append("next")
        if ends:
            extra.append("shape=oval")
        colour = ENDS if ends else NO_NODE if node_id == graph.other else colours(node.name)
        extra += _paint(colour, node_id in highlight)
        if node.failed:
            extra.append(f'color="{FAILED}"')
        if node.due_next or node_id == graph.other:
            extra.append('style="rounded,filled,dashed"')
        extra.append(f"class={_quote(classes[node_id])}")
        return f"{indent}{_quote(node_id)} [label={_label(label)}, {', '.join(extra)}];"

    by_cluster: dict[str, list[tuple[str, GraphNode]]] = {}
    for node_id, node in graph.nodes.items():
        by_cluster.setdefault(node.cluster, []).append((node_id, node))
    names = sorted(c for c in set(by_cluster) | set(graph.clusters) if c)
    numbers = {c: i for i, c in enumerate(names)}

    def emit(cluster: str, indent: str) -> None:  # a subgraph's cluster drawn inside the one that ran it
        for node_id, node in by_cluster.get(cluster, []):
            lines.append(node_line(node_id, node, indent))
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
            attrs.append(f'color="{LIT_OUTLINE}", penwidth=1.6')
        attrs.append(f"class={_quote(f'from-{classes[edge.source]} to-{classes[edge.target]}')}")
        lines.append(f"  {_quote(edge.source)} -> {_quote(edge.target)} [{', '.join(attrs)}];")
    for cluster, parent in graph.clusters.items():  # the node that ran a subgraph leads into it
        inner = next((node_id for node_id, n in by_cluster.get(cluster, []) if n.name == START), None)
        if inner is not None and parent in graph.nodes:
            lines.append(f'  {_quote(parent)} -> {_quote(inner)} [style=dotted, arrowhead=none, color="#94a3b8"];')
    if wrote and highlight:
        lines.append(f'  "__wrote__" [shape=note, fillcolor="#fef3c7", color="{HIGHLIGHT}", '
                     f'label={_quote("wrote: " + ", ".join(wrote))}];')
        for node_id in sorted(highlight):
            if node_id in graph.nodes:
                lines.append(f'  {_quote(node_id)} -> "__wrote__" [style=dotted, arrowhead=none, color="{HIGHLIGHT}"];')
    lines.append("}")
    return "\n".join(lines)


def steps_dot(graph: StepGraph, colours: NodeColours, lit: int | None = None, direction: str = "TB") -> str:
    """Graphviz DOT of the expanded graph: each step's task nodes in their node's colour (a failed one outlined
    in red, an interrupted one double-bordered), inputs and updates grey, the steps before and after the page
    dashed; step ``lit`` of the page lit. Every node of step ``i`` has the class ``k{i}``."""
    lines = _head(direction, "")
    for node in graph.nodes:
        colour = NO_NODE if node.node is None else colours(node.node)
        extra = [f"class={_quote(f'k{node.step}')}", *_paint(colour, node.step == lit and not node.fold)]
        if node.fold:
            extra.append('style="rounded,filled,dashed"')
        if node.interrupted:
            extra.append("peripheries=2")
        if node.failed:
            extra.append(f'color="{FAILED}"')
        lines.append(f"  {node.id} [label={_label(node.lines)}, {', '.join(extra)}];")
    for source, target in graph.edges:
        lines.append(f"  {source} -> {target};")
    lines.append("}")
    return "\n".join(lines)


def lit_style(scope: str, classes: Iterable[str]) -> str:
    """CSS lighting the nodes of ``classes`` (their fill at full strength, a black outline, bold names) and the
    edges at them, in the graph drawn inside the element whose class is ``scope``; made of our own names only."""
    rules = []
    for cls in classes:
        rules.append(f".{scope} g.node.{cls} > :is(path, polygon, ellipse) {{fill-opacity: 1; stroke: {LIT_OUTLINE}; "
                     "stroke-width: 3px;}")
        rules.append(f".{scope} g.node.{cls} text {{font-weight: 700;}}")
        rules.append(f".{scope} g.edge:is(.from-{cls}, .to-{cls}) > path {{stroke: {LIT_OUTLINE}; stroke-width: 2px;}}")
        rules.append(f".{scope} g.edge:is(.from-{cls}, .to-{cls}) > polygon {{fill: {LIT_OUTLINE}; stroke: {LIT_OUTLINE};}}")
    return " ".join(rules)
