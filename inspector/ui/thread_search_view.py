"""The Threads page's search hits, status column and filter, and the store-wide "Waiting on a human" section.

The table's other columns are the page's own; each function here adds its columns to the frame the page built,
so the page's table building stays one list of steps.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ..store import Store, ThreadSummary
from ..threads.thread_list import hit_records, status_records
from ..threads.thread_status import STATUSES, waiting_on_human
from . import data, routes
from .inert import literal

STATUS_KEY = "threads_status"
ANY = "any"
INDEX_SECONDS = 8.0  # a search brings the index up to date for about this long per run of the page
STATUS_HELP = ("idle: nothing stored since the newest checkpoint; busy: a step under way (tasks wrote, its checkpoint "
               "is not written yet); interrupted: waiting on a human (the question follows); error: a task's stored "
               "error (it follows)")
COLUMN_CONFIG = {
    "status": st.column_config.TextColumn(width="medium", help=STATUS_HELP),
    "found in": st.column_config.TextColumn(help="the text the search found: a message, a tool call, a file name, "
                                                 "the title, metadata; or the thread's id or a checkpoint id"),
    "snippet": st.column_config.TextColumn(width="large", help="the text around the words found, secrets masked"),
    "step": st.column_config.NumberColumn(width="small", help="the step where that text appears: a selected row "
                                                               "opens the thread there"),
}


def _status(text: str) -> str:
    if text not in (ANY, *STATUSES):
        raise ValueError(f"use one of {', '.join((ANY, *STATUSES))}")
    return text


def status_choice() -> str | None:
    """The status the list is filtered by (None: any), bound to the URL's ``status``."""
    problem = routes.bind(STATUS_KEY, "status", ANY, _status)
    if problem:
        st.warning(literal(problem), icon=":material/link_off:")
    picked = st.segmented_control("Status", (ANY, *STATUSES), key=STATUS_KEY, help=STATUS_HELP)
    routes.keep(STATUS_KEY, "status", picked or ANY, ANY)
    return None if picked in (None, ANY) else picked


def add_status_column(frame: pd.DataFrame, rows: list[ThreadSummary]) -> pd.DataFrame:
    """``frame`` (one row per thread, ``rows`` order) with the status column after the title."""
    if frame.empty:
        return frame
    frame = frame.copy()
    at = list(frame.columns).index("title") + 1 if "title" in frame.columns else len(frame.columns)
    frame.insert(at, "status", [r["status"] for r in status_records(rows)])
    return frame


def add_hit_columns(frame: pd.DataFrame, rows: list[ThreadSummary]) -> pd.DataFrame:
    """``frame`` with where a search found each thread: what the text is, its snippet and its step, after its
    title and status."""
    if frame.empty:
        return frame
    frame = frame.copy()
    columns = list(frame.columns)
    after = next((name for name in ("status", "title", "thread") if name in columns), None)
    at = columns.index(after) + 1 if after else 0
    records = hit_records(rows)
    for offset, name in enumerate(("found in", "snippet", "step")):
        values = [r[name] for r in records]
        frame.insert(at + offset, name, pd.array(values, dtype="Int64") if name == "step" else values)
    return frame


def opened_at(store: Store, row: ThreadSummary) -> dict[str, str]:
    """The thread page's URL parameters for a selected row: the step where the search found it, else its newest."""
    hit = row.hit
    if hit is not None and hit.checkpoint_id:
        return routes.checkpoint_params(row.thread_id, hit.checkpoint_id, hit.ns, step=hit.step)
    return routes.thread_params(store, row.thread_id)


def indexing_note(listing: Any) -> None:
    """What bringing the search index up to date left to read, and a button to go on."""
    found = getattr(listing, "found", None)
    if found is None or found.refreshed.done:
        return
    left = found.refreshed.left
    st.info(f"The search index is still being brought up to date: {left:,} thread(s) written since the last search "
            "are not read yet, and these results leave them out.", icon=":material/hourglass_top:")
    st.button("Go on indexing", icon=":material/refresh:", key="threads_index_more")


def waiting_section(store: Store, cache: Any) -> None:
    """Every thread of the store waiting on a human: its question, since when, a link to the step it waits at."""
    waiting = data.masked(waiting_on_human(store, cache))
    if not waiting:
        return
    with st.expander(f"Waiting on a human: {len(waiting)} thread(s)", icon=":material/front_hand:", expanded=True):
        frame = pd.DataFrame([{"thread": w.thread_id, "title": w.title or "", "question": w.question,
                               "since": w.since, "open": routes.checkpoint_href(w.thread_id, w.checkpoint_id)}
                              for w in waiting])
        st.dataframe(frame, hide_index=True, width="stretch", column_config={
            "thread": st.column_config.TextColumn(width="medium"),
            "question": st.column_config.TextColumn(width="large", help="what the interrupt asks, as the thread's "
                                                                         "profile reads it"),
            "since": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm:ss", help="when the thread stopped "
                                                                                       "(its newest checkpoint)"),
            "open": st.column_config.LinkColumn(display_text="open", help="the thread at the step it waits at"),
        })
