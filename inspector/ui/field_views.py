"""What every field view gets (``FieldContext``), and the views any app's fields may use: JSON, a heading,
a todo board, a sandbox id, the user-data folders (laid out by the thread's profile, ``Profile.media``). A
thread's profile names which field gets which (``panels.VIEWS``); files and images are drawn by
``media_views``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

from ..profiles import media
from ..state.todos import STATUS_LABELS, progress, todo_board
from ..store import CheckpointState, Store
from .inert import code_span, literal, show_table
from .values import show_value


@dataclass(frozen=True)
class FieldContext:
    """What a field view may use besides the value: the field's name, the whole state, the store."""

    name: str
    state: CheckpointState
    store: Store | None = None


FieldView = Callable[[Any, FieldContext], None]


def json_view(value: Any, ctx: FieldContext) -> None:
    show_value(value, expanded=1)


def title_view(value: Any, ctx: FieldContext) -> None:
    st.markdown(f"### {literal(value)}" if isinstance(value, str) and value else "_no title yet_")


def todos_view(value: Any, ctx: FieldContext) -> None:
    board = todo_board(value)
    done, total = progress(board)
    st.progress(done / total if total else 0.0, text=f"{done} of {total} completed")
    columns = st.columns(len(board))
    for column, (status, items) in zip(columns, board.items()):
        with column:
            st.markdown(f"**{literal(STATUS_LABELS.get(status, status))}** ({len(items)})")
            for todo in items:
                st.markdown(f"- {literal(todo.text)}" if todo.text else f"- {code_span(todo.raw)}")


def sandbox_view(value: Any, ctx: FieldContext) -> None:
    if isinstance(value, dict) and set(value) <= {"sandbox_id"}:
        st.markdown(f"sandbox id: {code_span(value.get('sandbox_id'))}")
    else:
        json_view(value, ctx)


def thread_data_view(value: Any, ctx: FieldContext) -> None:
    """``thread_data``: each user-data folder's agent-visible path beside the physical one the app stored, as the
    thread's profile lays them out (three rows: a Markdown table, not a data grid, whose script the browser would
    load for them); JSON where the profile names no files."""
    files = media()
    if files is None:
        json_view(value, ctx)
        return
    show_table(files.area_rows(value), ["area", "virtual", "physical"])
    extra = {k: v for k, v in (value or {}).items() if k not in files.AREA_KEYS} if isinstance(value, dict) else value
    if extra:
        json_view(extra, ctx)
