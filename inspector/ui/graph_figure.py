"""The graph as the Graph panel and Play's frames draw it: aggregated (each node once, a loop drawn once with its
count: ``flow_graph``) or expanded (the steps of a page in the order they ran: ``step_graph``), top to bottom so
it fits a column, in the thread's node colours.

A figure is the graph's DOT, which does not depend on the selected step (the aggregated graph is the thread's, the
expanded one its page's), and the classes of the selected step's nodes, which a style lights (``flow_dot``): the
browser lays the graph out once and moving from step to step, or playing, only lights other nodes. The choice
of mode is kept in the URL (``?graph=expanded``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st

from ..history.flow_dot import graph_classes, lit_style, steps_dot, to_dot
from ..history.flow_graph import cluster_of, left_out_text
from ..history.lineage import Key
from ..history.step_graph import STEPS_PER_PAGE, page_keys, step_graph
from . import data, routes
from .inert import literal

MODE_KEY = "graph_mode"
MODE_PARAM = routes.GRAPH_MODE_PARAM
AGGREGATED, EXPANDED = "Aggregated", "Expanded"
MODES = (AGGREGATED, EXPANDED)
MODE_HELP = ("Aggregated: every node once, a loop drawn once with how many times it ran. Expanded: the steps in "
             f"the order they ran, {STEPS_PER_PAGE} at a time, a node per task.")
REM_PER_NODE = 8  # the most height a graph takes per node it draws (about 1.5x Graphviz's own size)
SCOPE = "st-key-flow-graph"  # the class of the container the graph is drawn in (key ``flow-graph``)
CONTAINER_KEY = "flow-graph"


@dataclass(frozen=True)
class Figure:
    dot: str  # the same for every step of the thread (aggregated) or of the page (expanded)
    lit: tuple[str, ...]  # the classes of the selected step's nodes
    caption: str  # what is lit
    notes: list[str] = field(default_factory=list)  # what the figure leaves out, its counts
    nodes: int = 0  # how many nodes it draws (at most that many ranks top to bottom)

    @property
    def style(self) -> str:
        """The CSS lighting the selected step's nodes in the graph drawn in ``CONTAINER_KEY``, and a height that
        keeps a graph of a few nodes from being blown up to the panel's width (``REM_PER_NODE`` per node; the
        presenter view sizes it to the screen)."""
        cap = f"div.{SCOPE} svg {{max-height: min(80vh, {max(self.nodes, 2) * REM_PER_NODE}rem);}}" if self.nodes else ""
        return " ".join(rule for rule in (lit_style(SCOPE, self.lit), cap) if rule)


def mode_choice(label_visibility: str = "visible") -> str:
    """The aggregated / expanded choice (kept in the URL)."""
    problem = routes.bind_choice(MODE_KEY, MODE_PARAM, AGGREGATED, MODES, "graph modes")
    if problem:
        st.warning(literal(problem), icon=":material/link_off:")
    chosen = st.segmented_control("Graph", MODES, key=MODE_KEY, help=MODE_HELP,
                                  label_visibility=label_visibility) or AGGREGATED
    routes.keep(MODE_KEY, MODE_PARAM, chosen.lower(), AGGREGATED.lower())
    return chosen


def mode() -> str:
    """The mode chosen (the URL's when its control is not drawn in this run)."""
    chosen = st.session_state.get(MODE_KEY) or st.query_params.get(MODE_PARAM, "")
    return EXPANDED if str(chosen).lower() == EXPANDED.lower() else AGGREGATED


def figure(store, thread_id: str, key: Key, chosen: str, direction: str = "TB") -> Figure | None:
    """The graph of ``thread_id`` in mode ``chosen`` with ``key``'s step to light; None where no task of the
    thread stored a write (there is no step to draw)."""
    if chosen == EXPANDED:
        return _expanded(store, thread_id, key, direction)
    from .flow_data import shown_key, whole_thread

    thread = data.thread_history(store, thread_id)
    graph, every, _ = whole_thread(store, thread_id)  # names masked (a subgraph's cluster names its namespace)
    if not graph.nodes:
        return None
    key = shown_key(key)
    made = every.get(key)
    highlight = graph.node_ids(made.nodes, cluster_of(key[0])) if made else []
    classes = graph_classes(graph)
    dot = to_dot(graph, colours=thread.node_colours(), direction=direction)
    folded = " (among the nodes left out)" if graph.other in highlight else ""
    notes = []
    if graph.left_out:
        notes.append(f"A graph of {graph.total_nodes:,} nodes: {left_out_text(graph)} (the CLI's graph --max-nodes N "
                     "draws more).")
    return Figure(dot, tuple(classes[n] for n in highlight if n in classes),
                  f"Lit: step {made.label}{folded}" if made is not None else "", notes, len(graph.nodes))


def _expanded(store, thread_id: str, key: Key, direction: str) -> Figure:
    thread = data.thread_history(store, thread_id)
    history = thread.history
    keys, page, pages, length = page_keys(history, key)
    thread.complete(store, keys)  # a step no task made is named by its kind, from its full row
    made = thread.attributions(store, keys)
    graph = step_graph(history, key, made)
    lit = graph.step_of(key)
    notes = [f"Steps {page * STEPS_PER_PAGE + 1:,} to {page * STEPS_PER_PAGE + len(keys):,} of {length:,} on this "
             f"branch (page {page + 1} of {pages})."] if pages > 1 else []
    return Figure(steps_dot(graph, thread.node_colours(), direction=direction),
                  (f"k{lit}",) if lit is not None else (),
                  f"Lit: step {made[key].label}" if key in made else "", notes, len(graph.nodes))
