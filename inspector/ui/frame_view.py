"""A Play frame: the step, the node(s) that ran in their colours and the fields they wrote, the graph with that
step's node(s) lit, and the diff against the parent or what the model saw; beside them (on the thread page) a
window of the branch with the step in its middle. The presenter view draws the same frame, filling the screen.

Everything a frame shows is computed before anything of it is drawn, and its words (heading and body) and the
style that lights the graph are one element (``frame_html``): the browser replaces them together. The graph's
layout does not depend on the step (``graph_figure``), so from frame to frame the graph element is the same and
the browser keeps it as it is; only the lit nodes change. A frame's parts that fail to read show their problem in
the frame (the rest is still drawn).
"""

from __future__ import annotations

import streamlit as st

from ..history.attribution import STEP, Attribution
from ..history.checkpoint_kinds import step_label
from ..history.lineage import Key
from ..history.thread_history import ThreadHistory
from ..history.tree_chart import tree_chart, tree_data
from ..store import CheckpointRow, Store
from . import chart_data, data, frame_html, graph_figure, model_input_view, names, play_frames

FRAME_KEY = "play-frame"
WINDOW_KEY = "play-window"
GRAPH = "The graph"


def views() -> list[str]:
    """What a frame can show beside the branch, by the presenter's choice."""
    return [play_frames.DIFF, GRAPH, play_frames.MODEL_INPUT]


def chosen_view() -> str:
    """The view chosen for the frames (the presenter view draws the graph beside the others)."""
    return st.session_state.get(play_frames.SHOW_KEY) or views()[0]


def _problem(what: str, exc: Exception) -> str:
    return frame_html.problem(f"Cannot show {what}: {data.redactor().text(str(exc))}")


def _ran(made: Attribution | None, key: Key, thread: ThreadHistory) -> frame_html.Ran:
    row = thread.history.node(key).row
    step = "?" if row.step is None else str(row.step)
    if made is None or not made.tasks:  # named as the tree names it: an input, an update, the app's own kind
        what = step_label(thread.history, key, made).split(" · ", 1)[-1]
        return frame_html.Ran(step, (), (), what, made.note if made else "")
    colours = thread.node_colours()
    return frame_html.Ran(step, [(node, colours(node)) for node in made.nodes], made.fields,
                          failed=any(t.failed for t in made.tasks), cancelled=any(t.cancelled for t in made.tasks))


def _body(store: Store, row: CheckpointRow, chosen: str, made: Attribution | None) -> str:
    """The frame's body: the diff against the parent, or what the model saw ("" beside the graph)."""
    if chosen == play_frames.DIFF:
        try:
            return frame_html.diff_body(play_frames.compare(store, row) if row.parent_checkpoint_id else None,
                                        first=not row.parent_checkpoint_id)
        except Exception as exc:  # noqa: BLE001 - the frame's heading and graph still show
            return _problem("the diff", exc)
    if chosen == play_frames.MODEL_INPUT:
        try:
            state = data.state(store, row.thread_id, row.checkpoint_id, row.checkpoint_ns)
            seen = model_input_view.step_input(store, row, state)
        except Exception as exc:  # noqa: BLE001
            return _problem("what the model saw", exc)
        step = "?" if row.step is None else row.step
        called = made is not None and made.made_by == STEP
        return frame_html.model_body(seen, f"Step {step} called no model: the writes that made it hold no assistant "
                                           "message." if called or row.parent_checkpoint_id else
                                     "The first checkpoint of this namespace: no step led to it.")
    return ""


def draw(store: Store, thread: ThreadHistory, path: list[Key], index: int, present: bool = False) -> None:
    """The frame of ``path[index]``; ``present``: as the presenter view lays it out, filling the screen with no
    window of the branch: the graph beside the words, or (the graph chosen) under the step's heading."""
    history = thread.history
    key = path[index]
    row = history.node(key).row
    chosen = chosen_view()
    window = [key] if present else path[max(0, index - play_frames.WINDOW): index + play_frames.WINDOW + 1]
    thread.complete(store, window)
    made = thread.attributions(store, window)
    # computed before anything is drawn (no half-new frame)
    body = _body(store, row, chosen, made.get(key))
    drawn, failed = None, ""
    if present or chosen == GRAPH:
        try:
            drawn = graph_figure.figure(store, thread.thread_id, key, graph_figure.mode())
        except Exception as exc:  # noqa: BLE001 - the frame's words still show
            failed = _problem("the graph", exc)
    text = frame_html.frame(str(row.step), frame_html.heading(_ran(made.get(key), key, thread), index, len(path)),
                            body + failed, drawn.style if drawn is not None else "")
    if present and chosen == GRAPH:  # the graph alone, under the step's heading
        with st.container(key=FRAME_KEY):
            st.html(text)
        with st.container(key="graph-alone"):
            _graph(drawn)
    elif present:
        graph_col, words_col = st.columns([5, 6], gap="medium")
        with graph_col:
            _graph(drawn)
        with words_col, st.container(key=FRAME_KEY):
            st.html(text)
    else:
        chart = chart_data.arrow_datasets(chart_data.steady(tree_chart(names.shown_tree(
            tree_data(history, window, key, made, label_rows=False, colours=thread.node_colours())),
            rows=2 * play_frames.WINDOW + 1)))
        left, right = st.columns([2, 3], gap="medium")
        with left, st.container(key=WINDOW_KEY):
            st.vega_lite_chart(chart, width="stretch")
        with right:
            with st.container(key=FRAME_KEY):
                st.html(text)
            if chosen == GRAPH:
                _graph(drawn)
    play_frames.prefetch(store, thread, path, index, chosen)


def _graph(drawn: graph_figure.Figure | None) -> None:
    """The graph (the same element from frame to frame: the browser keeps its layout), or why there is none."""
    with st.container(key=graph_figure.CONTAINER_KEY):
        if drawn is None:
            st.caption("No task of this thread stored a write: there is no graph to draw.")
        else:
            st.graphviz_chart(drawn.dot, width="stretch")
