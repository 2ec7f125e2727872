"""Play: step through one branch of a thread at a chosen pace, for a room full of people.

Turning Play on starts at the first step (step 0, where the input has been
applied; never the empty step -1 whose input is still a pending write) unless a
step in the middle is selected, and moves one step per tick of a fragment that
reruns every ``1 / speed`` seconds: only the frame runs again, not the page.
Each frame (``frame_view``) shows the step, the node(s) that ran in their colours
and the fields they wrote, and the presenter's choice of view: the diff against the
parent, the graph with the step's node(s) lit, or what the model saw; beside them a
window of the branch drawn oldest first with the selected step in the middle (so it
never leaves the screen). The presenter view (``presenter``) plays the same frames
filling the screen. Every frame writes its step into the URL, so a presenter can copy
it and jump back.

Playback keeps its pace: the frames ahead are read (rows, attributions, decoded
checkpoints, diffs) by a background thread into the bounded caches while the
frame is on screen, so a tick only draws; a frame's words are one element and its
graph is laid out once, so the browser's share of a tick is small; the window is one
chart whose spec stays the same from frame to frame (its rows travel as named
datasets, which the browser updates in place instead of drawing a new chart). A tick
that comes late (a loaded machine coalesces ticks) moves one step all the same at
2 steps/s or slower: no step is ever skipped there, the pace gives. At a faster speed
a late tick moves on to the step Play's clock has reached, at most one step further
than the next, and only when none of the nine moves before it skipped: at most one
step in ten is skipped, never two in a row (``next_index``). Prev / Next (and the
left / right arrow keys) pause and step; Play / Pause has the key P. Every frame, and
the frames read ahead, read the thread with the profile the page reads it with
(``profiles.asking``).
"""

from __future__ import annotations

import time
from typing import Callable

import streamlit as st

from .. import profiles
from ..history.lineage import History, Key
from ..history.location import Location
from ..history.thread_history import ThreadHistory
from ..store import Store
from .frame_view import draw, views
from .play_frames import (  # noqa: F401 (Play's frames: named here too)
    AHEAD,
    DIFF,
    MODEL_INPUT,
    SHOW_KEY,
    WINDOW,
    compare,
    prefetch,
    read_steps,
)

PLAY_KEY = "nav_playing"  # the thread being played: a plain value, not a widget's, so never handed back stale
SPEED_KEY = "play_speed"
ENDED_KEY = "play_ended"  # Play stopped at the branch's newest checkpoint
AT_KEY = "play_at"  # (ns, checkpoint id) of the frame on screen, moved by each tick
LINE_KEY = "play_line"  # a checkpoint of the branch being played: the line Play walks is the one through it
MOVED_KEY = "play_moved"  # the location a tick moved to: the next full run starts from it
FRESH_KEY = "play_fresh"  # the page drew the frame for the URL's step: the next tick advances
CLOCK_KEY = "play_clock"  # (monotonic seconds, index on the path, speed) at Play's first tick: where its pace runs from
MOVES_KEY = "play_moves"  # how far each of the last moves went (1, or 2 for a skip), newest last
PRESENT_KEY = "play_present"  # Play runs in the presenter view
SPEEDS = {"0.5 steps/s": 0.5, "1 step/s": 1.0, "2 steps/s": 2.0, "4 steps/s": 4.0}
DEFAULT_SPEED = "1 step/s"
NO_SKIP_UP_TO = 2.0  # steps per second: up to this speed no step is skipped, however late a tick
SKIP_SPAN = 10  # at most one skip in this many moves
BEHIND = 2.5  # steps behind Play's clock: past this, the clock starts again where Play is (a stall is not caught up)
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
    """Play at ``path[index]``: from the newest checkpoint or an input one it starts at the first step. Play walks
    ``path`` (the branch selected) to its end, also where its first steps are shared with another branch."""
    st.session_state[PLAY_KEY] = history.node(path[index]).row.thread_id
    st.session_state[LINE_KEY] = path[-1]
    begin = first_step(history, path)
    if index == len(path) - 1 or index < begin:
        select(location(history, path[begin]))


def line(history: History, key: Key) -> list[Key]:
    """The line Play walks through ``key``: the branch Play was started on while ``key`` is on it, else
    ``key``'s own (``History.path_through``)."""
    played = st.session_state.get(LINE_KEY)
    if played in history.nodes:
        path = history.path_through(played)
        if key in path:
            return path
    return history.path_through(key)


def stop() -> None:
    st.session_state[PLAY_KEY] = None


def playing(thread_id: str) -> bool:
    """Whether Play runs on ``thread_id`` (opening another thread stops it)."""
    return st.session_state.get(PLAY_KEY) == thread_id


def controls(compact: bool = False) -> None:
    """Play's speed (always drawn, so the choice is kept while Play is off); ``compact``: no label, ``2/s``."""
    st.segmented_control("Play speed", list(SPEEDS), default=DEFAULT_SPEED, key=SPEED_KEY,
                         help="How fast Play moves along the branch", label_visibility="collapsed" if compact else "visible",
                         format_func=(lambda o: f"{SPEEDS[o]:g}/s") if compact else str)


def settings_label() -> str:
    """What Play is set to, as the button opening its choices says it: ``1 step/s · the diff``."""
    shown = st.session_state.get(SHOW_KEY) or views()[0]
    return f"{st.session_state.get(SPEED_KEY) or DEFAULT_SPEED} · {shown[:1].lower()}{shown[1:]}"


def speed() -> float:
    """The chosen speed, in steps per second."""
    return SPEEDS.get(st.session_state.get(SPEED_KEY) or DEFAULT_SPEED, 1.0)


def stage(store: Store, thread: ThreadHistory, key: Key, select: Select, speed: float, present: bool = False) -> None:
    """The Play frame for ``key``, then one step further every ``1 / speed`` seconds (a fragment); ``present``:
    the presenter view's frames."""
    st.session_state[AT_KEY] = key
    st.session_state[FRESH_KEY] = True
    st.session_state[PRESENT_KEY] = present
    named = profiles.asked(store, thread.thread_id)  # the page's choice: a tick runs outside the page's run
    st.fragment(run_every=1.0 / speed)(_tick)(store, thread, select, named)


def _tick(store: Store, thread: ThreadHistory, select: Select, named: str | None = None) -> None:
    rows = [node.row for node in thread.history.nodes.values()]
    with profiles.asking(store, thread.thread_id, named), profiles.reading(store, thread.thread_id, rows=rows):
        _advance(store, thread, select)


def _advance(store: Store, thread: ThreadHistory, select: Select) -> None:
    history = thread.history
    key = st.session_state.get(AT_KEY)  # the last frame drawn whole
    if key not in history.nodes:
        return
    path = line(history, key)
    index = path.index(key)
    rate = speed()
    moves = list(st.session_state.get(MOVES_KEY) or [])
    if st.session_state.pop(FRESH_KEY, False):  # the page's own frame (the browser is busy drawing the page)
        st.session_state[CLOCK_KEY] = None
        moves = []
    else:  # a tick: one step on (two when late, where allowed), or stop at the end
        if index == len(path) - 1:
            stop()
            st.session_state[ENDED_KEY] = True
            st.rerun(scope="app")
        clock = st.session_state.get(CLOCK_KEY)
        now = time.monotonic()
        moved = next_index(clock, index, len(path), rate, now, moves)
        moves = [*moves, moved - index][-SKIP_SPAN:]
        index = moved
        if clock is None or clock[2] != rate or behind(clock, index, rate, now) > BEHIND:
            st.session_state[CLOCK_KEY] = (now, index, rate)  # Play's clock starts at its first tick, at a new
            # speed, and again after a stall it could not make up
    shown = location(history, path[index])
    select(shown)
    draw(store, thread, path, index, bool(st.session_state.get(PRESENT_KEY)))
    # only now is the frame on screen: a tick cut short by a rerun leaves these, and the next one draws it again
    st.session_state[AT_KEY] = path[index]
    st.session_state[MOVED_KEY] = shown
    st.session_state[MOVES_KEY] = moves


def behind(clock: tuple[float, int, float], index: int, rate: float, now: float) -> float:
    """How many steps Play at ``index`` is behind its clock (negative: ahead)."""
    return clock[1] + (now - clock[0]) * rate - index


def next_index(clock: tuple[float, int, float] | None, index: int, length: int, rate: float, now: float,
               moves: list[int] | tuple[int, ...] = ()) -> int:
    """The step a tick moves to from ``index``: the next one; at a speed over ``NO_SKIP_UP_TO`` the one after it
    when Play's clock (started at ``clock = (seconds, index, speed)``) is more than half a step past the next
    and none of the last ``SKIP_SPAN - 1`` moves (``moves``, newest last: 1 a step, 2 a skip) skipped: a late
    tick skips one step to keep the pace, never more, never two in a row, at most one in ``SKIP_SPAN``; never
    past the end."""
    due = index + 1
    recent = list(moves)[-(SKIP_SPAN - 1):]
    if clock is not None and clock[2] == rate and rate > NO_SKIP_UP_TO and all(m <= 1 for m in recent):
        due = max(due, min(index + 2, clock[1] + round((now - clock[0]) * rate)))
    return min(due, length - 1)


SHORT_VIEWS = {DIFF: "Diff", MODEL_INPUT: "Model input"}  # and the graph: "Graph"


def show_choice(compact: bool = False) -> None:
    """The presenter's choice of what each frame shows; ``compact``: no label, short names."""
    shown = views()
    st.segmented_control("Each Play frame shows", shown, default=shown[0], key=SHOW_KEY,
                         help="What Play shows beside the branch at every step (the presenter view draws the graph "
                         "beside the diff or what the model saw, or the graph alone)",
                         label_visibility="collapsed" if compact else "visible",
                         format_func=(lambda o: SHORT_VIEWS.get(o, "Graph")) if compact else str)
