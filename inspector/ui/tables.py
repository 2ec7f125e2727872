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
    from pandas.io.formats.style import Styler


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


UNIT_HELP = "1 KB = 1,000 bytes, 1 MB = 1,000,000 bytes"
EXACT = "{}, exact"  # the column beside a size column holding its exact byte counts


def _size_cell(value: Any) -> str:
    from ..formatting import human_bytes

    return human_bytes(int(value))


def _number_cell(value: Any) -> str:
    """A number as the table would print it without a Styler: whole numbers as they are, others to 4 places."""
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.4f}".rstrip("0").rstrip(".")
    return str(int(value)) if isinstance(value, float) else str(value)


def in_units(frame: pd.DataFrame, *names: str, help: str | dict[str, str] | None = None,
             exact: bool | tuple[str, ...] = True) -> tuple[Styler, dict[str, object]]:
    """``frame`` for ``st.dataframe`` with each byte-count column of ``names`` shown in a unit of its own per cell
    (``512 B``, ``2.0 KB``, ``1.34 MB``: ``formatting.human_bytes``), so a small value never reads ``0.00 MB`` beside a
    large one; the columns stay numbers (the bytes themselves), so they still sort as sizes. ``exact`` (True: every one
    of ``names``) adds, right after each such column, ``<name>, exact``: the byte count itself, digits grouped.
    ``help``: the columns' help, one text or one per name. Returns a pandas Styler (its display values are what the
    cells show; missing values blank) and the ``column_config``."""
    import pandas as pd

    frame = frame.copy()
    config: dict[str, object] = {}
    exact_names = names if exact is True else tuple(exact or ())
    sizes = [n for n in names if n in frame.columns]
    for name in sizes:
        values = pd.to_numeric(frame[name], errors="coerce")
        frame[name] = values
        said = help.get(name) if isinstance(help, dict) else help
        config[name] = st.column_config.NumberColumn(
            help="; ".join(dict.fromkeys(p for p in (said, "each cell in its own unit", UNIT_HELP) if p)))
        if name in exact_names:
            frame.insert(frame.columns.get_loc(name) + 1, EXACT.format(name), values)
            config[EXACT.format(name)] = st.column_config.NumberColumn(format="localized", width="small",
                                                                       help=f"{name}: the exact bytes")
    numbers = [c for c in frame.columns if c not in sizes and frame[c].dtype.kind == "f"]
    styler = frame.style.format(na_rep="").format(_number_cell, subset=numbers, na_rep="")
    return styler.format(_size_cell, subset=sizes, na_rep=""), config


def metric_row(key: str):
    """A row of ``st.metric`` (each drawn with ``width="content"``) that wraps onto a second line where it
    does not fit, so no value is cut to "20.22 …" in a narrow window."""
    return st.container(horizontal=True, gap="large", key=key)
