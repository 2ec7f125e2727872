"""Health: the whole store ranked by stored bytes, the fields that account for them, and every flag."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from ..drift import drift_lines
from ..sizes import store_sizes, what_if_lines
from ..store import StoreError
from ..units import human_bytes
from . import connection, routes
from .inert import literal
from .sizes_views import health_of, render_flags
from .tables import byte_columns

MAX_THREADS = 500


def render() -> None:
    st.title("Health")
    store = connection.store()
    if store is None:
        return
    try:
        threads = store.threads(limit=MAX_THREADS)
        with st.spinner(f"Measuring {len(threads)} thread(s)…"):
            reports = [health_of(store, t.thread_id, t.newest_checkpoint_id) for t in threads]
    except StoreError as exc:
        st.error(f"Reading the store failed: {literal(exc)}")
        return
    if not reports:
        st.info("This store has no threads.")
        return
    reports.sort(key=lambda r: (-r.sizes.stored_bytes, r.thread_id))
    summary = store_sizes([r.sizes for r in reports], reports[0].sizes.accounting)
    a, b, c, d = st.columns(4)
    a.metric("Stored", human_bytes(summary.stored_bytes), help=f"accounting: {summary.accounting}")
    b.metric("Spent on repeats", human_bytes(summary.repeated_bytes))
    c.metric("Flags", sum(len(r.flags) for r in reports))
    d.metric("Threads flagged", f"{sum(1 for r in reports if r.flags)} of {len(reports)}")
    keep = reports[0].sizes.what_if.keep_newest
    st.caption(" · ".join(what_if_lines(keep, summary.keep_newest_saved_bytes, summary.viewed_images_repeated_bytes,
                                         summary.base64_in_messages_bytes)))
    st.subheader("Threads by stored bytes")
    st.dataframe(pd.DataFrame([
        {"thread": r.thread_id, "stored bytes": r.sizes.stored_bytes, "newest state": r.sizes.last_total_bytes,
         "repeats": r.sizes.repeated_bytes, "flags": ", ".join(r.codes())}
        for r in reports
    ]), hide_index=True, width="stretch", column_config=byte_columns("stored bytes", "newest state", "repeats"))
    st.subheader("Bytes per field, all threads")
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
