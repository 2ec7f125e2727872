"""The history widgets of the thread page: navigator, checkpoint table and tree."""

from __future__ import annotations

from typing import Callable

import pandas as pd
import streamlit as st

from ..history import History, Key
from ..location import Location
from ..timeline_rows import timeline_records

PAGE_SIZE = 40
Select = Callable[[Location], None]


def _location(history: History, key: Key) -> Location:
    return Location(history.node(key).row.thread_id, key[1], key[0])


def _label(history: History, key: Key) -> str:
    row = history.node(key).row
    return f"step {row.step} · {row.source}"


def navigator(history: History, key: Key, select: Select) -> None:
    """Previous / next along the selected checkpoint's branch, and a step slider."""
    path = history.path_through(key)
    index = path.index(key)
    prev_col, slider_col, next_col = st.columns([1, 8, 1], vertical_alignment="bottom")
    if prev_col.button("Previous", icon=":material/chevron_left:", disabled=index == 0, key="nav_prev"):
        select(_location(history, path[index - 1]))
        st.rerun()
    if next_col.button("Next", icon=":material/chevron_right:", disabled=index == len(path) - 1, key="nav_next"):
        select(_location(history, path[index + 1]))
        st.rerun()
    if len(path) > 1:
        slider_key = f"nav_slider_{key[0]}_{key[1]}"
        chosen = slider_col.select_slider(
            "Checkpoint on this branch", options=list(range(len(path))), value=index,
            format_func=lambda i: _label(history, path[i]), key=slider_key,
        )
        if chosen != index:
            select(_location(history, path[chosen]))
            st.rerun()


def render(history: History, key: Key, select: Select) -> None:
    pages = history.page_count(PAGE_SIZE)
    page = history.page_of(key, PAGE_SIZE)
    if pages > 1:
        page = st.number_input(f"History page (of {pages}, newest first)", 1, pages, page + 1, key=f"hist_page_{key}") - 1
    keys = history.page(page, PAGE_SIZE)
    _table(history, keys, key, select)


def _table(history: History, keys: list[Key], key: Key, select: Select) -> None:
    frame = pd.DataFrame(timeline_records(history, keys))
    event = st.dataframe(
        frame,
        hide_index=True,
        on_select="rerun",
        selection_mode="single-row",
        key=f"cp_table_{key[0]}_{key[1]}",
        column_order=["step", "source", "time", "namespace", "branch", "wrote", "size", "fork"],
        column_config={
            "time": st.column_config.DatetimeColumn(format="HH:mm:ss.SSS"),
            "size": st.column_config.NumberColumn(help="stored bytes: checkpoint and its writes"),
        },
    )
    rows = event.selection.rows if event is not None else []
    if rows:
        picked = keys[rows[0]]
        if picked != key:
            select(_location(history, picked))
            st.rerun()
