"""Field views for DeerFlow's ThreadState, and what every field view gets (listed in ``panels.FIELD_VIEWS``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd
import streamlit as st

from ..media.paths import area_rows
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

    @property
    def thread_data(self) -> Any:
        return self.state.values.get("thread_data")


FieldView = Callable[[Any, FieldContext], None]


def json_view(value: Any, ctx: FieldContext) -> None:
    show_value(value, expanded=1)


def title_view(value: Any, ctx: FieldContext) -> None:
    st.markdown(f"### {literal(value)}" if isinstance(value, str) and value else "_no title yet_")


def sandbox_view(value: Any, ctx: FieldContext) -> None:
    if isinstance(value, dict) and set(value) <= {"sandbox_id"}:
        st.markdown(f"sandbox id: {code_span(value.get('sandbox_id'))}")
    else:
        json_view(value, ctx)


def thread_data_view(value: Any, ctx: FieldContext) -> None:
    st.dataframe(pd.DataFrame(area_rows(value)), hide_index=True)
    extra = {k: v for k, v in (value or {}).items() if k not in {"workspace_path", "uploads_path", "outputs_path"}} \
        if isinstance(value, dict) else value
    if extra:
        json_view(extra, ctx)


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
