"""Follow a running thread: an opt-in toggle polls the store for checkpoints newer than the newest shown.

While "Follow" is on, a fragment reruns every ``follow_seconds`` and reads only
rows newer than the newest one held (``ThreadHistory.follow``). When some arrive
the page runs again: the history grows, and a reader who was looking at the
newest checkpoint moves on to the new newest one; anyone looking at an older
checkpoint stays where they are.
"""

from __future__ import annotations

import time
from typing import Callable

import streamlit as st

from ..history.location import Location, parse_location
from ..history.thread_history import ThreadHistory
from ..store import Store
from . import connection, names

TOGGLE_KEY = "thread_follow"
HELP = "Check the store every few seconds (setting follow_seconds) for new checkpoints of this thread"


def poll(store: Store, thread: ThreadHistory, select: Callable[[Location], None]) -> None:
    """While Follow is on: read newer checkpoints now, and again every ``follow_seconds`` from a fragment."""
    if st.session_state.get(TOGGLE_KEY):
        seconds = max(1, connection.settings().follow_seconds)
        st.fragment(run_every=seconds)(_watch)(store, thread, select)


def _watch(store: Store, thread: ThreadHistory, select: Callable[[Location], None]) -> None:
    """One check. Where the reader is comes from the URL at each check: the step's own fragment moves them
    (Prev / Next) without the page's run that started this one."""
    before = thread.history.head
    shown = names.stored_location(parse_location(st.query_params.to_dict()), (k[0] for k in thread.history.nodes))
    at_newest = not shown.checkpoint or (before is not None and (shown.ns, shown.checkpoint) == before)
    fresh = thread.follow(store)
    st.caption(f":material/sync: Following: checked at {time.strftime('%H:%M:%S')}"
               + (f", {len(fresh)} new checkpoint(s)" if fresh else ""))
    if not fresh:
        return
    head = thread.history.head
    if at_newest and head is not None and head != before:
        select(Location(thread.thread_id, head[1], head[0]))
    st.rerun()  # the whole page: the history, and the state when it moved to the newest
