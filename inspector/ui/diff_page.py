"""Diff: any two checkpoints of a thread, or of two threads, compared field by field, in reducer terms.

Deep links: ``/diff?thread=ID&from=CHECKPOINT&to=CHECKPOINT&ns=NAMESPACE``; across threads
``/diff?thread=ID&against=OTHER&from=CHECKPOINT_OF_ID&to=CHECKPOINT_OF_OTHER`` (root graphs).
"""

from __future__ import annotations

import streamlit as st

from ..store import CheckpointRow, NotFound, Store, StoreError
from . import audit_trail, connection, data, routes
from .diff_view import compare, compare_threads, render_diff, render_replay_table
from .inert import literal


def _label(row: CheckpointRow) -> str:
    return f"step {row.step} · {row.source} · …{row.checkpoint_id[-12:]}"


def _pick(label: str, rows: list[CheckpointRow], wanted: str | None, key: str) -> str:
    ids = [r.checkpoint_id for r in rows]
    index = ids.index(wanted) if wanted in ids else 0
    names = {r.checkpoint_id: _label(r) for r in rows}
    return st.selectbox(label, ids, index=index, format_func=names.get, key=key)


def render() -> None:
    st.title("Diff")
    store = connection.store()
    if store is None:
        return
    params = st.query_params
    thread_id = st.text_input("Thread", value=params.get("thread", ""), placeholder="thread id")
    if not thread_id:
        st.info("Enter a thread id, or open this page from a thread.")
        return
    try:
        timeline = data.timeline(store, thread_id)
    except NotFound:
        st.error(literal(f"There is no thread {thread_id!r} in this store."), icon=":material/error:")
        routes.link("threads", "Find it in the thread list", {"q": thread_id}, icon=":material/search:")
        return
    except StoreError as exc:
        st.error(literal(exc))
        return
    other = st.text_input("Against another thread", value=params.get("against", ""),
                          placeholder="optional: another thread's id, to compare two runs of one task")
    if other:
        _render_across(store, thread_id, timeline, other)
        return
    st.query_params.pop("against", None)
    namespaces = sorted({r.checkpoint_ns for r in timeline})
    ns = params.get("ns", "")
    if len(namespaces) > 1:
        ns = st.selectbox("Namespace", namespaces, index=namespaces.index(ns) if ns in namespaces else 0,
                          format_func=lambda n: n or "(root graph)")
    rows = [r for r in timeline if r.checkpoint_ns == ns]  # newest first
    if not rows:
        st.error(literal(f"No checkpoints in namespace {ns!r} for thread {thread_id!r}."))
        return
    by_id = {r.checkpoint_id: r for r in rows}
    unknown = [f"{name} {params[name]!r}" for name in ("to", "from") if params.get(name) and params[name] not in by_id]
    if unknown:
        st.warning(literal(f"Not a checkpoint of this thread in namespace {ns or 'root'!r}: {', '.join(unknown)}. "
                           "Showing the newest checkpoint against its parent instead."), icon=":material/warning:")
    position = {r.checkpoint_id: i for i, r in enumerate(rows)}  # 0: the newest
    wanted_from, wanted_to = params.get("from"), params.get("to")
    if wanted_from in position and wanted_to in position and position[wanted_from] < position[wanted_to]:
        st.info(literal(f"From ({_label(by_id[wanted_from])}) is newer than To ({_label(by_id[wanted_to])}): "
                        "swapped, so the diff reads forward in time."), icon=":material/swap_horiz:")
        wanted_from, wanted_to = wanted_to, wanted_from
    from_col, to_col = st.columns(2)  # From left of To: the order they happened in
    with to_col:
        to_id = _pick("To (the later checkpoint)", rows, wanted_to, "diff-to")
    default_from = wanted_from if wanted_from in by_id else by_id[to_id].parent_checkpoint_id
    with from_col:
        from_id = _pick("From (the earlier checkpoint)", rows, default_from or rows[-1].checkpoint_id, "diff-from")
    internal = st.toggle("Show LangGraph's internal channels", value=False)
    st.query_params.update({"thread": thread_id, "from": from_id, "to": to_id, "ns": ns})
    try:
        result, check = compare(store, thread_id, from_id, to_id, ns, internal)
    except (NotFound, StoreError, ValueError) as exc:
        st.error(literal(exc))
        return
    audit_trail.record_view("diff_view", thread_id, to_id, ns, from_checkpoint=from_id)
    relation = "parent → child" if result.adjacent else "not a checkpoint and its parent"
    st.caption(literal(f"{_label(by_id[from_id])} → {_label(by_id[to_id])} ({relation})"))
    render_diff(result, check)
    if st.toggle("Replay every step of this thread", value=params.get("replay") == "1", key="diff-replay-all"):
        render_replay_table(store, thread_id, ns)


def _render_across(store: Store, thread_id: str, timeline: list[CheckpointRow], other: str) -> None:
    """A checkpoint of ``thread_id`` against one of ``other`` (root graphs; default: the newest of each)."""
    try:
        other_timeline = data.timeline(store, other)
    except (NotFound, StoreError) as exc:
        st.error(literal(exc))
        return
    rows = [r for r in timeline if not r.checkpoint_ns]
    other_rows = [r for r in other_timeline if not r.checkpoint_ns]
    if not rows or not other_rows:
        st.error("Both threads need a checkpoint in their root graph to be compared.")
        return
    params = st.query_params
    from_col, to_col = st.columns(2)
    with from_col:
        from_id = _pick(f"From: a checkpoint of {literal(thread_id)}", rows, params.get("from"), "diff-across-from")
    with to_col:
        to_id = _pick(f"To: a checkpoint of {literal(other)}", other_rows, params.get("to"), "diff-across-to")
    internal = st.toggle("Show LangGraph's internal channels", value=False)
    st.query_params.update({"thread": thread_id, "against": other, "from": from_id, "to": to_id})
    st.query_params.pop("ns", None)
    try:
        result = compare_threads(store, thread_id, from_id, other, to_id, internal)
    except (NotFound, StoreError, ValueError) as exc:
        st.error(literal(exc))
        return
    audit_trail.record_view("diff_view", other, to_id, "", from_checkpoint=from_id, from_thread=thread_id)
    by_id = {r.checkpoint_id: r for r in rows + other_rows}
    st.caption(literal(f"{_label(by_id[from_id])} → {_label(by_id[to_id])} (two threads: messages are matched by "
                       "content, since each run gives them ids of its own)"))
    render_diff(result, None, key="diff-across")
