"""One memory item on the Memory page: its times, TTL and expiry, vector rows, the threads it names (linked to their
thread pages), its problems one line each, and its value drawn as the state view draws a field: each top-level key
with what it holds and its size, then its JSON tree. A value too big to draw as a tree lists its fields only."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import streamlit as st

from ..formatting import dumps, human_bytes
from ..memory import Item
from ..memory.report import row_expiry, vector_text
from ..memory.times import is_expired, time_text
from ..memory.values import field_rows
from ..store import StoreError
from . import audit_trail, routes
from .inert import code_span, key_text, literal, show_table
from .values import show_value

TREE_CHARS = 1_000_000  # a value past this many characters of JSON lists its fields instead of drawing its tree


def render_item(item: Item, now: datetime, checkpoints: Any = None) -> None:
    """``item`` (already masked); ``checkpoints``: the open checkpoint store, to link the threads the item names."""
    row = item.row
    st.markdown(f"**{code_span(row.key)}** · {literal(human_bytes(row.bytes))} stored · "
                f"created {literal(time_text(row.created_at) or '?')} · updated {literal(time_text(row.updated_at) or '?')}")
    expiry = row_expiry(row, now)
    if is_expired(row.expires_at, now):
        st.warning(literal(f"TTL: {expiry}. LangGraph's TTL sweep deletes it; reads with omit_expired skip it."),
                   icon=":material/timer_off:")
    else:
        st.caption(literal(f"TTL: {expiry}"))
    if item.vectors:
        st.caption(literal(f"Vector rows (the store's index): {vector_text(item)}"))
    _threads(item.threads, checkpoints)
    for problem in item.problems:
        st.warning(literal(problem), icon=":material/warning:")
    if item.value is None:
        return
    if item.raw_chars > TREE_CHARS:
        st.info(literal(f"This value is {item.raw_chars:,} characters of JSON, more than the {TREE_CHARS:,} the page "
                        "draws as a tree: its fields are listed; the download below holds it whole (masked)."),
                icon=":material/data_object:")
        show_table([{**r, "json chars": f"{r['json chars']:,}"} for r in field_rows(item.value)],
                   ["field", "holds", "json chars"])
    elif isinstance(item.value, dict):
        for name, value in item.value.items():
            _field(str(name), value)
    else:
        show_value(item.value, expanded=1)
    st.download_button("Download the item as JSON", data=audit_trail.exported(
        lambda: dumps(item.value), what="memory item"), file_name=f"{key_text(row.key)}.json",
        mime="application/json", icon=":material/download:", on_click="ignore", key=f"memory-download-{key_text(row.key)}")


def _field(name: str, value: Any) -> None:
    (row,) = field_rows({name: value})
    with st.container(border=True):
        st.markdown(f"**{code_span(name)}** · {literal(row['holds'])} · {row['json chars']:,} characters as JSON")
        show_value(value, expanded=1)


def _threads(threads: list[str], checkpoints: Any) -> None:
    """A link to each thread the item names that the open checkpoint store holds; the others named as absent."""
    if not threads:
        return
    absent = []
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.caption("Written by (the item says):", width="content")
        for thread_id in threads:
            if checkpoints is not None and _has_thread(checkpoints, thread_id):
                routes.link("thread", f"thread {thread_id}", routes.checkpoint_params(thread_id),
                            icon=":material/timeline:", help="Open this thread's newest checkpoint")
            else:
                absent.append(thread_id)
    if absent:
        where = "this checkpoint store" if checkpoints is not None else "any open checkpoint store"
        st.caption(literal(f"Not in {where}: {', '.join(absent)}"))


def _has_thread(checkpoints: Any, thread_id: str) -> bool:
    try:
        return bool(checkpoints.history(thread_id, None, limit=1))
    except (StoreError, ValueError):
        return False
