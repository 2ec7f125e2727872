"""The Retention page's chart: bytes a plan reclaims per thread, threads it would damage in red.

Pure (pandas + Altair): the page hands the chart to ``st.altair_chart``; tests read the spec.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from ..formatting import byte_unit, frame_unit, human_bytes
from ..store.not_utf8 import spelled
from .plan import Plan

BREAKS = "breaks something"
SAFE = "breaks nothing"
COLOURS = {SAFE: "#4c78a8", BREAKS: "#d62728"}


def bytes_frame(plan: Plan, limit: int = 25) -> pd.DataFrame:
    """The ``limit`` threads reclaiming most, biggest first; ``shown``: their bytes in the unit of the largest."""
    threads = plan.threads[:limit]
    _unit, scale = byte_unit(max((t.bytes for t in threads), default=0))
    return pd.DataFrame([
        {"thread": spelled(t.thread_id), "bytes": t.bytes, "shown": t.bytes / scale, "reclaimed": human_bytes(t.bytes),
         "checkpoints": t.checkpoints, "breaks": len(t.breaks), "status": BREAKS if t.breaks else SAFE}
        for t in threads
    ], columns=["thread", "bytes", "shown", "reclaimed", "checkpoints", "breaks", "status"])


def bytes_chart(plan: Plan, limit: int = 25) -> alt.Chart:
    """Bars of bytes reclaimed per thread, the axis in one unit (B, KB, MB or GB) named in its title."""
    frame = bytes_frame(plan, limit)
    unit = frame_unit(frame)
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("shown:Q", title=f"reclaimed ({unit})"),
        y=alt.Y("thread:N", sort="-x", title=None),
        color=alt.Color("status:N", scale=alt.Scale(domain=list(COLOURS), range=list(COLOURS.values())),
                        legend=alt.Legend(title=None, orient="bottom")),
        tooltip=["thread", "reclaimed", alt.Tooltip("bytes:Q", format=",", title="bytes"), "checkpoints", "breaks"],
    )
