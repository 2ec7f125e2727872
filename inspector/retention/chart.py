"""The Retention page's chart: bytes a plan reclaims per thread, threads it would damage in red.

Pure (pandas + Altair): the page hands the chart to ``st.altair_chart``; tests read the spec.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..formatting import human_bytes
from ..store.not_utf8 import shown
from .plan import Plan

BREAKS = "breaks something"
SAFE = "breaks nothing"
COLOURS = {SAFE: "#4c78a8", BREAKS: "#d62728"}


def bytes_frame(plan: Plan, limit: int = 25) -> pd.DataFrame:
    """The ``limit`` threads reclaiming most, biggest first."""
    return pd.DataFrame([
        {"thread": shown(t.thread_id), "bytes": t.bytes, "reclaimed": human_bytes(t.bytes), "checkpoints": t.checkpoints,
         "breaks": len(t.breaks), "status": BREAKS if t.breaks else SAFE}
        for t in plan.threads[:limit]
    ], columns=["thread", "bytes", "reclaimed", "checkpoints", "breaks", "status"])


def bytes_chart(plan: Plan, limit: int = 25) -> alt.Chart:
    frame = bytes_frame(plan, limit)
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("bytes:Q", title="bytes reclaimed"),
        y=alt.Y("thread:N", sort="-x", title=None),
        color=alt.Color("status:N", scale=alt.Scale(domain=list(COLOURS), range=list(COLOURS.values())),
                        legend=alt.Legend(title=None, orient="bottom")),
        tooltip=["thread", "reclaimed", "checkpoints", "breaks"],
    )
