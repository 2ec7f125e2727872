"""The chart of a store's growth: bytes stored per day or hour, with each bucket's exact bytes in its tooltip.

Pure (pandas + Altair): the page hands it to ``st.altair_chart``; tests read the spec and the frame. Dates are
UTC, as the checkpoint ids carry them, and say so; sizes in one unit chosen from the data (``sizes.chart``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ..formatting import byte_unit, frame_unit, human_bytes

if TYPE_CHECKING:  # loaded when a chart is drawn
    import altair as alt
    import pandas as pd

    from .growth import GrowthReport

BAR_COLOR = "#0068c9"  # Streamlit's own first chart colour (the bars per field): the growth bars and their lines
# Per bucket: the axis labels' format, the tooltip's (the table's), and the bucket's length.
BUCKETS = {
    "day": ("%b %d", "%Y-%m-%d", timedelta(days=1)),
    "hour": ("%b %d %H:%M", "%Y-%m-%d %H:00", timedelta(hours=1)),
}


def growth_frame(report: GrowthReport) -> pd.DataFrame:
    """One row per bucket with checkpoints: its start and end (milliseconds since the epoch: times the browser
    reads the same in every time zone), its label as the table names it (``when``), the bytes
    stored in the unit of the largest bucket (``shown``), as a person reads them (``stored``) and exact
    (``bytes``), and the checkpoints written."""
    import pandas as pd

    _axis, label, step = BUCKETS[report.bucket]
    _unit, scale = byte_unit(max((p.bytes for p in report.points), default=0))
    return pd.DataFrame([{"start": _millis(_utc(p.start)), "end": _millis(_utc(p.start) + step),
                          "middle": _millis(_utc(p.start) + step / 2),
                          "when": _utc(p.start).strftime(label) + " UTC", "bytes": p.bytes, "shown": p.bytes / scale,
                          "stored": human_bytes(p.bytes), "checkpoints": p.checkpoints}
                         for p in report.points],
                        columns=["start", "end", "middle", "when", "bytes", "shown", "stored", "checkpoints"])


def growth_chart(report: GrowthReport) -> alt.LayerChart:
    """Bars of bytes stored per day or hour over the report's whole window (an empty stretch shows as such, and
    buckets dated past its end widen the axis), the y axis in one unit, the x axis in dates."""
    import altair as alt

    axis_format, _label, step = BUCKETS[report.bucket]
    frame = growth_frame(report)
    unit = frame_unit(frame)
    first = _floor(report.window_start, report.bucket)
    last = _floor(report.now, report.bucket) + step
    if report.points:  # a checkpoint dated after now (a writer's clock ahead) still draws inside the axis
        first = min(first, _utc(min(p.start for p in report.points)))
        last = max(last, _utc(max(p.start for p in report.points)) + step)
    domain = [alt.DateTime(year=t.year, month=t.month, date=t.day, hours=t.hour, utc=True) for t in (first, last)]
    x = alt.X("start:T", title=f"{report.bucket} (UTC)", scale=alt.Scale(type="utc", domain=domain),
              axis=alt.Axis(format=axis_format, labelOverlap=True, labelAngle=0))
    y = alt.Y("shown:Q", title=f"stored ({unit}) per {report.bucket}")
    tooltip = [alt.Tooltip("when:N", title=report.bucket), alt.Tooltip("stored:N", title="stored"),
               alt.Tooltip("bytes:Q", format=",", title="bytes"),
               alt.Tooltip("checkpoints:Q", format=",", title="checkpoints")]
    base = alt.Chart(frame)
    bars = base.mark_bar(color=BAR_COLOR).encode(x=x, x2="end:T", y=y, y2=alt.datum(0), tooltip=tooltip)  # each spans its bucket
    # a line at each bucket's middle: an hour of 90 days is narrower than a pixel, and still seen
    lines = base.mark_rule(strokeWidth=1.5, color=BAR_COLOR).encode(x=alt.X("middle:T", title=f"{report.bucket} (UTC)",
                                                           scale=alt.Scale(type="utc", domain=domain)),
                                                   y=y, y2=alt.datum(0), tooltip=tooltip)
    return alt.layer(bars, lines)


def _utc(moment: datetime) -> datetime:
    """``moment`` as a naive UTC datetime."""
    from datetime import timezone

    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def _floor(moment: datetime, bucket: str) -> datetime:
    moment = _utc(moment).replace(minute=0, second=0, microsecond=0)
    return moment.replace(hour=0) if bucket == "day" else moment


def _millis(moment: datetime) -> int:
    """Milliseconds since the epoch of a naive UTC datetime."""
    return round((moment - datetime(1970, 1, 1)).total_seconds() * 1000)
