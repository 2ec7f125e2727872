"""Memory: LangGraph's long-term memory store (``BaseStore``) beside the checkpoints, or in the database the
``memory_db`` setting names. The namespace tree with counts and bytes, the items of a namespace, one item whole
(masked, inert, drawn as the state view draws fields), TTL and expiry, vector rows, growth per day.

The URL carries where the page is: ``?namespace=users.alice.memories&key=m1`` (ids as ``location.url_id`` spells
them). The tree is one aggregate over lengths, cached; a namespace's items are read a page at a time; an item's
value only when it is shown; growth only when asked for.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import streamlit as st

from ..formatting import human_bytes
from ..history.location import id_from_url, url_id
from ..memory import ITEM_SORTS, MemoryReader, namespace_of, open_memory, prefix_of
from ..memory.report import GROWTH_NOTE, growth_rows, item_rows, layout_line, summary_line
from ..memory.times import time_text
from ..memory.tree import Node, build_tree, find, indented, totals, tree_rows
from ..store import StoreError, display_url
from . import audit_trail, connection
from .data import HASH_FUNCS, TTL, masked
from .inert import code_span, key_text, literal
from .memory_view import render_item
from .tables import frame_of, in_units, metric_row

PAGE_ITEMS = 100
NAMESPACE_PARAM, KEY_PARAM = "namespace", "key"


def _close(reader: MemoryReader) -> None:
    reader.close()


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=3600, max_entries=4, show_spinner="Opening the memory store…",
                   on_release=_close)
def _reader(url: str) -> MemoryReader:
    return open_memory(url, connection.settings().pg_statement_timeout_ms)


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=4, show_spinner="Counting the memory store…")
def _tree(url: str, minute: str, _reader: MemoryReader) -> Node:
    return build_tree(_reader.namespaces())


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=32, show_spinner=False)
def _items(url: str, prefix: str, page: int, sort: str, minute: str, _reader: MemoryReader) -> list:
    return masked(_reader.items(prefix, PAGE_ITEMS, page * PAGE_ITEMS, sort))


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=16, show_spinner="Reading the item…")
def _item(url: str, prefix: str, key: str, minute: str, _reader: MemoryReader) -> Any:
    item = _reader.item(prefix, key)
    return None if item is None else masked(item)


def memory_url() -> str:
    """The memory store's database: the ``memory_db`` setting, else the checkpoint store's."""
    return connection.settings().memory_db or connection.current_url()


def render() -> None:
    st.title("Memory")
    url = memory_url()
    if not url:
        st.error(literal(st.session_state.get("inspector_start_error", "No store is configured.")))
        return
    try:
        reader = _reader(url)
    except StoreError as exc:
        st.error(f"Cannot open the memory store: {literal(exc)}", icon=":material/error:")
        return
    if not reader.present:
        st.info(f"{literal(display_url(url))} holds no LangGraph memory store: no {code_span('store')} table beside "
                "the checkpoints (LangGraph's SqliteStore and PostgresStore create it in their setup). For one kept in "
                "another database, set memory_db (INSPECTOR_MEMORY_DB).", icon=":material/inbox:")
        return
    now = datetime.now(timezone.utc)
    minute = f"{now:%Y-%m-%d %H:%M}"  # what is cached is read again at most a minute later (new items, expiry)
    try:
        root = _tree(url, minute, reader)
    except StoreError as exc:
        st.error(f"Reading the memory store failed: {literal(exc)}", icon=":material/error:")
        return
    st.caption(f"LangGraph's long-term memory store at {literal(reader.where)} ({literal(layout_line(reader))}); "
               "read-only. Values are masked as state values are.")
    _metrics(root)
    path = _namespace(root)
    _breadcrumb(path)
    _tree_table(root, path)
    if path:
        node = find(root, path)
        if node is not None and node.own_items:
            _items_section(reader, url, prefix_of(path), node.own_items, now, minute)
    if st.toggle("Show growth over time", key="memory_growth"):
        _growth(reader)


def _metrics(root: Node) -> None:
    total = totals(root)
    with metric_row("memory_metrics"):
        st.metric("Items", f"{total.items:,}", width="content")
        st.metric("Namespaces", f"{total.namespaces:,}", width="content")
        st.metric("Stored", human_bytes(total.bytes), width="content", help=f"{total.bytes:,} bytes of values")
        st.metric("With a TTL", f"{total.with_ttl:,}", width="content")
        st.metric("Expired, not swept", f"{total.expired:,}", width="content",
                  help="Past their expiry time; LangGraph's TTL sweep deletes them when it runs")
        st.metric("Vector rows", f"{total.vector_rows:,}", width="content",
                  help=f"{total.vector_bytes:,} bytes of embeddings (the store's index)")
    st.caption(literal(summary_line(total)))


def _namespace(root: Node) -> tuple[str, ...]:
    """The namespace the URL names (the root when none, or one this store does not hold: said)."""
    given = st.query_params.get(NAMESPACE_PARAM)
    if not given:
        return ()
    prefix = id_from_url(given)
    path = namespace_of(prefix)
    if find(root, path) is None:
        st.warning(literal(f"No namespace {prefix!r} in this memory store; showing every namespace."),
                   icon=":material/warning:")
        return ()
    return path


def _go(path: tuple[str, ...], key: str | None = None) -> None:
    st.query_params.pop(KEY_PARAM, None)
    if path:
        st.query_params[NAMESPACE_PARAM] = url_id(prefix_of(path))
    else:
        st.query_params.pop(NAMESPACE_PARAM, None)
    if key is not None:
        st.query_params[KEY_PARAM] = url_id(key)


def _breadcrumb(path: tuple[str, ...]) -> None:
    with st.container(horizontal=True, gap="small", vertical_alignment="center"):
        st.button("All namespaces", icon=":material/account_tree:", type="tertiary", on_click=_go, args=((),),
                  disabled=not path, key="memory-crumb-root")
        for depth in range(len(path)):
            st.caption("›", width="content")
            st.button(literal(path[depth] or "(empty label)"), type="tertiary", on_click=_go, args=(path[:depth + 1],),
                      disabled=depth == len(path) - 1, key=f"memory-crumb-{depth}-{key_text(path[depth])}")


def _tree_table(root: Node, path: tuple[str, ...]) -> None:
    """The whole tree when it fits one table (the namespace on screen marked ●), else the part below it."""
    laid = tree_rows(root)
    whole = not laid.left_out or not path
    if not whole:
        laid = tree_rows(root, path)
    if not laid.rows:
        return
    st.subheader("Namespaces" if whole else "Below this namespace")
    rows = [{"namespace": indented(r["label"], r["depth"], tuple(r["namespace"]) == path and bool(path)),
             "items": r["items"], "bytes": r["bytes"],
             "stored here": r["items here"], "with TTL": r["with TTL"], "expired": r["expired"],
             "vector rows": r["vector rows"], "newest update": time_text(r["newest update"])} for r in laid.rows]
    frame, units = in_units(frame_of(rows), "bytes")
    picked = st.dataframe(frame, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                          key=f"memory-tree-{key_text(prefix_of(path))}", column_config=units)
    if laid.left_out:
        st.caption(f"And {laid.left_out:,} more namespace(s) below: pick one above to see its part of the tree.")
    chosen = picked.selection.rows if picked is not None else []
    if chosen and tuple(laid.rows[chosen[0]]["namespace"]) != path:  # (the row on screen picked again: stay)
        _go(tuple(laid.rows[chosen[0]]["namespace"]))
        st.rerun()


def _items_section(reader: MemoryReader, url: str, prefix: str, stored: int, now: datetime, minute: str) -> None:
    st.subheader(f"Items stored in {literal(prefix)}")
    pages = max(1, -(-stored // PAGE_ITEMS))
    left, right = st.columns(2)
    sort = left.segmented_control("Order", list(ITEM_SORTS), default="key", key=f"memory-sort-{key_text(prefix)}") \
        or "key"
    page = 1 if pages == 1 else right.number_input(f"Page (of {pages:,}, {PAGE_ITEMS} items each)", 1, pages, 1,
                                                   key=f"memory-page-{key_text(prefix)}")
    try:
        items = _items(url, prefix, int(page) - 1, sort, minute, reader)
    except StoreError as exc:
        st.error(f"Reading the items failed: {literal(exc)}", icon=":material/error:")
        return
    rows = item_rows(items, now)
    frame, units = in_units(frame_of([{k: v for k, v in r.items() if k != "expired"} for r in rows]), "bytes")
    picked = st.dataframe(frame, hide_index=True, width="stretch", on_select="rerun", selection_mode="single-row",
                          key=f"memory-items-{key_text(prefix)}-{page}-{sort}", column_config=units)
    chosen = picked.selection.rows if picked is not None else []
    given = st.query_params.get(KEY_PARAM)
    if chosen and (not given or id_from_url(given) != items[chosen[0]].key):
        _go(namespace_of(prefix), items[chosen[0]].key)
        st.rerun()
    if given:
        _item_section(reader, url, prefix, id_from_url(given), now, minute)
    else:
        st.caption("Pick an item to see it whole.")


def _item_section(reader: MemoryReader, url: str, prefix: str, key: str, now: datetime, minute: str) -> None:
    try:
        item = _item(url, prefix, key, minute, reader)
    except StoreError as exc:
        st.error(f"Reading the item failed: {literal(exc)}", icon=":material/error:")
        return
    if item is None:
        st.warning(literal(f"No item {key!r} in namespace {prefix!r} (deleted, or swept after it expired)."),
                   icon=":material/warning:")
        return
    audit_trail.record_view("memory_view", None, namespace=prefix, key=key)
    with st.container(border=True, key=f"memory-item-{key_text(prefix, key)}"):
        render_item(item, now, _checkpoints())


def _checkpoints() -> Any:
    """The open checkpoint store, to link the threads an item names (None when none opens: nothing is said here,
    the thread pages say why)."""
    url = connection.current_url()
    if not url:
        return None
    try:
        return connection._open(url)  # the pages' own cached store; its errors belong to the pages that need it
    except StoreError:
        return None


def _growth(reader: MemoryReader) -> None:
    try:
        rows = growth_rows(reader.growth())
    except StoreError as exc:
        st.error(f"Reading growth failed: {literal(exc)}", icon=":material/error:")
        return
    if not rows:
        st.info("No item is dated.")
        return
    chart = frame_of([{"day": r["day"], "items so far": r["items so far"]} for r in rows])
    st.bar_chart(chart, x="day", y="items so far", height=220)
    frame, units = in_units(frame_of(rows), "bytes")
    st.dataframe(frame, hide_index=True, width="stretch", column_config=units)
    st.caption(GROWTH_NOTE)
