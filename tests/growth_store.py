"""Stores written over several simulated days by LangGraph's own savers, for growth, file facts and orphans.

The checkpoint ids are LangGraph's uuid6, made by LangGraph's own ``uuid6`` while its clock reads a
chosen time: ``simulated_clock`` replaces only the ``time`` module that ``langgraph.checkpoint.base.id``
reads ``time_ns`` from, so a run at "day 3" writes ids dated day 3 through the normal graph and saver.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
import types
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

DAY = 86_400
# The simulated days of each thread, and how many turns it takes that day: growth per day and per
# thread differ, one thread is quiet for days, and one is written only on the newest day.
PLAN = {
    "grow-a": {0: 2, 1: 3, 2: 1, 4: 4},
    "grow-b": {1: 1, 3: 2, 4: 1},
    "grow-c": {4: 2},
}
DAYS = 5


class GrowthState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    title: str


@contextlib.contextmanager
def simulated_clock(seconds: float):
    """While open, LangGraph's uuid6 reads ``seconds`` (advanced a microsecond per call) as the time."""
    import langgraph.checkpoint.base.id as ids

    clock = {"ns": int(seconds * 1e9)}

    def time_ns() -> int:
        clock["ns"] += 1000
        return clock["ns"]

    real_time, real_last = ids.time, ids._last_v6_timestamp
    ids.time = types.SimpleNamespace(time_ns=time_ns)
    ids._last_v6_timestamp = None
    try:
        yield
    finally:
        ids.time = real_time
        ids._last_v6_timestamp = real_last


def build_graph(checkpointer):
    def agent(state: GrowthState) -> dict[str, Any]:
        turn = len(state["messages"])
        return {"messages": [AIMessage(f"answer {turn} " + "word " * (40 * turn))], "title": f"turn {turn}"}

    graph = StateGraph(GrowthState)
    graph.add_node("agent", agent)
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    return graph.compile(checkpointer=checkpointer)


def pinned_now(hour: float, real_now: float | None = None) -> float:
    """``hour`` hours into yesterday's UTC day (by the real clock): a clock the growth tests pin, so that
    what they assert holds whatever the hour they run at; a moment in the past, so that every simulated
    checkpoint is dated before the real clock too."""
    today = int((time.time() if real_now is None else real_now) // DAY) * DAY
    return today - DAY + hour * 3600


# Early and late in a UTC day: before 16:00 the newest simulated day is the day before ``now``'s (see
# ``day_start``), after it ``now``'s own day; the growth tests run at both.
EARLY, LATE = pinned_now(2.5), pinned_now(21.25)
CLOCKS = {"early": EARLY, "late": LATE}


def day_start(now: float, day: int) -> float:
    """Noon (UTC) of simulated day ``day`` (0 is the oldest), the newest day being the one ``now`` is in."""
    today = int(now // DAY) * DAY
    return today - (DAYS - 1 - day) * DAY + DAY / 2 if now - today >= DAY / 2 + 4 * 3600 else \
        today - (DAYS - day) * DAY + DAY / 2


def write_days(checkpointer, now: float, plan: dict[str, dict[int, int]] = PLAN) -> None:
    """Each thread's turns on its days, the day's clock at ``day_start`` plus a minute per turn."""
    graph = build_graph(checkpointer)
    for day in range(DAYS):
        for thread_id, days in plan.items():
            for turn in range(days.get(day, 0)):
                with simulated_clock(day_start(now, day) + 60 * turn + 3600 * list(plan).index(thread_id)):
                    graph.invoke({"messages": [HumanMessage(f"question {day}.{turn}")]},
                                 {"configurable": {"thread_id": thread_id}})


def write_sqlite(path: Path, now: float) -> Path:
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        write_days(SqliteSaver(conn), now)
    finally:
        conn.close()
    return path


def write_postgres(dsn: str, now: float) -> None:
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        write_days(saver, now)


def write_bulk_thread(checkpointer, thread_id: str = "bulk", turns: int = 6) -> None:
    """A thread of large answers (written now), for deleting again so that its pages fall free."""
    graph = build_graph(checkpointer)
    for turn in range(turns):
        graph.invoke({"messages": [HumanMessage("bulk " + "x" * 20_000 * (turn + 1))]},
                     {"configurable": {"thread_id": thread_id}})
