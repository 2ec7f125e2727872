"""Play: step through one branch of a thread at a chosen pace, for a room full of people.

Turning Play on starts at the first step (step 0, where the input has been
applied; never the empty step -1 whose input is still a pending write) unless a
step in the middle is selected, and moves one step per tick of a fragment that
reruns every ``1 / speed`` seconds: only the frame runs again, not the page.
Each frame shows, beside a window of the branch drawn oldest first with the
selected step in the middle (so it never leaves the screen), the node(s) that
ran and the fields they wrote, highlighted, and the presenter's choice of view:
the diff against the parent or what the model saw. Every frame writes its step
into the URL, so a presenter can copy it and jump back. While a frame is on
screen the next checkpoint is decoded into the bounded cache, so the next tick
only draws. Prev / Next (and the left / right arrow keys) pause and step; Play / Pause has the key P.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from .. import profiles
from ..diff import StateDiff
from ..history.attribution import STEP, Attribution
from ..history.checkpoint_kinds import step_label
from ..history.lineage import History, Key
from ..history.location import Location
from ..history.thread_history import ThreadHistory
from ..history.tree_chart import tree_chart, tree_data
from ..store import CheckpointState, Store
from . import data, diff_view, flow_views, model_input_view
from .guard import guarded
from .inert import literal

PLAY_KEY = "nav_playing"  # the thread being played: a plain value, not a widget's, so never handed back stale
SPEED_KEY = "play_speed"
SHOW_KEY = "play_show"
ENDED_KEY = "play_ended"  # Play stopped at the branch's newest checkpoint
AT_KEY = "play_at"  # (ns, checkpoint id) of the frame on screen, moved by each tick
MOVED_KEY = "play_moved"  # the location a tick moved to: the next full run starts from it
FRESH_KEY = "play_fresh"  # the page drew the frame for the URL's step: the next tick advances
SPEEDS = {"0.5 steps/s": 0.5, "1 step/s": 1.0, "2 steps/s": 2.0, "4 steps/s": 4.0}
DEFAULT_SPEED = "1 step/s"
DIFF = "The diff"
WINDOW = 7  # steps drawn on each side of the selected one
Select = Callable[[Location], None]


def location(history: History, key: Key) -> Location:
    """Where ``key`` is, as the URL names it (its step included)."""
    row = history.node(key).row
    return Location(row.thread_id, key[1], key[0], row.step)


def first_step(history: History, path: list[Key]) -> int:
    """Where Play starts on ``path``: the first checkpoint past the leading input ones (step -1)."""
    for i, key in enumerate(path):
        row = history.node(key).row
        if not (row.step is not None and row.step < 0):
            return i
    return 0


def moved_to(shown: Location) -> Location:
    """Where the page is: the step Play's last tick moved to, if it moved in this thread since the last full run.

    A tick writes its step into the URL, but a full run that follows (a click on Prev, Play reaching the
    end) may still be handed the URL its own run started from; the session knows better.
    """
    moved = st.session_state.pop(MOVED_KEY, None)
    return moved if isinstance(moved, Location) and moved.thread == shown.thread else shown


def start(history: History, path: list[Key], index: int, select: Select) -> None:
    """Play at ``path[index]``: from the newest checkpoint or an input one it starts at the first step."""
    st.session_state[PLAY_KEY] = history.node(path[index]).row.thread_id
    begin = first_step(history, path)
    if index == len(path) - 1 or index < begin:
        select(location(history, path[begin]))


def stop() -> None:
    st.session_state[PLAY_KEY] = None


def playing(thread_id: str) -> bool:
    """Whether Play runs on ``thread_id`` (opening another thread stops it)."""
    return st.session_state.get(PLAY_KEY) == thread_id


def controls() -> None:
    """Play's speed (always drawn, so the choice is kept while Play is off)."""
    st.segmented_control("Play speed", list(SPEEDS), default=DEFAULT_SPEED, key=SPEED_KEY,
                         help="How fast Play moves along the branch")


def speed() -> float:
    """The chosen speed, in steps per second."""
    return SPEEDS.get(st.session_state.get(SPEED_KEY) or DEFAULT_SPEED, 1.0)


def frame_views() -> dict[str, Callable[[Store, str, object, CheckpointState], None]]:
    """What a frame can show beside the branch, by the presenter's choice."""
    return {DIFF: _diff, "The graph": flow_views.graph_panel, "What the model saw": model_input_view.model_input_panel}


def stage(store: Store, thread: ThreadHistory, key: Key, select: Select, speed: float) -> None:
    """The Play frame for ``key``, then one step further every ``1 / speed`` seconds (a fragment)."""
    st.session_state[AT_KEY] = key
    st.session_state[FRESH_KEY] = True
    st.fragment(run_every=1.0 / speed)(_tick)(store, thread, select)


def _tick(store: Store, thread: ThreadHistory, select: Select) -> None:
    rows = [node.row for node in thread.history.nodes.values()]
    with profiles.reading(store, thread.thread_id, rows=rows):  # a tick runs outside the page's reading
        _advance(store, thread, select)


def _advance(store: Store, thread: ThreadHistory, select: Select) -> None:
    history = thread.history
    key = st.session_state.get(AT_KEY)  # the last frame drawn whole
    if key not in history.nodes:
        return
    path = history.path_through(key)
    index = path.index(key)
    if not st.session_state.pop(FRESH_KEY, False):  # a tick: one step on, or stop at the end
        if index == len(path) - 1:
            stop()
            st.session_state[ENDED_KEY] = True
            st.rerun(scope="app")
        index += 1
    shown = location(history, path[index])
    select(shown)
    draw(store, thread, path, index)
    # only now is the frame on screen: a tick cut short by a rerun leaves these, and the next one draws it again,
    # so a slow machine slows Play down rather than skipping steps
    st.session_state[AT_KEY] = path[index]
    st.session_state[MOVED_KEY] = shown


def draw(store: Store, thread: ThreadHistory, path: list[Key], index: int) -> None:
    """One frame: the branch around the step, the node(s) that ran and what they wrote, the chosen view."""
    history = thread.history
    key = path[index]
    window = path[max(0, index - WINDOW): index + WINDOW + 1]
    thread.complete(store, window)
    made = thread.attributions(store, window)
    row = history.node(key).row
    state = data.state(store, row.thread_id, row.checkpoint_id, row.checkpoint_ns)
    views = frame_views()
    chosen = st.session_state.get(SHOW_KEY) or next(iter(views))
    if chosen == DIFF and state.parent_checkpoint_id:  # computed before anything is drawn: no half-new frame
        _compare(store, state)
    left, right = st.columns([2, 3], gap="medium")
    with left:
        st.progress((index + 1) / len(path), text=literal(f"Step {step_label(history, key)} · "
                                                          f"{index + 1} of {len(path)} on this branch"))
        st.vega_lite_chart(tree_chart(tree_data(history, window, key, made)), width="stretch")
    with right:
        _ran(made.get(key), row.step)
        guarded(chosen, views.get(chosen, _diff), store, row.thread_id, row, state)
    _prefetch(store, history, path, index)


def _ran(made: Attribution | None, step: int | None) -> None:
    """The step, the node(s) that ran in it (the one attribution), highlighted, and the fields they wrote: one
    element, so the step and its node never show apart."""
    head = f"Step {'?' if step is None else step} ·"
    with st.container(key="play-node"):
        if made is None or not made.tasks:
            what = made.what if made is not None else "?"
            st.markdown(f"### {head} :gray-badge[{literal(what)}]")
            if made is not None and made.note:
                st.caption(literal(made.note))
            return
        colour = "blue" if made.made_by == STEP else "orange"
        badges = " ".join(f":{colour}-badge[{literal(node)}]" for node in made.nodes)
        wrote = ", ".join(f":green-badge[{literal(f)}]" for f in made.fields) or ":gray-badge[no field]"
        st.markdown(f"### {head} {badges} → {wrote}")


def _diff(store: Store, thread_id: str, row: object, state: CheckpointState) -> None:
    """The frame's diff: what each field became (the node and the fields it wrote are the frame's header)."""
    if not state.parent_checkpoint_id:
        st.caption("The first checkpoint of this namespace: there is no parent to compare with.")
        return
    diff_view.render_fields(_compare(store, state))


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _diff_of(url: str, thread_id: str, ns: str, parent_id: str, checkpoint_id: str, generation: int,
             _store: Store) -> StateDiff:
    return diff_view.compare(_store, thread_id, parent_id, checkpoint_id, ns)[0]


def _compare(store: Store, state: CheckpointState) -> StateDiff:
    """The diff of ``state`` against its parent (secrets masked), kept in the bounded cache."""
    return _diff_of(store.url, state.thread_id, state.checkpoint_ns, state.parent_checkpoint_id or "",
                    state.checkpoint_id, data.generation(store, state.thread_id), store)


def _prefetch(store: Store, history: History, path: list[Key], index: int) -> None:
    """Decode the next checkpoint now, while this frame is on screen (kept in the bounded cache)."""
    if index + 1 < len(path):
        row = history.node(path[index + 1]).row
        state = data.state(store, row.thread_id, row.checkpoint_id, row.checkpoint_ns)
        if state.parent_checkpoint_id and st.session_state.get(SHOW_KEY, DIFF) == DIFF:
            _compare(store, state)


def show_choice() -> None:
    """The presenter's choice of what each frame shows."""
    views = list(frame_views())
    st.segmented_control("Each Play frame shows", views, default=views[0], key=SHOW_KEY,
                         help="What Play shows beside the branch at every step")

