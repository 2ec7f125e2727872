"""What a Play frame reads, and reads ahead: the diff of a step against its parent (``compare``, kept in the
bounded cache) and the next ``AHEAD`` frames read in a background thread (``prefetch``); the tree chart's spec
is made steady from frame to frame by ``chart_data``. ``play_view`` runs Play; ``frame_view`` draws each frame
from these. Outside Play, the step Prev / Next leads to next is read the same way (``read_steps``)."""

from __future__ import annotations

import threading
import time
from typing import Any

import streamlit as st

from .. import profiles
from ..diff import StateDiff, diff
from ..history.lineage import Key
from ..history.thread_history import ThreadHistory
from ..state.conversation import kept_conversation
from ..store import CheckpointRow, Store
from . import data, model_input_view

SHOW_KEY = "play_show"
DIFF = "The diff"
MODEL_INPUT = "What the model saw"
WINDOW = 7  # steps drawn on each side of the selected one
AHEAD = 6  # frames read ahead of the one on screen


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _diff_of(url: str, thread_id: str, ns: str, parent_id: str, checkpoint_id: str, generation: int, profile: str,
             _store: Store) -> StateDiff:
    # the fields' changes only: a frame shows no replay verdict, which would cost more than the diff
    before = data.raw_state(_store, thread_id, parent_id, ns)
    after = data.raw_state(_store, thread_id, checkpoint_id, ns)
    key = (ns, checkpoint_id)
    made = data.thread_history(_store, thread_id).attributions(_store, [key]).get(key)
    return data.masked(diff(before, after, made=made))


def compare(store: Store, row: CheckpointRow) -> StateDiff:
    """The diff of ``row``'s checkpoint against its parent, on raw values (secrets masked in the result: no
    masked copy of either state is made), kept in the bounded cache; the parent's decoded values are the
    previous frame's."""
    return _diff_of(store.url, row.thread_id, row.checkpoint_ns, row.parent_checkpoint_id or "",
                    row.checkpoint_id, data.generation(store, row.thread_id), data.read_as(store, row.thread_id), store)


_AHEAD_LOCK = threading.Lock()
_READING_AHEAD: dict[tuple[str, ...], threading.Thread] = {}  # (store, thread[, what]) -> the thread reading ahead


def prefetch(store: Store, thread: ThreadHistory, path: list[Key], index: int, chosen: str) -> threading.Thread | None:
    """Read the next ``AHEAD`` frames of ``path`` (rows, attributions, decoded checkpoints, the diff when frames
    show it) into the bounded caches in a background thread, off the frame's run; one such thread per store and
    thread at a time (a frame that finds one still reading leaves it be). Returns the thread started, if any."""
    if not path[index + 1: index + 1 + AHEAD]:
        return None
    return _reader((store.url, thread.thread_id), "play-read-ahead", _read_ahead,
                   (store, thread, path, index, chosen, profiles.asked(store, thread.thread_id)))


# The step Prev / Next leads to next is read this long after the run that asked for it: by then the browser has
# drawn that run's step, and the reading (decoding a long state costs a tenth of a second of CPU) does not take
# the machine's cores from the browser while it draws.
STEP_READ_DELAY = 0.3
_WANTED: dict[tuple[str, ...], tuple[Any, ...]] = {}  # (store, thread, "steps") -> the newest steps asked for


def read_steps(store: Store, thread: ThreadHistory, keys: list[Key], page_size: int,
               conversations: list[str] = ()) -> threading.Thread | None:
    """Read what the thread page shows of each of ``keys`` (their rows' page, decoded checkpoints, the
    attributions of their fields, the fields in ``conversations`` read as conversations with the page's profile)
    into the bounded caches in a background thread, off the page's run, ``STEP_READ_DELAY`` after it: the step
    Prev / Next leads to next is then drawn from what is read. One such thread per store and thread at a time; it
    reads the newest steps asked for (a step taken while it waits replaces them). Returns the thread started, if
    any."""
    if not keys:
        return None
    name = (store.url, thread.thread_id, "steps")
    wanted = (store, thread, keys, page_size, list(conversations), profiles.asked(store, thread.thread_id))
    with _AHEAD_LOCK:
        _WANTED[name] = wanted
    return _reader(name, "step-read-ahead", _read_wanted, (name,))


def _read_wanted(name: tuple[str, ...]) -> None:
    """Read the steps asked for under ``name``, a while after they were asked for, until none is left."""
    while True:
        time.sleep(STEP_READ_DELAY)
        with _AHEAD_LOCK:
            wanted = _WANTED.pop(name, None)
            if wanted is None:  # gone from the readers while holding the lock: the next ask starts another
                _READING_AHEAD.pop(name, None)
                return
        _read_steps(*wanted)


def _reader(name: tuple[str, ...], title: str, target: Any, args: tuple[Any, ...]) -> threading.Thread | None:
    with _AHEAD_LOCK:
        running = _READING_AHEAD.get(name)
        if running is not None and running.is_alive():
            return None
        for done in [k for k, t in _READING_AHEAD.items() if not t.is_alive()]:
            del _READING_AHEAD[done]
        worker = threading.Thread(target=target, args=args, name=title, daemon=True)
        _READING_AHEAD[name] = worker
    worker.start()
    return worker


def _read_ahead(store: Store, thread: ThreadHistory, path: list[Key], index: int, chosen: str,
                named: str | None = None) -> None:
    """The frames after ``index``, read with the profile ``named`` (the page's; a new thread starts with no
    context of its own), into the caches keyed by it."""
    rows = [node.row for node in thread.history.nodes.values()]
    try:
        with profiles.asking(store, thread.thread_id, named), profiles.reading(store, thread.thread_id, rows=rows):
            for i in range(index + 1, min(len(path), index + 1 + AHEAD)):
                window = path[max(0, i - WINDOW): i + WINDOW + 1]
                thread.complete(store, window)
                thread.attributions(store, window)
                row = thread.history.node(path[i]).row
                if chosen == DIFF and row.parent_checkpoint_id:
                    compare(store, row)
                if chosen == MODEL_INPUT:
                    model_input_view.step_input(store, row, data.state(store, row.thread_id, row.checkpoint_id,
                                                                       row.checkpoint_ns))
    except Exception:  # noqa: BLE001 - only a head start: the frame reads what failed again and shows the problem
        return


def _read_steps(store: Store, thread: ThreadHistory, keys: list[Key], page_size: int, conversations: list[str],
                named: str | None = None) -> None:
    """What the thread page reads for each of ``keys`` when it is selected, but its drawing; the fields in
    ``conversations`` as conversations, read with the profile ``named`` (the page's)."""
    try:
        history = thread.history
        for key in keys:
            thread.complete(store, history.page(history.page_of(key, page_size), page_size))
            row = history.node(key).row
            state = data.state(store, row.thread_id, row.checkpoint_id, row.checkpoint_ns)
            thread.last_writes(store, key, list(state.values))
        if not conversations:
            return
        rows = [node.row for node in history.nodes.values()]
        with profiles.asking(store, thread.thread_id, named), profiles.reading(store, thread.thread_id, rows=rows):
            for key in keys:
                row = history.node(key).row
                values = data.state(store, row.thread_id, row.checkpoint_id, row.checkpoint_ns).values
                for name in conversations:
                    if name in values:
                        kept_conversation(values[name])
    except Exception:  # noqa: BLE001 - only a head start: the page reads what failed again and shows the problem
        return
