"""The presenter view of a thread: ``?present=1`` on the thread page (its **Present** button), for a projector.

The sidebar and the app's header are gone, the controls are one compact row (Play / Pause, Prev, Next, the
speed, the frames' view, the graph's mode, Leave), and the frame of the selected step fills the rest of the
screen: the graph with the step's node(s) lit beside the step, its node(s), the fields they wrote and the diff
(or what the model saw), in type sized for the back of a room (``page_css.PRESENTER``). It fits a 1280x720 and
a 1024x768 window without scrolling. The keys keep working: P plays and pauses, the arrow keys step, Esc leaves.
Play runs in it as on the page (``play_view``), drawing the same frames (``frame_view``). Every move keeps
``present=1`` in the URL with the rest of the view (profile, graph mode), so a copied link opens the presenter
view on that step.
"""

from __future__ import annotations

from typing import Callable

import streamlit as st

from ..history.attribution import Attribution
from ..history.lineage import Key
from ..history.location import Location
from ..history.thread_history import ThreadHistory
from ..store import Store
from . import frame_view, play_view, routes, timeline_view

PARAM = routes.PRESENT_PARAM
KEY = "presenter"  # the view's container: while it is on the page, ``page_css.PRESENTER`` is in force
HELP = "Show this step full screen for a room: the graph, the step and its diff in large type (Esc leaves)"


def active() -> bool:
    """Whether the URL asks for the presenter view."""
    return st.query_params.get(PARAM) == "1"


def enter_button() -> None:
    """The thread page's **Present** button."""
    if st.button("Present", icon=":material/slideshow:", key="present_enter", help=HELP):
        st.query_params[PARAM] = "1"
        st.rerun()


def leave() -> None:
    """Back to the thread page, on the same step (Play keeps running if it runs)."""
    st.query_params.pop(PARAM, None)
    st.rerun()


def render(store: Store, thread: ThreadHistory, key: Key, select: Callable[[Location], None],
           made_for: Callable[[list[Key]], dict[Key, Attribution]]) -> None:
    """The presenter view of ``key``: the controls' row, then the frame (played when Play runs)."""
    history = thread.history
    with st.container(key=KEY):
        timeline_view.navigator(history, key, select, made_for=made_for, leave=leave)
        if play_view.playing(thread.thread_id):
            play_view.stage(store, thread, key, select, play_view.speed(), present=True)
            return
        path = play_view.line(history, key)
        frame_view.draw(store, thread, path, path.index(key), present=True)
