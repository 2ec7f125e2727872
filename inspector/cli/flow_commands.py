"""Commands that show a thread's flow: ``graph`` (the graph as it ran, DOT or JSON)."""

from __future__ import annotations

import argparse

from ..history.attribution import attribute
from ..history.flow_dot import to_dot
from ..history.flow_graph import MAX_NODES, cluster_of, graph_json, infer_graph
from ..history.lineage import build_history
from ..history.node_colours import thread_colours
from ..store.records import checkpoint_not_found
from .output import masked, masked_name, print_json
from .store_commands import THREAD_HELP, add_store_args, open_from_args


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="the graph a thread ran, inferred from its stored writes (DOT, or --json)",
                       description="Nodes from the tasks the store recorded, edges from the transitions taken "
                                   "between consecutive steps, with counts. It shows what ran, not the code's "
                                   "whole graph. Past --max-nodes nodes, the busiest are drawn and the rest "
                                   "folded into one node that says how many it stands for. Prints Graphviz DOT "
                                   "(render with `dot -Tsvg`) or --json.")
    add_store_args(p)
    p.add_argument("thread", help=THREAD_HELP)
    p.add_argument("--checkpoint", metavar="ID", help="highlight the node(s) that produced this checkpoint")
    p.add_argument("--ns", default="", help="the checkpoint's namespace (default: the root graph)")
    p.add_argument("--max-nodes", type=_positive, default=MAX_NODES, metavar="N",
                   help=f"draw at most N nodes: the busiest, the rest folded into one node (default {MAX_NODES})")
    p.set_defaults(handler=cmd_graph)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 2, got {text[:40]!r}")
    return value


def cmd_graph(args: argparse.Namespace) -> int:
    with open_from_args(args) as store:
        keys = store.timeline_keys(args.thread)
        if args.ns and not args.checkpoint and all(row.checkpoint_ns != args.ns for row in keys):
            raise checkpoint_not_found(args.thread, None, args.ns)  # as state, diff and replay answer
        history = build_history(masked(keys))  # stored namespaces: --ns and --checkpoint name them
        writes = masked(store.write_keys(args.thread, list(history.nodes)))
        key = None
        if args.checkpoint:
            key = history.find(args.checkpoint, args.ns)
            if key is None:
                raise checkpoint_not_found(args.thread, args.checkpoint, args.ns)
    # the graph is drawn from the history with its names masked (a subgraph's cluster is named by its namespace)
    shown_rows = masked(keys, names=True)
    shown = build_history(shown_rows)
    shown_writes = {(masked_name(ns), checkpoint): found for (ns, checkpoint), found in writes.items()}
    graph = infer_graph(shown, shown_writes, args.max_nodes)
    if key is not None:
        key = (masked_name(key[0]), key[1])
        made = attribute(shown, key, shown_writes)
    if args.json:
        payload = graph_json(graph)
        if key is not None:
            payload["highlight"] = {"checkpoint": key[1], "ns": key[0], "label": made.label,
                                    "nodes": graph.node_ids(made.nodes, cluster_of(key[0])), "wrote": list(made.fields)}
        print_json(payload, keys=False)  # names and counts, read masked: a count under a secret's name is a count
        return 0
    highlight = graph.node_ids(made.nodes, cluster_of(key[0])) if key is not None else []
    print(to_dot(graph, highlight, made.fields if key is not None else (),
                 title=f"thread {args.thread}: what ran (from the stored writes), not the code's whole graph",
                 colours=thread_colours(shown_rows)))
    return 0
