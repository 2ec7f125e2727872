"""DeerFlow's own field views: its sandbox id and its thread's user-data folders (named by DeerFlow's profile,
``profiles.deerflow.FIELD_VIEWS``; its uploads, artifacts and viewed images are drawn by ``media_views``)."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..profiles.deerflow.files.paths import AREA_KEYS, area_rows
from .field_views import FieldContext, json_view
from .inert import code_span, show_table


def sandbox_view(value: Any, ctx: FieldContext) -> None:
    if isinstance(value, dict) and set(value) <= {"sandbox_id"}:
        st.markdown(f"sandbox id: {code_span(value.get('sandbox_id'))}")
    else:
        json_view(value, ctx)


def thread_data_view(value: Any, ctx: FieldContext) -> None:
    """``thread_data``: each user-data folder's agent-visible path beside the physical one DeerFlow stored (three
    rows: a Markdown table, not a data grid, whose script the browser would load for them)."""
    show_table(area_rows(value), ["area", "virtual", "physical"])
    extra = {k: v for k, v in (value or {}).items() if k not in AREA_KEYS} if isinstance(value, dict) else value
    if extra:
        json_view(extra, ctx)
