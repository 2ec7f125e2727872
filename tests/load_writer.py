"""An agent writing checkpoints for a while, as a separate process: ``python tests/load_writer.py URL SECONDS``.

A small LangGraph graph over ThreadState (a question, three model/tool rounds, a
todo list and a title) is run again and again on ``THREADS`` thread ids. The
writer never waits for a lock: SQLite is opened with a zero busy timeout (WAL
mode), PostgreSQL sessions run with a short ``lock_timeout``, so a lock held by
a reader would surface as an error here. Prints ``ready`` once the first run is
committed, then one JSON object at the end:
each run's start time and per-step latency, the errors met, and every
checkpoint id the writer committed, per thread.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
import traceback

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.graph import END, START, StateGraph

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
from inspector.schema.thread_state import ThreadState  # noqa: E402

THREADS = ("load-0", "load-1")
ROUNDS = 3
MODEL_SECONDS = 0.2


def _ask(state: dict) -> dict:
    turn = len(state.get("messages") or [])
    return {"messages": [HumanMessage(f"question after {turn} messages: what changed? " + "x" * 200)],
            "title": state.get("title") or "load test"}


def _model(state: dict) -> dict:
    time.sleep(MODEL_SECONDS)  # the model's latency: an agent writes a few checkpoints a second, not hundreds
    n = len(state["messages"])
    return {"messages": [AIMessage(f"calling a tool ({n})", tool_calls=[
        {"id": f"call-{n}", "name": "search", "args": {"q": f"query {n}"}}])],
        "todos": [{"content": f"step {n}", "status": "in_progress"}]}


def _tool(state: dict) -> dict:
    call = state["messages"][-1].tool_calls[0]
    return {"messages": [ToolMessage("result " + "y" * 500, tool_call_id=call["id"], name="search")],
            "artifacts": [f"/mnt/user-data/outputs/r{len(state['messages']) % 5}.md"]}


def _route(state: dict) -> str:
    rounds = sum(1 for m in state["messages"][-2 * ROUNDS:] if isinstance(m, ToolMessage))
    return "end" if rounds >= ROUNDS else "model"


def build(checkpointer):
    graph = StateGraph(ThreadState)
    graph.add_node("ask", _ask)
    graph.add_node("model", _model)
    graph.add_node("tool", _tool)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", "model")
    graph.add_edge("model", "tool")
    graph.add_conditional_edges("tool", _route, {"model": "model", "end": END})
    return graph.compile(checkpointer=checkpointer)


def saver_for(url: str):
    if url.startswith("postgresql://"):
        from langgraph.checkpoint.postgres import PostgresSaver
        from psycopg import Connection
        from psycopg.rows import dict_row

        conn = Connection.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                                  options="-c lock_timeout=200")
        saver = PostgresSaver(conn)
        saver.setup()
        return saver
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(url.removeprefix("sqlite:///"), check_same_thread=False, timeout=0)
    conn.execute("PRAGMA journal_mode=WAL")
    return SqliteSaver(conn)


def main(url: str, seconds: float) -> dict:
    saver = saver_for(url)
    graph = build(saver)
    runs: list[dict] = []
    errors: list[str] = []
    ready = threading.Event()
    deadline = time.monotonic() + seconds

    def work(thread_id: str) -> None:
        config = {"configurable": {"thread_id": thread_id}}
        while time.monotonic() < deadline:
            started = time.time()
            before = time.perf_counter()
            try:
                steps = sum(1 for _ in graph.stream({"messages": []}, config, stream_mode="updates"))
            except Exception as exc:  # noqa: BLE001 - reported to the test, which fails on any
                errors.append(f"{thread_id}: {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}")
                time.sleep(0.05)
                continue
            runs.append({"thread": thread_id, "start": started,
                         "step_seconds": (time.perf_counter() - before) / max(steps, 1)})
            if not ready.is_set():
                ready.set()
                print("ready", flush=True)

    workers = [threading.Thread(target=work, args=(t,)) for t in THREADS]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    committed = {t: [c.config["configurable"]["checkpoint_id"]
                     for c in saver.list({"configurable": {"thread_id": t}})] for t in THREADS}
    return {"runs": runs, "errors": errors, "committed": committed}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], float(sys.argv[2]))))
