"""Threads: a searchable, paged, sortable table of the store's threads; a row opens the thread."""

from __future__ import annotations

import streamlit as st

from ..history.thread_list import SearchTooLong, ThreadPages, thread_records
from ..profiles import listed_readings
from ..store import StoreError
from . import data, reveal, routes, sizes_views
from .inert import literal
from .tables import frame_of, in_units

PAGE_SIZE = 50
PROFILE_HELP = ("the app each thread is read with, chosen from what its newest checkpoint holds (open a thread to "
                "see why)")
SEARCH_KEY = "threads_q"


def render() -> None:
    st.title("Threads")
    store = data.opened_store()
    if store is None:
        return
    for stray in ("thread", "checkpoint", "ns", "step", routes.PANEL_PARAM):  # Back from a thread lands here with them
        st.query_params.pop(stray, None)
    routes.bind(SEARCH_KEY, "q", "")
    search = st.text_input("Search", key=SEARCH_KEY, placeholder="thread id, title, checkpoint id or metadata value",
                           help="Matches the thread id, the title, a checkpoint id or a metadata value, as the list shows them")
    routes.keep(SEARCH_KEY, "q", search, "")
    left, right = st.columns([3, 2], vertical_alignment="bottom")
    with left:
        order = sizes_views.sort_choice()
    unmasked = reveal.search_unmasked()
    try:
        listing = ThreadPages(store, search or None, order, mask=None if unmasked else data.masked)
        total = listing.total
        pages = max(1, -(-total // PAGE_SIZE))
        page = st.number_input("Page", min_value=1, max_value=pages, value=1) if pages > 1 else 1
        listed = listing.page(PAGE_SIZE, (page - 1) * PAGE_SIZE)
        chosen = listed_readings(store, listed, data.analysis_cache(store))  # each thread's app: a store may mix them
        rows = data.masked(listed)
        with right:
            sizes = sizes_views.size_columns(store, rows)
    except SearchTooLong as exc:
        st.warning(literal(f"Search not run: {exc}."), icon=":material/search_off:")
        return
    except StoreError as exc:
        st.error(f"Reading the thread list failed: {literal(exc)}")
        return
    if not total:
        _nothing_found(search)
        return
    st.caption(f"{total} thread(s) · select a row to open it")
    frame = sizes_views.add_size_columns(frame_of(thread_records(rows, chosen)), rows, sizes)
    frame, stored = in_units(frame, "stored bytes", help="checkpoints and writes as stored")
    frame, state = in_units(frame, "state size", help="bytes of the newest root state, all fields")
    nonce = st.session_state.get("threads_table_nonce", 0)
    event = st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=f"threads_table_{nonce}",
        column_config={
            "thread": st.column_config.TextColumn(width="medium", pinned=True),
            "title": st.column_config.TextColumn(width="medium"),
            "profile": st.column_config.TextColumn(width="small", help=PROFILE_HELP),
            "namespaces": st.column_config.NumberColumn(width="small", help="root graph plus subgraph namespaces"),
            "last update": st.column_config.DatetimeColumn(format="YYYY-MM-DD HH:mm:ss"),
            **sizes_views.LIST_COLUMN_CONFIG,
            **stored,
            **state,
        },
    )
    sizes_views.flag_note(rows, sizes)
    if event.selection.rows:
        thread_id = rows[event.selection.rows[0]].thread_id
        st.session_state["threads_table_nonce"] = nonce + 1  # coming back must not reopen it
        # the list's own parameters ride along: Back lands on an entry holding them, and the list keeps them
        kept = {k: v for k, v in (("q", search), ("sort", order if order != "newest" else "")) if v}
        routes.go("thread", {**routes.thread_params(store, thread_id), **kept})


def _clear_search() -> None:
    st.session_state[SEARCH_KEY] = ""


def _nothing_found(search: str) -> None:
    if search:
        st.info(literal(f"No thread matches “{search}” (its id, title, checkpoint ids and metadata as shown)."),
                icon=":material/search_off:")
        st.button("Clear the search", icon=":material/close:", on_click=_clear_search, key="threads_clear")
    else:
        st.info("This store holds no thread yet.", icon=":material/inbox:")
