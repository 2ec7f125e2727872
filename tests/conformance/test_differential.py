"""Every checkpoint of every demo thread, read by the inspector's store and by LangGraph's own saver.

Both read the same store (the demo database, and the same threads written into PostgreSQL
by ``PostgresSaver``) and must agree field by field: the checkpoint's config and parent,
its versions, metadata, channel values and pending writes in order. Values are compared up
to representation: LangGraph's objects are turned into plain data here, independently of
the inspector's decoder (a LangChain message as its ``model_dump()``, a dataclass as
``{"__type__": "module.Name", "value": fields}``, a ``Send`` as its ``[node, arg]``, a ``DeltaSnapshot`` as the value it holds).
Channels the store rebuilt from deltas, which LangGraph's saver leaves out of the
checkpoint, are compared with the values LangGraph's ``get_state_history`` rebuilds.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from typing import Any

import psycopg
import pytest
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Send
from psycopg.rows import dict_row

from conformance.conftest import BACKENDS
from inspector.demo import DEMO_THREADS
from inspector.demo.agent import DeltaThreadState
from inspector.demo.threads import Demo, delta_script
from inspector.store import open_store


@pytest.fixture(scope="module", params=BACKENDS)
def readers(request, demo_db, demo_dir):
    """(LangGraph's saver, the inspector's store, thread folder base) over the same demo threads."""
    if request.param == "sqlite":
        conn = sqlite3.connect(f"file:{demo_db}?mode=ro", uri=True, check_same_thread=False)
        saver, url, base = SqliteSaver(conn), f"sqlite:///{demo_db}", demo_dir
    else:
        pg, base = request.getfixturevalue("pg_demo")
        conn = psycopg.connect(pg.readonly_dsn, autocommit=True, row_factory=dict_row, prepare_threshold=0)
        saver, url = PostgresSaver(conn), pg.readonly_dsn
    with open_store(url) as store:
        yield saver, store, base
    conn.close()


def langgraph_plain(value: Any) -> Any:
    """LangGraph's loaded objects as plain data, without the inspector's decoder."""
    if isinstance(value, _DeltaSnapshot):
        return langgraph_plain(value.value)
    if isinstance(value, BaseMessage):
        return langgraph_plain(value.model_dump())
    if isinstance(value, Send):  # stored by position: (node, arg)
        return {"__type__": "langgraph.types.Send", "value": [value.node, langgraph_plain(value.arg)]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        fields = {f.name: langgraph_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"__type__": f"{kind.__module__}.{kind.__name__}", "value": fields}
    if isinstance(value, (list, tuple)):
        return [langgraph_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: langgraph_plain(v) for k, v in value.items()}
    return value


def rebuilt_by_langgraph(saver, base, thread_id: str) -> dict[str, dict[str, Any]]:
    """checkpoint id -> the state values LangGraph's ``get_state_history`` rebuilds (demo-delta only)."""
    if thread_id != "demo-delta":
        return {}
    graph = Demo(base, saver).agent(delta_script(), schema=DeltaThreadState)
    return {
        snapshot.config["configurable"]["checkpoint_id"]: langgraph_plain(snapshot.values)
        for snapshot in graph.get_state_history({"configurable": {"thread_id": thread_id}})
    }


@pytest.mark.parametrize("thread_id", list(DEMO_THREADS))
def test_every_checkpoint_reads_as_langgraph_reads_it(readers, thread_id):
    compare_thread(*readers, thread_id)


def compare_thread(saver, store, base, thread_id: str) -> None:
    """Assert that every checkpoint of ``thread_id`` reads the same through ``store`` as through ``saver``."""
    tuples = list(saver.list({"configurable": {"thread_id": thread_id}}))
    keys = sorted((t.config["configurable"]["checkpoint_ns"], t.config["configurable"]["checkpoint_id"]) for t in tuples)
    keys.sort(key=lambda key: key[1], reverse=True)  # newest first, namespace breaking ties
    rows = store.timeline(thread_id)
    assert [(r.checkpoint_ns, r.checkpoint_id) for r in rows] == keys
    langgraph_values = rebuilt_by_langgraph(saver, base, thread_id)
    rebuilt_seen = 0
    for tup in tuples:
        ns, cid = tup.config["configurable"]["checkpoint_ns"], tup.config["configurable"]["checkpoint_id"]
        state = store.state(thread_id, cid, ns)
        where = f"{thread_id} {ns!r} {cid}"
        assert (state.thread_id, state.checkpoint_ns, state.checkpoint_id) == (thread_id, ns, cid), where
        parent = (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")
        assert state.parent_checkpoint_id == parent, where
        for key in ("id", "channel_versions", "versions_seen"):
            assert state.header[key] == langgraph_plain(tup.checkpoint[key]), f"{where} {key}"
        assert state.metadata == langgraph_plain(tup.metadata), where
        assert state.problems == [], where

        mine = {**state.values, **state.internal}
        theirs = langgraph_plain(tup.checkpoint["channel_values"])
        assert set(mine) - set(theirs) == set(state.rebuilt_channels), where
        assert {name: mine[name] for name in theirs} == theirs, where
        for name in state.rebuilt_channels:
            assert mine[name] == langgraph_values[cid][name], f"{where} rebuilt {name}"
            rebuilt_seen += 1

        assert [(w.task_id, w.channel, w.value) for w in state.writes] == [
            (task_id, channel, langgraph_plain(value)) for task_id, channel, value in tup.pending_writes
        ], where
    assert len(tuples) > 1
    if thread_id == "demo-delta":
        assert rebuilt_seen > 10


@pytest.mark.parametrize("thread_id, plant", [
    ("demo-research", lambda state: dataclasses.replace(state, writes=state.writes[::-1])),
    ("demo-delta", lambda state: dataclasses.replace(
        state, values={k: v[:-1] if k in state.rebuilt_channels else v for k, v in state.values.items()})),
], ids=["pending-writes-reversed", "rebuilt-message-dropped"])
def test_the_differential_bites(readers, monkeypatch, thread_id, plant):
    """A store that reorders pending writes or loses a rebuilt message fails the comparison."""
    saver, store, base = readers
    state = store.state
    monkeypatch.setattr(store, "state", lambda *args, **kwargs: plant(state(*args, **kwargs)))
    with pytest.raises(AssertionError):
        compare_thread(saver, store, base, thread_id)
