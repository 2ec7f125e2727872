"""The demo store as the demo tests read it (``test_demo*.py``): fixtures, registered by ``conftest.py``'s
``pytest_plugins``, that open the session's demo store (``demo_written``) with LangGraph's own SqliteSaver,
and helpers that read it back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph

from inspector.demo.agent import DeltaThreadState


@pytest.fixture(scope="session")
def generated(demo_written):
    """The session's demo (``fixtures/stores.py``): its folder, its database, the seconds writing it took."""
    return demo_written.folder, demo_written.db, demo_written.seconds


@pytest.fixture(scope="session")
def db(generated) -> Path:
    return generated[1]


@pytest.fixture(scope="session")
def conn(db):
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)  # the session's store: read, never written
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def saver(conn) -> SqliteSaver:
    return SqliteSaver(conn)


def history(saver: SqliteSaver, thread_id: str, ns: str = "") -> list:
    """Checkpoint tuples of one namespace, oldest first."""
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
    return list(reversed(list(saver.list(config))))


def latest(saver: SqliteSaver, thread_id: str) -> dict:
    """The newest root state as LangGraph reads it (delta channels rebuilt by LangGraph itself)."""
    if thread_id == "demo-delta":
        return delta_reader(saver).get_state({"configurable": {"thread_id": thread_id}}).values
    return saver.get_tuple({"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}).checkpoint["channel_values"]


def delta_reader(saver: SqliteSaver):
    """A one-node graph over the delta demo's schema: LangGraph's own DeltaChannel replay."""
    graph = StateGraph(DeltaThreadState)
    graph.add_node("noop", lambda state: {})
    graph.add_edge(START, "noop")
    return graph.compile(checkpointer=saver)
