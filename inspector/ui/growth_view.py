"""The Health page's growth section: bytes stored per day or hour, the top growers, the disk forecast.

Three aggregates over keys and lengths (``operations.growth``); no blob is read. Per day, summed from each
thread's summary in the analysis cache: another dashboard process, or the next run, reads only the threads
that changed.
"""

from __future__ import annotations

import streamlit as st

from ..formatting import human_bytes
from ..operations.growth import growth_report, growth_table
from ..operations.growth_chart import growth_chart
from ..store import StoreError
from .data import analysis_cache, masked
from .inert import literal
from .tables import frame_of, in_units, metric_row

WINDOWS = {"7 days": 7, "30 days": 30, "90 days": 90}


def render_growth(store, settings) -> None:
    st.subheader("Growth")
    left, right = st.columns(2)
    window = left.segmented_control("Window", list(WINDOWS), default="30 days", key="growth_window") or "30 days"
    bucket = right.segmented_control("Per", ["day", "hour"], default="day", key="growth_bucket") or "day"
    try:
        report = masked(growth_report(store, "store", bucket, WINDOWS[window], budget_bytes=settings.disk_budget_bytes,
                                      cache=analysis_cache(store)),
                        keys=False)  # thread ids and channel names as the other pages show them
    except StoreError as exc:
        st.info(f"Growth over time is not available for this store: {literal(exc)}")
        return
    forecast = report.forecast
    with metric_row("growth_metrics"):
        st.metric(f"Stored in the last {window}", human_bytes(forecast.window_bytes), width="content",
                  help=f"{forecast.window_bytes:,} bytes")
        st.metric("A day, on average", human_bytes(round(forecast.bytes_per_day)), width="content",
                  help=f"{round(forecast.bytes_per_day):,} bytes")
        st.metric("Disk budget passed", "—" if forecast.passes_at is None else f"{forecast.passes_at:%Y-%m-%d}",
                  width="content", help="setting disk_budget_bytes"
                  + (f" = {forecast.budget_bytes:,}" if forecast.budget_bytes else ": not set"))
    st.caption(f"Forecast: {forecast.verdict}. Basis: {forecast.basis}")
    rows = growth_table(report)
    if not rows:
        st.info(f"No checkpoint is dated in the last {window}.")
        return
    st.altair_chart(growth_chart(report), width="stretch")
    frame, units = in_units(frame_of(rows), "stored bytes", exact=True)
    st.dataframe(frame, hide_index=True, width="stretch", column_config=units)
    left, right = st.columns(2)
    for column, title, growers in ((left, "Threads that grew most", report.top_threads),
                                   (right, "Channels that grew most", report.top_channels)):
        column.markdown(f"**{title}**")
        frame, units = in_units(frame_of([{"key": g.key, "stored bytes": g.bytes, "share": f"{g.share:.0%}"}
                                               for g in growers]), "stored bytes", exact=True)
        column.dataframe(frame, hide_index=True, width="stretch", column_config=units)
    if report.channel_basis:
        st.caption(f"Per channel: {report.channel_basis}")
    if report.untimed_checkpoints or report.untimed_bytes:
        st.caption(f"Not dated (ids that are not uuid6, blobs no checkpoint names): {report.untimed_checkpoints:,} "
                   f"checkpoint(s), {human_bytes(report.untimed_bytes)}.")
