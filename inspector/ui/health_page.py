"""Health: every thread ranked by stored bytes, the largest analysed in depth, the fields that account for
their bytes, and every flag raised.

The ranking is one aggregate over lengths in the database, so the largest thread
comes first however many threads the store holds; the top ``health_top_threads``
are then measured and linted (through the analysis cache), with a progress bar.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from ..state.drift import drift_lines
from ..sizes.accounting import store_sizes, what_if_lines
from ..store import StoreError
from ..formatting import human_bytes
from . import connection, routes
from .inert import literal
from .sizes_views import health_of, render_flags
from .tables import byte_columns


def _analyse(store, threads) -> list:
    """Health of each thread, largest first, with a progress bar counting checkpoints."""
    total = sum(t.checkpoints for t in threads)
    bar = st.progress(0.0, text=f"Analysing {len(threads)} thread(s): 0 / {total:,} checkpoints")
    reports, done = [], 0
    for thread in threads:
        reports.append(health_of(store, thread.thread_id, thread.newest_checkpoint_id))
        done += thread.checkpoints
        bar.progress(done / total if total else 1.0, text=f"Analysing {len(threads)} thread(s): {done:,} / {total:,} checkpoints")
    bar.empty()
    return reports


def render() -> None:
    st.title("Health")
    store = connection.store()
    if store is None:
        return
    top = connection.settings().health_top_threads
    try:
        totals = store.totals()
        threads = store.threads(limit=top, sort="stored")
        reports = _analyse(store, threads)
    except StoreError as exc:
        st.error(f"Reading the store failed: {literal(exc)}")
        return
    if not reports:
        st.info("This store has no threads.")
        return
    summary = store_sizes([r.sizes for r in reports], reports[0].sizes.accounting, totals)
    st.caption(f"All {totals.threads:,} thread(s) ranked by stored bytes; the largest {len(reports)} analysed in depth "
               f"(setting health_top_threads = {top}).")
    a, b, c, d = st.columns(4)
    a.metric("Stored", human_bytes(summary.store_bytes), help=f"the whole store ({totals.threads:,} threads, "
             f"{totals.checkpoints:,} checkpoints); accounting: {summary.accounting}")
    b.metric("Spent on repeats", human_bytes(summary.repeated_bytes), help=f"in the {len(reports)} threads analysed")
    c.metric("Flags", sum(len(r.flags) for r in reports))
    d.metric("Threads flagged", f"{sum(1 for r in reports if r.flags)} of {len(reports)} analysed")
    keep = reports[0].sizes.what_if.keep_newest
    st.caption("In the threads analysed: " + " · ".join(what_if_lines(
        keep, summary.keep_newest_saved_bytes, summary.viewed_images_repeated_bytes, summary.base64_in_messages_bytes)))
    st.subheader("The largest threads, by stored bytes")
    st.dataframe(pd.DataFrame([
        {"thread": r.thread_id, "stored bytes": r.sizes.stored_bytes, "newest state": r.sizes.last_total_bytes,
         "repeats": r.sizes.repeated_bytes, "flags": ", ".join(r.codes())}
        for r in reports
    ]), hide_index=True, width="stretch", column_config=byte_columns("stored bytes", "newest state", "repeats"))
    st.subheader("Bytes per field, in the threads analysed")
    fields = pd.DataFrame({"field": list(summary.fields), "stored bytes": list(summary.fields.values())})
    st.altair_chart(alt.Chart(fields.head(15)).mark_bar().encode(
        x=alt.X("stored bytes:Q"), y=alt.Y("field:N", sort="-x"), tooltip=["field", alt.Tooltip("stored bytes:Q", format=",")],
    ), width="stretch")
    drifted = [r for r in reports if r.schema_drift.unknown_channels]
    if drifted:
        st.subheader("Schema drift")
        st.caption("Channels these threads hold that the schema does not declare: replay leaves them unverified.")
        for report in drifted:
            routes.link("thread", report.thread_id, {"thread": report.thread_id}, icon=":material/schema:")
            st.text(drift_lines(report.schema_drift, unwritten=False)[0])
    st.subheader("Flags")
    for report in (r for r in reports if r.flags):
        routes.link("thread", f"{report.thread_id}: {len(report.flags)} flag(s)", {"thread": report.thread_id},
                    icon=":material/timeline:")
        render_flags(report)
