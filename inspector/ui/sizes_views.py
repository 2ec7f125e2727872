"""Size views: the per-thread size panel, the thread list's size and flag columns, cached health reads.

Health is cached per store URL, thread and newest checkpoint id, so a thread
that gains checkpoints is measured again and an unchanged one is not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from ..formatting import human_bytes
from ..schema.default import active_schema_name
from ..settings import Settings
from ..sizes.chart import THRESHOLD_SHOWN_FROM, first_over, size_chart
from ..sizes.health import ThreadHealth, thread_health
from ..sizes.health_report import HealthRow
from ..sizes.tables import FIELD_BYTES, field_rows, rebuilt_note
from ..sizes.what_if import what_if_text
from ..store import CheckpointRow, CheckpointState, Store, StoreError, ThreadSummary
from ..store.model import THREAD_SORTS
from . import connection, data, routes
from .delta_view import render_delta_chains, render_delta_what_if
from .inert import literal
from .progress import progress_bar
from .tables import frame_of, in_units

if TYPE_CHECKING:
    import pandas as pd


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=max(data.MAX_ENTRIES, 256), show_spinner=False)
def _health(url: str, schema_name: str, thread_id: str, newest: str | None) -> dict[str, ThreadHealth]:
    return {}  # filled once by the first page run that asks, with its progress bar


def health_of(store: Store, thread_id: str, newest: str | None = None, drift: bool = True) -> ThreadHealth:
    """Sizes, flags and schema drift of one thread (kept until its newest checkpoint or the schema changes;
    each checkpoint's sizes also go to the analysis cache, so the next look measures only new ones).
    ``drift=False`` (the thread list): the drift may be left out (``schema_drift`` None) where measuring it
    would build an app's schema (``thread_health``)."""
    # the schema named, not loaded; the profile the page reads the thread with
    held = _health(store.url, f"{active_schema_name()}|{data.read_as(store, thread_id)}", thread_id, newest)
    if "health" not in held and (drift or "listed" not in held):
        with progress_bar(f"Measuring {thread_id}") as progress:
            found = data.masked(thread_health(store, thread_id, connection.settings(), data.analysis_cache(store),
                                              progress, drift=drift), keys=False)
        held["health" if found.schema_drift is not None else "listed"] = found
    return held.get("health") or held["listed"]



def size_panel(store: Store, thread_id: str, row: CheckpointRow, state: CheckpointState) -> None:
    """Thread page panel: stacked bytes per field over the timeline, the threshold, this thread's flags."""
    with st.spinner("Measuring the thread…"):
        health = health_of(store, thread_id, _newest(store, thread_id))
    render_thread_sizes(health, connection.settings(), row.checkpoint_id)
    render_delta_what_if(store, thread_id)
    render_delta_chains(store, thread_id)


def _newest(store: Store, thread_id: str) -> str | None:
    """The newest root checkpoint id (as the thread list has it): the cache key that changes as the thread grows."""
    head = data.thread_history(store, thread_id).history.head
    return head[1] if head is not None else None


def render_thread_sizes(health: ThreadHealth, config: Settings, selected_id: str | None = None) -> None:
    report = health.sizes
    # Two by two: the panel sits in the thread page's right column, too narrow for four values like "341.8 KB".
    a, b = st.columns(2)
    c, d = st.columns(2)
    a.metric("Stored", human_bytes(report.stored_bytes), help=f"{report.stored_bytes:,} bytes; accounting: {report.accounting}")
    first = report.checkpoints[0].step if report.checkpoints else None
    b.metric("Newest state", human_bytes(report.last_total_bytes),
             delta=f"{human_bytes(report.growth_bytes)} since step {first}", delta_color="inverse",
             help=f"{report.last_total_bytes:,} bytes of the newest root state; the arrow is its growth since the "
                  f"thread's first checkpoint (step {first}), {report.growth_bytes:,} bytes")
    c.metric("Spent on repeats", human_bytes(report.repeated_bytes),
             help=f"{report.repeated_bytes:,} bytes: the same payload stored again, by content hash")
    d.metric("Flags", len(health.flags))
    crossed = first_over(report, config.oversize_state_bytes)
    if crossed is not None:
        step = report.checkpoints[crossed].step
        crossing = report.checkpoints[crossed].checkpoint_id
        st.warning(f"State passes the {human_bytes(config.oversize_state_bytes)} limit at step {literal(step)} "
                   f"(checkpoint {literal(crossing)}).", icon=":material/warning:")
        routes.checkpoint_links(health.thread_id, [crossing], panel=SIZE_PANEL, lead="Open it:")
    st.altair_chart(size_chart(report, config.oversize_state_bytes, selected_id), width="stretch")
    peak = max((c.total_bytes for c in report.checkpoints), default=0)
    limit = (f"dashed red line: the {human_bytes(config.oversize_state_bytes)} oversize limit"
             if peak >= config.oversize_state_bytes * THRESHOLD_SHOWN_FROM
             else f"peak {human_bytes(peak)}, far below the {human_bytes(config.oversize_state_bytes)} oversize limit")
    st.caption(f"Root graph only, oldest first; {limit}. Bytes as stored ({report.accounting}).")
    fields, units = in_units(field_frame(health), *FIELD_BYTES)
    st.dataframe(fields, hide_index=True, width="stretch", column_config=units)
    if note := rebuilt_note(report):
        st.caption(literal(note))
    st.caption(what_if_text(report.what_if))
    render_flags(health)


def field_frame(health: ThreadHealth) -> pd.DataFrame:

    return frame_of(field_rows(health.sizes))


SIZE_PANEL = "Size"
# the panel a flagged checkpoint opens with: where the flag's evidence is drawn
FLAG_PANELS = {"uncleared-images": "Images over time", "image-context-in-checkpoints": "Images over time",
               **dict.fromkeys(("base64-in-state", "dangling-tool-call", "todos-in-progress", "artifact-outside-outputs",
                                "artifact-duplicate-path", "messages-unsummarised", "unreadable-checkpoint",
                                "corrupt-checkpoint"), "State")}


def render_flags(health: ThreadHealth | HealthRow) -> None:
    for flag in health.flags:
        title = f"{flag.code}" + (f" · {flag.field}" if flag.field else "")
        with st.expander(f":material/flag: {literal(title)}: {literal(flag.summary)}"):
            st.markdown(f"**Why it matters:** {literal(flag.why)}\n\n**Usual fix:** {literal(flag.fix)}")
            routes.checkpoint_links(flag.thread_id, list(flag.checkpoint_ids), panel=FLAG_PANELS.get(flag.code, SIZE_PANEL),
                                    lead="Flagged checkpoints:", key=f"flag-{flag.code}-{flag.field}")


def list_columns(store: Store, rows: list[ThreadSummary]) -> dict[str, dict[str, object]]:
    """For the thread list: each thread's newest state size and its flag codes."""
    columns: dict[str, dict[str, object]] = {}
    for row in rows:
        try:
            health = health_of(store, row.thread_id, row.newest_checkpoint_id, drift=False)
        except StoreError as exc:
            columns[row.thread_id] = {"state size": None, "flags": f"unreadable: {exc}"}
            continue
        columns[row.thread_id] = {"state size": health.sizes.last_total_bytes, "flags": ", ".join(health.codes())}
    return columns


LIST_COLUMN_CONFIG = {
    "flags": st.column_config.TextColumn(help="health flags raised; see the Health page"),
}


SORT_LABELS = {"stored": "stored size"}  # the others read as Store.threads names them
# Above this many stored bytes on one page of the list, sizes and flags are measured on request only.
LIST_MEASURE_BYTES = 200_000_000


def _sort(text: str) -> str:
    if text not in THREAD_SORTS:
        raise ValueError(f"use one of {', '.join(THREAD_SORTS)}")
    return text


def sort_choice() -> str:
    """The order the user picked for the thread list, as ``Store.threads`` names it (over every thread);
    it travels in the URL as ``sort``."""
    problem = routes.bind("threads_sort", "sort", "newest", _sort)
    if problem:
        st.warning(literal(problem), icon=":material/link_off:")
    picked = st.segmented_control("Sort by", THREAD_SORTS, key="threads_sort",
                                  format_func=lambda sort: SORT_LABELS.get(sort, sort),
                                  help="the whole store is sorted, not only this page")
    routes.keep("threads_sort", "sort", picked or "newest", "newest")
    return picked or "newest"


def size_columns(store: Store, rows: list[ThreadSummary]) -> dict[str, dict[str, object]]:
    """The page's state size and flag columns, measured unless the page holds too many bytes to do it unasked."""
    cheap = sum(r.stored_bytes for r in rows) <= LIST_MEASURE_BYTES
    measure = st.toggle("Sizes and flags", value=cheap, key="threads_measure",
                        help="reads every checkpoint of the listed threads (nothing is decoded but each branch's newest state)")
    return list_columns(store, rows) if measure else {r.thread_id: {"state size": None, "flags": ""} for r in rows}


def add_size_columns(frame: pd.DataFrame, rows: list[ThreadSummary], columns: dict[str, dict[str, object]]) -> pd.DataFrame:
    """The thread list frame (one row per thread, in ``rows`` order) with state size and flag columns."""
    if frame.empty:
        return frame
    frame = frame.copy()
    at = list(frame.columns).index("thread") + 1 if "thread" in frame.columns else len(frame.columns)
    for offset, name in enumerate(("flags", "state size")):
        frame.insert(at + offset, name, [columns[r.thread_id][name] for r in rows])
    return frame


def flag_note(rows: list[ThreadSummary], columns: dict[str, dict[str, object]]) -> None:
    """One line under the thread list naming the flagged threads on this page, each a link to its thread's Size
    panel (where its flags are listed) on its newest checkpoint: nothing more is read for it."""
    flagged = [r for r in rows if columns[r.thread_id]["flags"]]
    if not flagged:
        return
    with st.container(horizontal=True, gap="small", vertical_alignment="center", key="flagged_threads"):
        st.markdown(f":material/flag: {len(flagged)} flagged:")
        for row in flagged:
            routes.link("thread", f"{row.thread_id} ({columns[row.thread_id]['flags']})",
                        routes.checkpoint_params(row.thread_id, panel=SIZE_PANEL),
                        help="Open this thread's sizes and flags")
        st.caption("details on the Health page")
