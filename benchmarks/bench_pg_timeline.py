"""Timeline of a 1,000-checkpoint PostgreSQL thread: the inspector's store vs ``PostgresSaver.list()``.

    python benchmarks/bench_pg_timeline.py [--dsn postgresql://...] [--checkpoints 1000]

Without ``--dsn`` a throwaway cluster is started (``initdb``/``pg_ctl`` from
/usr/lib/postgresql/*/bin) on a free loopback port and removed afterwards.
A real graph writes one thread whose ``messages`` grow by one message per step;
then both readers list the same thread in the same run. Prints the ratio
(target: the store at least 20x faster).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.messages import AIMessage, AnyMessage  # noqa: E402
from langgraph.checkpoint.postgres import PostgresSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.graph.message import add_messages  # noqa: E402
from pg_cluster import cluster  # noqa: E402

from inspector.store import open_store  # noqa: E402

THREAD = "bench-growing"


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def write_thread(dsn: str, checkpoints: int) -> None:
    """Write the benchmark thread into the PostgreSQL database ``dsn`` (replacing it)."""
    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        saver.delete_thread(THREAD)
        write_growing_thread(saver, checkpoints)


def write_growing_thread(saver, checkpoints: int) -> None:
    """One node that adds a message per step until the thread has ``checkpoints`` checkpoints."""
    steps = checkpoints - 2  # the input checkpoint and the first loop checkpoint come for free

    def speak(state: State) -> dict:
        n = len(state["messages"])
        return {"messages": [AIMessage(f"Step {n}: " + "progress note " * 8, id=f"m{n}")]}

    def route(state: State) -> str:
        return "speak" if len(state["messages"]) <= steps else END

    graph = StateGraph(State)
    graph.add_node("speak", speak)
    graph.add_edge(START, "speak")
    graph.add_conditional_edges("speak", route, ["speak", END])
    app = graph.compile(checkpointer=saver)
    app.invoke({"messages": [("user", "start")]},
               {"configurable": {"thread_id": THREAD}, "recursion_limit": checkpoints + 10})


def best_of(repeats: int, fn) -> tuple[float, int]:
    times, result = [], 0
    for _ in range(repeats):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return min(times), result


def measure(dsn: str, checkpoints: int, repeats: int) -> float:
    write_thread(dsn, checkpoints)
    with open_store(dsn) as store, PostgresSaver.from_conn_string(dsn) as saver:
        config = {"configurable": {"thread_id": THREAD}}
        store_s, store_n = best_of(repeats, lambda: len(store.timeline(THREAD)))
        saver_s, saver_n = best_of(1, lambda: len(list(saver.list(config))))  # tens of seconds per pass
    if store_n != saver_n:
        sys.exit(f"readers disagree: store {store_n} checkpoints, saver {saver_n}")
    ratio = saver_s / store_s
    print(f"checkpoints: {store_n}")
    print(f"store.timeline:        {store_s * 1000:9.1f} ms")
    print(f"PostgresSaver.list():  {saver_s * 1000:9.1f} ms")
    print(f"ratio: {ratio:.1f}x (target >= 20x)")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dsn", help="an existing database (the thread is written there)")
    parser.add_argument("--checkpoints", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.dsn:
        ratio = measure(args.dsn, args.checkpoints, args.repeats)
    else:
        with cluster() as dsn:
            ratio = measure(dsn, args.checkpoints, args.repeats)
    return 0 if ratio >= 20 else 1


if __name__ == "__main__":
    sys.exit(main())
