"""Threads: a searchable, paged table of the store's threads."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from . import connection, sizes_views

PAGE_SIZE = 50


def render() -> None:
    st.title("Threads")
    store = connection.store()
    if store is None:
        return
    search = st.text_input("Search", value=st.query_params.get("q", ""), placeholder="thread id or metadata value")
    total = store.count_threads(search or None)
    pages = max(1, -(-total // PAGE_SIZE))
    page = st.number_input("Page", min_value=1, max_value=pages, value=1) if pages > 1 else 1
    rows = store.threads(search or None, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE)
    rows, sizes = sizes_views.size_sorted(store, rows)
    st.caption(f"{total} thread(s)")
    frame = sizes_views.add_size_columns(pd.DataFrame(
        [
            {
                "thread": t.thread_id,
                "title": t.title,
                "checkpoints": t.checkpoints,
                "last update": t.updated_at,
                "stored bytes": t.stored_bytes,
            }
            for t in rows
        ]
    ), rows, sizes)
    st.dataframe(frame, hide_index=True, use_container_width=True, column_config=sizes_views.LIST_COLUMN_CONFIG)
    sizes_views.flag_note(rows, sizes)
