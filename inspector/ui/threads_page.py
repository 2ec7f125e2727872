"""Threads: a searchable, paged, sortable table of the store's threads; a row opens the thread."""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..profiles import listed_readings
from ..store import Store, StoreError
from ..threads.thread_list import SearchTooLong, thread_records
from ..threads.thread_listing import thread_pages
from . import data, reveal, routes, sizes_views, thread_search_view
from .inert import literal
from .progress import progress_bar
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
    search = st.text_input("Search", key=SEARCH_KEY, placeholder="words from a message, a tool call, a file name, the "
                           "title; a thread or checkpoint id",
                           help="Finds threads by what they hold (messages, tool calls and their arguments, file names, "
                                "the title, metadata: words, each matching a word's beginning) and by thread and "
                                "checkpoint ids (a substring), best match first; secrets are masked before anything is "
                                "searched")
    routes.keep(SEARCH_KEY, "q", search, "")
    left, right = st.columns([2, 1], vertical_alignment="bottom")
    with left, st.container(key="thread_list_choices"):  # their options wrap where the column is narrow
        order = sizes_views.sort_choice()
        status = thread_search_view.status_choice()
    unmasked = reveal.search_unmasked()
    cache = data.analysis_cache(store)
    if not _listed(store, search, order, status, unmasked, right, cache):
        return  # the store could not list its threads: the one error says why, nothing more is read
    try:
        thread_search_view.waiting_section(store, cache)
    except StoreError as exc:
        st.error(f"Reading which threads wait on a human failed: {literal(exc)}")


def _listed(store: Store, search: str, order: str, status: str | None, unmasked: bool, right: Any, cache: Any) -> bool:
    """The list itself: the threads of this page, searched and filtered, and a selected row opened; False when the
    store could not be read."""
    try:
        with progress_bar("Indexing the threads written since the last search", unit="threads") as progress:
            listing = thread_pages(store, search or None, order, mask=None if unmasked else data.masked, cache=cache,
                                   status=status, progress=progress, budget_seconds=thread_search_view.INDEX_SECONDS)
        total = listing.total
        pages = max(1, -(-total // PAGE_SIZE))
        page = st.number_input("Page", min_value=1, max_value=pages, value=1) if pages > 1 else 1
        listed = listing.page(PAGE_SIZE, (page - 1) * PAGE_SIZE)
        chosen = listed_readings(store, listed, cache)  # each thread's app: a store may mix them
        rows = data.masked(listed)
        with right:
            sizes = sizes_views.size_columns(store, rows)
    except SearchTooLong as exc:
        st.warning(literal(f"Search not run: {exc}."), icon=":material/search_off:")
        return True
    except StoreError as exc:
        st.error(f"Reading the thread list failed: {literal(exc)}")
        return False
    thread_search_view.indexing_note(listing)
    if not total:
        _nothing_found(search, status)
        return True
    st.caption(f"{total} thread(s){' · best match first' if listing.found else ''} · select a row to open it"
               + (" at the step where the search found it" if listing.found else ""))
    frame = sizes_views.add_size_columns(frame_of(thread_records(rows, chosen)), rows, sizes)
    frame = thread_search_view.add_status_column(frame, rows)
    if listing.found:
        frame = thread_search_view.add_hit_columns(frame, rows)
    frame, sizes_shown = in_units(frame, "stored bytes", "state size", help={
        "stored bytes": "checkpoints and writes as stored", "state size": "bytes of the newest root state, all fields"})
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
            **thread_search_view.COLUMN_CONFIG,
            **sizes_shown,
        },
    )
    sizes_views.flag_note(rows, sizes)
    if event.selection.rows:
        row = rows[event.selection.rows[0]]
        st.session_state["threads_table_nonce"] = nonce + 1  # coming back must not reopen it
        # the list's own parameters ride along: Back lands on an entry holding them, and the list keeps them
        kept = {k: v for k, v in (("q", search), ("sort", order if order != "newest" else ""),
                                  ("status", status or "")) if v}
        routes.go("thread", {**thread_search_view.opened_at(store, row), **kept})
    return True


def _clear_search() -> None:
    st.session_state[SEARCH_KEY] = ""


def _nothing_found(search: str, status: str | None) -> None:
    of = f" {status}" if status else ""
    if search:
        st.info(literal(f"No{of} thread matches “{search}” (what it holds, its title, ids and metadata, as shown)."),
                icon=":material/search_off:")
        st.button("Clear the search", icon=":material/close:", on_click=_clear_search, key="threads_clear")
    elif status:
        st.info(f"No thread is {status}.", icon=":material/inbox:")
    else:
        st.info("This store holds no thread yet.", icon=":material/inbox:")
