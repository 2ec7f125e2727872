"""Health: every thread ranked by stored bytes, the largest analysed in depth, the fields that account for
their bytes, and every flag raised.

The ranking is one aggregate over lengths in the database, so the largest thread
comes first however many threads the store holds; the top ``health_top_threads``
are then measured and linted (through the analysis cache), with a progress bar.
"""

from __future__ import annotations

import streamlit as st

from ..formatting import human_bytes
from ..sizes.health import store_health
from ..sizes.health_report import health_report, health_table
from ..sizes.store_charts import field_chart
from ..sizes.store_sizes import app_fields
from ..sizes.what_if import what_if_text
from ..state.drift import drift_lines
from ..store import StoreError
from . import connection, data, routes
from .growth_view import render_growth
from .inert import literal, plain
from .sizes_views import health_of, render_flags
from .store_files_view import render_files, render_leftovers
from .tables import frame_of, in_units, metric_row


def _analyse(store, top: int, settings) -> list:
    """``store_health`` with each thread read through the page's cache, and a progress bar counting checkpoints."""
    bar = st.progress(0.0, text="Analysing the largest threads")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total if total else 1.0, text=f"Analysing: {done:,} / {total:,} checkpoints")

    def measure(thread, step):
        found = health_of(store, thread.thread_id, thread.newest_checkpoint_id)
        step(thread.checkpoints, thread.checkpoints)
        return found

    reports = store_health(store, settings, top, progress=progress, measure=measure)
    bar.empty()
    return reports


def render() -> None:
    st.title("Health")
    store = data.opened_store()
    if store is None:
        return
    settings = connection.settings()
    top = settings.health_top_threads
    try:
        totals = store.totals()
        report = health_report(_analyse(store, top, settings), settings, totals)
    except StoreError as exc:
        st.error(f"Reading the store failed: {literal(exc)}")
        return
    rows, summary = report.threads, report.summary
    if not rows:
        st.info("This store holds no checkpoint yet: no thread to rank, analyse or flag.", icon=":material/inbox:")
        render_files(store)  # what the files hold, and rows left behind, still say something
        render_leftovers(store)
        return
    st.caption(f"All {totals.threads:,} thread(s) ranked by stored bytes; the largest {len(rows)} analysed in depth "
               f"(setting health_top_threads = {top}).")
    with metric_row("health_metrics"):
        st.metric("Stored", human_bytes(summary.store_bytes), width="content",
                  help=f"{summary.store_bytes:,} bytes: the whole store ({totals.threads:,} threads, "
                       f"{totals.checkpoints:,} checkpoints); accounting: {summary.accounting}")
        st.metric("Spent on repeats", human_bytes(summary.repeated_bytes), width="content",
                  help=f"{summary.repeated_bytes:,} bytes stored again, in the {len(rows)} threads analysed")
        st.metric("Flags", report.flag_count, width="content")
        st.metric("Threads flagged", f"{report.flagged_threads} of {len(rows)}", width="content",
                  help="of the threads analysed in depth")
    st.caption("In the threads analysed: " + what_if_text(summary.what_if))
    st.subheader("The largest threads, by stored bytes")
    largest, units = in_units(frame_of(health_table(rows)), "stored bytes", "newest state", "repeats")
    picked = st.dataframe(largest, hide_index=True, width="stretch", on_select="rerun",
                          selection_mode="single-row", key="health_largest", column_config=units)
    st.caption("Select a row to open its thread.")
    if picked.selection.rows:
        routes.go("thread", routes.thread_params(store, rows[picked.selection.rows[0]].thread_id, panel="Size"))
    st.subheader("Bytes per field, in the threads analysed")
    named, internal = app_fields(summary)
    st.altair_chart(field_chart(named), width="stretch")
    if internal:
        st.caption(f"LangGraph's own channels (`__start__`, `branch:to:*`, `__pregel_tasks`, ...) are left out: "
                   f"{human_bytes(internal)}.")
    render_growth(store, settings)
    render_files(store)
    render_leftovers(store)
    drifted = [r for r in rows if r.schema_drift.unknown_channels]
    if drifted:
        st.subheader("Schema drift")
        st.caption("Channels these threads hold that the schema does not declare: replay leaves them unverified.")
        for row in drifted:
            routes.link("thread", row.thread_id, routes.thread_params(store, row.thread_id), icon=":material/schema:")
            st.text(plain(drift_lines(row.schema_drift, unwritten=False)[0]))
    st.subheader("Flags")
    if not report.flag_count:
        st.caption(f"None: no flag in the {len(rows)} thread(s) analysed.")
    for row in (r for r in rows if r.flags):
        routes.link("thread", f"{row.thread_id}: {len(row.flags)} flag(s)",
                    routes.thread_params(store, row.thread_id, panel="Size"), icon=":material/timeline:")
        render_flags(row)
