"""The thread panels that show the flow between states: the flow grid, the graph as it ran, the step timeline.

Each reads the one attribution (``inspector.history.attribution``) through the thread's cached history,
which reads write keys only (never a value but ``Send`` targets): the flow grid those of its visible
window, the graph and the step timeline those of the whole thread, once, when their panel is opened.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

from ..history import durations
from ..history.attribution import Attribution
from ..history.flow_graph import FlowGraph
from ..history.flow_grid import GRID_WIDTH, SELECTION, flow_grid, flow_window, grid_chart
from ..history.lineage import Key
from ..history.location import Location
from ..history.step_lanes import SELECTION as PICK
from ..history.step_lanes import lane_chart, lane_rows, stop_keys, stopped_failures
from ..store import CheckpointRow, CheckpointState, Store
from . import data, diff_view, frame_html, graph_figure, names, routes
from .flow_data import shown_key, whole_thread  # noqa: F401 (the thread's flow, named here too)
from .inert import code_span, literal
from .names import key_text
from .tables import frame_of
from .values import show_value

GRID_PANEL, GRAPH_PANEL, TIMELINE_PANEL = "Flow grid", "Graph", "Step timeline"
FIELD_KEY = "flow_grid_field"
GRAPH_NOTE = ("Drawn from what this thread ran, read from its stored writes: nodes are the tasks the store "
              "recorded, edges the transitions taken between consecutive steps, with how often. It is not the "
              "code's whole graph: a node or edge this thread never took is not drawn.")
EXPANDED_NOTE = ("The steps of this branch in the order they ran, read from the stored writes: a node per task "
                 "(parallel tasks side by side), each step leading to the next.")


def _select(key: Key, thread_id: str) -> None:
    routes.select_location(Location(thread_id, key[1], key[0]))


def _key(row: CheckpointRow) -> Key:
    return (row.checkpoint_ns, row.checkpoint_id)


def flow_grid_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """Fields by steps along the selected checkpoint's line of history, one window at a time; a cell is
    coloured by the node that wrote that field in that step, and clicking it shows that step's diff of it."""
    thread = data.thread_history(store, thread_id)
    history, key = thread.history, _key(row)
    window = flow_window(history, key)
    page = window.page
    if window.pages > 1:
        page = st.number_input(f"Steps {GRID_WIDTH} at a time: window (of {window.pages}, oldest first)", 1,
                               window.pages, window.page + 1, key=f"flow_grid_page_{key_text(*key)}") - 1
        if page != window.page:
            window = flow_window(history, key, page=page)
    made = thread.attributions(store, window.keys)
    grid = flow_grid(history, window.keys, made, list(state.values))
    first, last = history.nodes[window.keys[0]].row.step, history.nodes[window.keys[-1]].row.step
    st.caption(f"Steps {first} to {last} of this line of history ({window.path_length} checkpoints): each cell is "
               "the node that wrote that field in that step; empty where nothing was written. Click a cell to "
               "select its step and see its diff of that field.")
    if not grid.cells:
        st.info("No field was written in these steps.")
        return
    shown = dataclasses.replace(grid, cells=names.shown_records(grid.cells, ("ns", "node", "nodes", "label")))
    event = st.vega_lite_chart(grid_chart(shown, key, colours=thread.node_colours()), on_select="rerun",
                               selection_mode=SELECTION,
                               key=f"flow_grid_{key_text(*key)}_{page}", width="stretch")
    picked = (event.selection.get(SELECTION) or []) if event is not None else []
    if picked and isinstance(picked[0], dict) and picked[0].get("checkpoint"):
        target = names.picked(picked[0], (k[0] for k in window.keys))
        st.session_state[FIELD_KEY] = picked[0].get("field")
        if target != key and target in history.nodes:
            _select(target, thread_id)
            st.rerun()
    _field_diff(store, thread_id, state, made.get(key), st.session_state.get(FIELD_KEY))


def _field_diff(store: Store, thread_id: str, state: CheckpointState, made: Attribution | None,
                field_name: str | None) -> None:
    """The selected step's diff of one field (the field clicked, else the first it wrote)."""
    if made is None or not made.fields or not state.parent_checkpoint_id:
        st.caption(literal(f"Step {state.metadata.get('step', '?')}: no field written."
                           if made is None or not made.fields else ""))
        return
    name = field_name if field_name in made.fields else made.fields[0]
    result, _ = diff_view.compare(store, thread_id, state.parent_checkpoint_id, state.checkpoint_id,
                                  state.checkpoint_ns)
    st.markdown(f"**{literal(made.label)}** · field {code_span(name)} written by "
                f"{', '.join(code_span(n) for n in made.writers(name))}")
    for write in (w for w in result.wrote if w["channel"] == name):
        st.markdown(f"- {code_span(write['node'])} wrote:")
        show_value(write["value"], expanded=True)
    for field in (f for f in result.fields if f.field == name):
        st.markdown(f"{diff_view.STATUS_ICONS.get(field.status, '')} **{literal(field.field)}** · "
                    f"{code_span(field.reducer_label)} · {literal(field.status)}")
        if field.note:
            st.info(literal(field.note))
        if field.changes:
            st.markdown("\n".join(f"- {literal(c.summary)}" for c in field.changes))


def graph_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """The graph this thread ran, aggregated or expanded (``graph_figure``), with the node(s) of the selected step
    lit and the fields they wrote said under it."""
    key = _key(row)
    chosen = graph_figure.mode_choice()
    st.caption(GRAPH_NOTE if chosen == graph_figure.AGGREGATED else EXPANDED_NOTE)
    drawn = graph_figure.figure(store, thread_id, key, chosen)
    if drawn is None:
        st.info("No task of this thread stored a write: there is no step to draw.")
        return
    with st.container(key=graph_figure.CONTAINER_KEY):
        st.graphviz_chart(drawn.dot, width="stretch")
    st.html(frame_html.caption(drawn.caption, drawn.style))
    for note in drawn.notes:
        st.info(literal(note))
    if chosen == graph_figure.AGGREGATED:
        _graph_counts(whole_thread(store, thread_id)[0])


def _graph_counts(graph: FlowGraph) -> None:
    due = [n.id for n in graph.nodes.values() if n.due_next]
    parts = [f"{graph.total_nodes:,} node(s), {len(graph.edges)} edge(s) drawn, {graph.steps} step(s)"]
    for outcome in ("interrupted", "failed", "cancelled"):
        marked = [n for n in graph.nodes.values() if getattr(n, outcome) and n.id != graph.other]
        if marked:
            parts.append(f"{outcome}: " + ", ".join(f"{n.id} ×{getattr(n, outcome)}" for n in marked))
    if due:
        parts.append("next at the newest checkpoint: " + ", ".join(due))
    st.caption(literal(" · ".join(parts)))
    with st.expander("Edges taken"):
        st.dataframe(frame_of([{"from": e.source, "to": e.target, "times": e.count, "how": e.kind}
                                   for e in sorted(graph.edges.values(), key=lambda e: -e.count)]),
                     hide_index=True, width="stretch")


def step_timeline_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """Where the time went, as Temporal draws a workflow: a lane per task (parallel tasks side by side), each a
    bar from its step's parent's timestamp to its own, in its node's colour (red: it wrote an error; faded:
    LangGraph cancelled it), with its milliseconds; the slowest steps and each node's total."""

    thread = data.thread_history(store, thread_id)
    stored, key = thread.history, shown_key(_key(row))
    _, every, history = whole_thread(store, thread_id)  # names masked: the lanes name nodes and namespaces
    made = {k: a for k, a in every.items() if k[0] == key[0]}
    times = durations.step_times(history, made)
    st.caption(literal(durations.summary(times)) + " · from checkpoint timestamps: a step's tasks ran together, "
               "so each is a bar over the step's whole time; waits between runs are charged to no node")
    ends = thread.write_keys(store, stop_keys(stored, _key(row)[0]))
    stopped = stopped_failures(history, key[0], {shown_key(k): found for k, found in ends.items()})
    rows = lane_rows(times, made, thread.node_colours(), key, stopped)
    if not rows:
        st.info("No step has two timestamps to measure.")
        return
    event = st.vega_lite_chart(lane_chart(rows), on_select="rerun", selection_mode=PICK,
                               key=f"step_timeline_{key_text(*key)}", width="stretch")
    picked = (event.selection.get(PICK) or []) if event is not None else []
    if picked and isinstance(picked[0], dict) and picked[0].get("checkpoint"):
        target = names.picked(picked[0], (k[0] for k in stored.nodes))
        if target != _key(row) and target in stored.nodes:
            _select(target, thread_id)
            st.rerun()
    slow_col, total_col = st.columns(2)
    with slow_col:
        st.markdown("**Slowest steps**")
        st.dataframe(frame_of([{"step": t.step, "ran": ", ".join(t.charged_to), "took": durations.seconds_text(t.seconds)}
                                   for t in durations.slowest_steps(times)]), hide_index=True, width="stretch")
    with total_col:
        st.markdown("**Time by node**")
        st.dataframe(frame_of([{"node": n.node, "total": durations.seconds_text(n.seconds), "steps": n.steps,
                                    "slowest": durations.seconds_text(n.slowest)}
                                   for n in durations.node_totals(times)]), hide_index=True, width="stretch")
