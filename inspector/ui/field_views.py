"""What every field view gets (``FieldContext``), and the views any app's fields may use: JSON, a heading,
a todo board. A thread's profile names which field gets which (``panels.VIEWS``); DeerFlow's own views
are ``deerflow_views``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import streamlit as st

from ..state.todos import STATUS_LABELS, progress, todo_board
from ..store import CheckpointState, Store
from .inert import code_span, literal
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
