"""The state view's field views for DeerFlow's ThreadState (see ``state_view.FIELD_VIEWS``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pandas as pd
import streamlit as st

from ..formatting import to_jsonable
from ..media.paths import area_rows, both_paths
from ..formatting import human_bytes
from ..store import CheckpointState, Store
from ..state.todos import STATUS_LABELS, progress, todo_board
from .conversation_view import messages_view
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


def uploaded_files_view(value: Any, ctx: FieldContext) -> None:
    if not value:
        st.caption("no uploads in this turn")
        return
    rows = []
    for item in value if isinstance(value, list) else [value]:
        entry = dict(item) if isinstance(item, dict) else {"value": item}
        entry["physical"] = both_paths(entry.get("path"), ctx.thread_data)[1] if entry.get("path") else None
        rows.append(entry)
    st.dataframe(pd.DataFrame(to_jsonable(rows)), hide_index=True)


def artifacts_view(value: Any, ctx: FieldContext) -> None:
    if not value:
        st.caption("no artifacts")
        return
    for item in value if isinstance(value, list) else [value]:
        if isinstance(item, str):
            virtual, physical = both_paths(item, ctx.thread_data)
            st.markdown(f"- {code_span(virtual or item)}" + (f"  \n  on disk: {code_span(physical)}" if physical else ""))
        else:
            show_value(item, expanded=1)


def viewed_image_rows(value: Any, thread_data: Any) -> list[dict[str, Any]]:
    rows = []
    for path, entry in (value or {}).items() if isinstance(value, dict) else []:
        entry = entry if isinstance(entry, dict) else {}
        inline = entry.get("base64")
        size = entry.get("size") if isinstance(entry.get("size"), int) else None
        if isinstance(inline, str):
            size = len(inline) * 3 // 4
        rows.append({
            "path": path,
            "type": entry.get("mime_type"),
            "size": human_bytes(size) if size is not None else None,
            "stored as": "inline base64" if isinstance(inline, str) else "file on disk" if entry.get("actual_path") else "?",
            "physical": entry.get("actual_path") or both_paths(path, thread_data)[1],
        })
    return rows


def viewed_images_view(value: Any, ctx: FieldContext) -> None:
    if not value:
        st.caption("no viewed images" if value == {} else "empty")
        return
    st.dataframe(pd.DataFrame(viewed_image_rows(value, ctx.thread_data)), hide_index=True)


DEFAULT_VIEWS: dict[str, FieldView] = {
    "messages": messages_view,
    "title": title_view,
    "sandbox": sandbox_view,
    "thread_data": thread_data_view,
    "todos": todos_view,
    "uploaded_files": uploaded_files_view,
    "artifacts": artifacts_view,
    "viewed_images": viewed_images_view,
}
