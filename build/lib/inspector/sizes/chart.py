"""The size chart's data and Vega-Lite spec: stacked bytes per field over a thread's timeline.

Pure (pandas + Altair): the dashboard hands the chart to ``st.altair_chart``; tests
read the spec and the frame directly.
"""

from __future__ import annotations

import json

import altair as alt
import pandas as pd

from ..formatting import human_bytes
from ..store import is_internal_channel
from .accounting import ThreadSizes

INTERNAL = "(internal channels)"
# The threshold line is drawn once the thread's peak reaches this share of it; below, it would
# squash the thread's own curve against the axis.
THRESHOLD_SHOWN_FROM = 0.25


def size_frame(report: ThreadSizes) -> pd.DataFrame:
    """Long-form rows: one per (checkpoint, field), in timeline order; internal channels folded into one."""
    records = []
    for position, checkpoint in enumerate(report.checkpoints):
        folded: dict[str, int] = {}
        for name, size in checkpoint.fields.items():
            key = INTERNAL if is_internal_channel(name) else name
            folded[key] = folded.get(key, 0) + size
        for name, size in folded.items():
            records.append({
                "checkpoint": position,
                "step": checkpoint.step,
                "checkpoint_id": checkpoint.checkpoint_id,
                "field": name,
                "bytes": size,
                "total": checkpoint.total_bytes,
            })
    return pd.DataFrame(records, columns=["checkpoint", "step", "checkpoint_id", "field", "bytes", "total"])


def first_over(report: ThreadSizes, threshold: int) -> int | None:
    """Position of the first checkpoint whose state passes ``threshold``, or None."""
    return next((i for i, c in enumerate(report.checkpoints) if c.total_bytes > threshold), None)


def size_chart(report: ThreadSizes, threshold: int, selected_id: str | None = None) -> alt.LayerChart:
    """Stacked area of bytes per field, a dashed threshold rule (when the thread comes near it),
    and the selected checkpoint marked."""
    frame = size_frame(report)
    order = [f.field for f in report.fields if not f.internal and f.field in set(frame["field"])]
    if INTERNAL in set(frame["field"]):
        order.append(INTERNAL)
    areas = alt.Chart(frame).mark_area(interpolate="step-after", opacity=0.85, aria=False).encode(
        x=alt.X("checkpoint:Q", title="checkpoint (oldest first)"),
        y=alt.Y("bytes:Q", stack="zero", title="stored bytes"),
        color=alt.Color("field:N", sort=order, title="field"),
        order=alt.Order("field_rank:Q"),
        tooltip=["checkpoint:Q", "step:Q", "checkpoint_id:N", "field:N",
                 alt.Tooltip("bytes:Q", format=","), alt.Tooltip("total:Q", format=",")],
    ).transform_calculate(field_rank=_rank_expression(order))
    layers: list[alt.Chart] = [areas]
    peak = max((c.total_bytes for c in report.checkpoints), default=0)
    if peak >= threshold * THRESHOLD_SHOWN_FROM:
        limit = alt.Chart(pd.DataFrame({"threshold": [threshold], "label": [f"limit {human_bytes(threshold)}"]}))
        layers += [
            limit.mark_rule(color="#d62728", strokeDash=[6, 4], size=2, aria=False).encode(y="threshold:Q"),
            limit.mark_text(align="left", dx=4, dy=-6, color="#d62728", aria=False).encode(
                y="threshold:Q", x=alt.value(0), text="label:N"),
        ]
    positions = [i for i, c in enumerate(report.checkpoints) if c.checkpoint_id == selected_id]
    if positions:
        marker = alt.Chart(pd.DataFrame({"checkpoint": positions}))
        layers.append(marker.mark_rule(color="#444", strokeDash=[2, 2], aria=False).encode(x="checkpoint:Q"))
    return alt.layer(*layers).properties(height=320)


def _rank_expression(order: list[str]) -> str:
    """A Vega expression giving each field its stacking rank (largest field at the bottom)."""
    expr = str(len(order))
    for rank, name in reversed(list(enumerate(order))):
        expr = f"datum.field === {_js_string(name)} ? {rank} : ({expr})"
    return expr


def _js_string(text: str) -> str:
    return json.dumps(text)
