"""Tables for ``st.dataframe``: missing values shown blank.

``st.dataframe`` prints a missing cell as a grey "None", which reads as a value
("ended at step: None"). A column with missing cells is shown as text instead,
blank where the value is missing (the JSON and CLI output keep their nulls).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st


def _text(value: Any) -> str:
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


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
    return blank_missing(pd.DataFrame(rows))


def byte_columns(*names: str, help: str | None = None) -> dict[str, object]:
    """``column_config`` for byte counts: digits grouped (``8,961,710``), still sorted as numbers."""
    return {name: st.column_config.NumberColumn(format="localized", help=help) for name in names}
