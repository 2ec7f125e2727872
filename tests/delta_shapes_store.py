"""One SQLite store holding every shape LangGraph's ``DeltaChannel`` has stored, each thread written by LangGraph's
own code (``delta_modes_store``'s graph and ``SqliteSaver``) where the installed version still can:

- ``SNAPSHOTS``: today's form, a ``DeltaSnapshot`` every 3 updates and nothing in between (installed LangGraph);
- ``MIGRATED``: two turns in full mode (``add_messages``), then two with the channel a ``DeltaChannel``: full rows,
  then delta rows seeded by the last full value (installed LangGraph, as its migration path reads them);
- ``SENTINEL``: LangGraph 1.2 alpha's form, each checkpoint storing the empty marker (msgpack extension 8) in place
  of the value, the messages in the writes; the installed serializer writes the marker as given (``ormsgpack.Ext``),
  through the saver's own ``put`` and ``put_writes``; the installed LangGraph reads it as an empty value;
- ``RAISED``: three turns at a snapshot frequency of 3, then three at 100: reads replay far past the 3 observed;
- ``CUT``: a ``SNAPSHOTS`` thread whose oldest checkpoints (with the first snapshot) were deleted, as a naive
  retention script does (raw SQL on top of the saver-written thread).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import ormsgpack
from delta_modes_store import build_graph
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.base import empty_checkpoint

SNAPSHOTS = "delta-snapshots"
MIGRATED = "delta-migrated"
SENTINEL = "delta-sentinel"
CUT = "delta-cut"
RAISED = "delta-raised"
FREQUENCY = 3
SENTINEL_MESSAGES = 6  # the messages the sentinel thread wrote
CUT_STEPS = 4  # the CUT thread's checkpoints at steps -1..2 are deleted (the first snapshot, at step 2, among them)


def _turns(graph, thread_id: str, first: int, count: int) -> None:
    for turn in range(first, first + count):
        graph.invoke({"messages": [HumanMessage(f"question {turn}", id=f"human-{turn}")]},
                     {"configurable": {"thread_id": thread_id}})


def _sentinel_thread(saver) -> None:
    """The alpha's rows: each checkpoint stores the sentinel for ``messages``; each step's message is a write."""
    parent = None
    for step in range(-1, SENTINEL_MESSAGES):
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"messages": ormsgpack.Ext(8, b"")}
        checkpoint["channel_versions"] = {"messages": step + 2}
        configurable = {"thread_id": SENTINEL, "checkpoint_ns": ""}
        if parent is not None:
            configurable["checkpoint_id"] = parent
        saved = saver.put({"configurable": configurable}, checkpoint,
                          {"source": "input" if step < 0 else "loop", "step": step, "parents": {}},
                          checkpoint["channel_versions"])
        kind = HumanMessage if step % 2 else AIMessage
        if step + 1 < SENTINEL_MESSAGES or step < 0:
            saver.put_writes(saved, [("messages", [kind(f"message {step + 1}", id=f"m{step + 1}")])], task_id=f"t{step}")
        parent = saved["configurable"]["checkpoint_id"]


def write_shapes(path: Path) -> Path:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        delta = build_graph(saver, FREQUENCY)
        _turns(delta, SNAPSHOTS, 0, 3)
        _turns(delta, CUT, 0, 3)
        _turns(delta, RAISED, 0, 3)
        _turns(build_graph(saver, 100), RAISED, 3, 3)
        _turns(build_graph(saver, None), MIGRATED, 0, 2)
        _turns(delta, MIGRATED, 2, 2)
        _sentinel_thread(saver)
        ids = [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? "
                                          "ORDER BY checkpoint_id", [CUT])][:CUT_STEPS]
        for table in ("checkpoints", "writes"):
            conn.executemany(f"DELETE FROM {table} WHERE thread_id = ? AND checkpoint_id = ?", [(CUT, i) for i in ids])
        conn.commit()
    finally:
        conn.close()
    return path
