"""The Health page's chart of bytes per field in the threads analysed (the store's growth per day or hour:
``operations.growth_chart``).

Pure (pandas + Altair): the page hands each chart to ``st.altair_chart``; tests read the spec and the frame.
Sizes are drawn in one unit chosen from the data (``byte_unit``: B, KB, MB or GB, named in the axis title);
tooltips give the size as a person reads it and the exact byte count. Dates are UTC, as the checkpoint ids
carry them, and say so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..formatting import human_bytes
from ..store.not_utf8 import spelled
from .chart import byte_unit, frame_unit

if TYPE_CHECKING:  # loaded when a chart is drawn
    import altair as alt
    import pandas as pd

FIELDS_SHOWN = 15


def field_frame(named: dict[str, int], limit: int = FIELDS_SHOWN) -> pd.DataFrame:
    """The ``limit`` largest fields of ``named`` (field -> stored bytes), largest first, with their bytes in the
    unit of the largest (column ``shown``), as a person reads them (``stored``) and exact (``bytes``)."""
    import pandas as pd

    top = sorted(named.items(), key=lambda item: -item[1])[:limit]
    _unit, scale = byte_unit(max((n for _, n in top), default=0))
    return pd.DataFrame([{"field": spelled(name), "bytes": size, "shown": size / scale, "stored": human_bytes(size)}
                         for name, size in top], columns=["field", "bytes", "shown", "stored"])


def field_chart(named: dict[str, int], limit: int = FIELDS_SHOWN) -> alt.Chart:
    """Horizontal bars: stored bytes per field, largest on top, the x axis in one unit."""
    import altair as alt

    frame = field_frame(named, limit)
    unit = frame_unit(frame)
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X("shown:Q", title=f"stored ({unit})"),
        y=alt.Y("field:N", sort="-x", title="field"),
        tooltip=["field:N", alt.Tooltip("stored:N", title="stored"),
                 alt.Tooltip("bytes:Q", format=",", title="bytes")],
    )
