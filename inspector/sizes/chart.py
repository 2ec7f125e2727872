"""The size chart's data and Vega-Lite spec: stacked bytes per field over a thread's timeline.

Pure (pandas + Altair): the dashboard hands the chart to ``st.altair_chart``; tests
read the spec and the frame directly.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..formatting import byte_unit, frame_unit, human_bytes  # noqa: F401 (the units, named here too)
from ..store import is_internal_channel
from ..store.not_utf8 import spelled
from .accounting import ThreadSizes

if TYPE_CHECKING:  # loaded when a chart is drawn, not with the module (``byte_unit`` names units for tables too)
    import altair as alt
    import pandas as pd

INTERNAL = "(internal channels)"
# The threshold line is drawn once the thread's peak reaches this share of it; below, it would
# squash the thread's own curve against the axis.
THRESHOLD_SHOWN_FROM = 0.25


def size_frame(report: ThreadSizes) -> pd.DataFrame:
    """Long-form rows: one per (checkpoint, field), in timeline order; internal channels folded into one."""
    import pandas as pd

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
                "checkpoint_id": spelled(checkpoint.checkpoint_id),  # a tooltip: an id not UTF-8 escaped, marked
                "field": spelled(name),
                "bytes": size,
                "total": checkpoint.total_bytes,
                "stored": human_bytes(size),  # the tooltip's sizes as a person reads them, beside the exact bytes
                "state": human_bytes(checkpoint.total_bytes),
            })
    return pd.DataFrame(records, columns=["checkpoint", "step", "checkpoint_id", "field", "bytes", "total", "stored", "state"])


def step_axis(steps: list[int | None], title: str = "step (oldest first)") -> alt.Axis:
    """An x axis over checkpoint positions labelled with each checkpoint's step, as the timeline names it."""
    import altair as alt

    labels = json.dumps(["?" if s is None else str(s) for s in steps])
    return alt.Axis(title=title, tickMinStep=1, format="d",
                    labelExpr=f"datum.value % 1 ? '' : ({labels}[datum.value] || '')")


def first_over(report: ThreadSizes, threshold: int) -> int | None:
    """Position of the first checkpoint whose state passes ``threshold``, or None."""
    return next((i for i, c in enumerate(report.checkpoints) if c.total_bytes > threshold), None)


def size_chart(report: ThreadSizes, threshold: int, selected_id: str | None = None) -> alt.LayerChart:
    """Stacked area of bytes per field, a dashed threshold rule (when the thread comes near it),
    and the selected checkpoint marked."""
    import altair as alt
    import pandas as pd

    frame = size_frame(report)
    order = [spelled(f.field) for f in report.fields if not f.internal and spelled(f.field) in set(frame["field"])]
    if INTERNAL in set(frame["field"]):
        order.append(INTERNAL)
    peak = max((c.total_bytes for c in report.checkpoints), default=0)
    shown_peak = max(peak, threshold) if peak >= threshold * THRESHOLD_SHOWN_FROM else peak
    unit, scale = byte_unit(shown_peak)
    frame = frame.assign(shown=frame["bytes"] / scale)
    areas = alt.Chart(frame).mark_area(interpolate="step-after", opacity=0.85, aria=False).encode(
        x=alt.X("checkpoint:Q", axis=step_axis([c.step for c in report.checkpoints])),
        y=alt.Y("shown:Q", stack="zero", title=f"stored {unit} per checkpoint"),
        color=alt.Color("field:N", sort=order, title="field"),
        order=alt.Order("field_rank:Q"),
        tooltip=[alt.Tooltip("step:Q", title="step"), alt.Tooltip("checkpoint_id:N", title="checkpoint"), "field:N",
                 alt.Tooltip("stored:N", title="stored"), alt.Tooltip("bytes:Q", format=",", title="bytes"),
                 alt.Tooltip("state:N", title="state"), alt.Tooltip("total:Q", format=",", title="state bytes")],
    ).transform_calculate(field_rank=_rank_expression(order))
    layers: list[alt.Chart] = [areas]
    if peak >= threshold * THRESHOLD_SHOWN_FROM:
        limit = alt.Chart(pd.DataFrame({"threshold": [threshold], "threshold_shown": [threshold / scale],
                                        "label": [f"limit {human_bytes(threshold)}"]}))
        layers += [
            limit.mark_rule(color="#d62728", strokeDash=[6, 4], size=2, aria=False).encode(y="threshold_shown:Q"),
            limit.mark_text(align="left", dx=4, dy=-6, color="#d62728", aria=False).encode(
                y="threshold_shown:Q", x=alt.value(0), text="label:N"),
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
