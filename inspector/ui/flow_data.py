"""The flow of a whole thread as the flow views draw it: its graph, every checkpoint's attribution and the history
they are read from (``whole_thread``, once per thread and newest checkpoint), names masked (``shown_key``)."""

from __future__ import annotations

import streamlit as st

from ..history.attribution import Attribution, attribute
from ..history.flow_graph import FlowGraph, infer_graph
from ..history.lineage import History, Key, build_history
from ..history.thread_history import ThreadHistory
from ..store import Store
from . import data, names


@st.cache_resource(hash_funcs=data.HASH_FUNCS, ttl=data.TTL, max_entries=data.MAX_ENTRIES, show_spinner=False)
def _whole_thread(url: str, thread_id: str, generation: int, newest: str, _store: Store,
                  _thread: ThreadHistory) -> tuple[FlowGraph, dict[Key, Attribution], History]:
    """The graph, every checkpoint's attribution and the history they are read from, once per thread and newest
    checkpoint (write keys only). They draw names: the history's namespaces are masked as names (``names``), so
    a subgraph named by a key-shaped node is drawn masked; its keys are ``shown_key``'s."""
    stored = _thread.history
    writes = _thread.write_keys(_store, list(stored.nodes))
    history = build_history(data.masked([stored.node(k).row for k in stored.ordered], names=True))
    writes = {shown_key(key): found for key, found in writes.items()}
    return infer_graph(history, writes), {key: attribute(history, key, writes) for key in history.nodes}, history


def shown_key(key: Key) -> Key:
    """A checkpoint's key in ``whole_thread``'s history: its namespace masked as a name."""
    return (names.shown(key[0]), key[1])


def whole_thread(store: Store, thread_id: str) -> tuple[FlowGraph, dict[Key, Attribution], History]:
    thread = data.thread_history(store, thread_id)
    with st.spinner("Reading the thread's write keys…"):
        return _whole_thread(store.url, thread_id, data.generation(store, thread_id), thread.newest_id, store, thread)
