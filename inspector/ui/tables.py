"""Tables for ``st.dataframe``: missing values shown blank.

``st.dataframe`` prints a missing cell as a grey "None", which reads as a value
("ended at step: None"). A column with missing cells is shown as text instead,
blank where the value is missing (the JSON and CLI output keep their nulls).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import streamlit as st

from ..safety.display_text import bidi_shown
from ..store.not_utf8 import is_not_utf8, shown

if TYPE_CHECKING:  # loaded when a table is drawn, not with the pages that may draw one
    import pandas as pd


def _text(value: Any) -> str:
    import pandas as pd

    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def shown_cells(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with every text cell that is not UTF-8 (an id a hostile SQLite store holds) as ``not_utf8.shown``
    writes it: a table cannot hold it as it is, and the person sees it marked; and a cell's bidi controls as their
    code points (``display_text.bidi_shown``), so an id cannot read as another one."""
    return [{k: _cell(v) if isinstance(v, str) else v for k, v in row.items()} for row in rows]


def _cell(text: str) -> str:
    return bidi_shown(shown(text) if is_not_utf8(text) else text)


def frame_of(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """``pd.DataFrame(rows)`` of cells a table can show (``shown_cells``)."""
    import pandas as pd

    return pd.DataFrame(shown_cells(rows))


def blank_missing(frame: pd.DataFrame, columns: list[str] | None = None) -> pd.DataFrame:
    """``frame`` with every column (of ``columns``, default all) that has a missing value turned
    into text, blank where missing."""
    frame = frame.copy()
    for column in frame.columns if columns is None else [c for c in columns if c in frame.columns]:
        if frame[column].isna().any():
            frame[column] = [_text(v) for v in frame[column].astype(object)]
    return frame


def table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A frame of ``rows`` for display, missing values blank."""
    return blank_missing(frame_of(rows))


def byte_columns(*names: str, help: str | None = None) -> dict[str, object]:
    """``column_config`` for byte counts: digits grouped (``8,961,710``), still sorted as numbers."""
    return {name: st.column_config.NumberColumn(format="localized", help=help) for name in names}


UNIT_HELP = "1 KB = 1,000 bytes, 1 MB = 1,000,000 bytes"


def in_units(frame: pd.DataFrame, *names: str, help: str | None = None,
             exact: bool | tuple[str, ...] = ()) -> tuple[pd.DataFrame, dict[str, object]]:
    """``frame`` with each byte-count column of ``names`` in one unit per column (B, KB, MB or GB, chosen by
    the column's largest value) and the ``column_config`` that prints the unit in every cell; the columns
    stay numbers, so they still sort as sizes. ``exact`` (True: every one of ``names``) adds, right after
    each such column, ``<name>, exact``: the byte count itself, digits grouped."""
    import pandas as pd

    from ..sizes.chart import byte_unit

    frame = frame.copy()
    config: dict[str, object] = {}
    exact_names = names if exact is True else tuple(exact or ())
    for name in (n for n in names if n in frame.columns):
        values = pd.to_numeric(frame[name], errors="coerce")
        unit, scale = byte_unit(int(values.max()) if values.notna().any() else 0)
        frame[name] = values / scale
        config[name] = st.column_config.NumberColumn(
            format=f"%d {unit}" if scale == 1 else f"%.{1 if unit == 'KB' else 2}f {unit}",
            help="; ".join(p for p in (help, UNIT_HELP) if p))
        if name in exact_names:
            frame.insert(frame.columns.get_loc(name) + 1, f"{name}, exact", values)
            config[f"{name}, exact"] = st.column_config.NumberColumn(format="localized", help="bytes")
    return frame, config


def metric_row(key: str):
    """A row of ``st.metric`` (each drawn with ``width="content"``) that wraps onto a second line where it
    does not fit, so no value is cut to "20.22 …" in a narrow window."""
    return st.container(horizontal=True, gap="large", key=key)
