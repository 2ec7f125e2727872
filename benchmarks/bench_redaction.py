"""Masking secrets in a decoded state / decoding it, on a long conversation written by SqliteSaver.

    python benchmarks/bench_redaction.py [--messages 2000] [--repeat 5]

The state holds ``--messages`` messages of ordinary text, tool calls with JSON
arguments, URLs and usage counts, one in fifty carrying a fake credential. Both
times are measured in the same run. Masking walks every value in Python while
decoding runs in msgpack's C code, so the ratio is well above 1 (about 10 for
2,000 messages, some 80 ms); it is paid once per checkpoint, since the pages
cache the masked state.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402

from inspector.safety.redaction import Redactor  # noqa: E402
from inspector.store import open_store  # noqa: E402

PROSE = ("The quarterly report compares revenue across regions; see https://example.com/reports/q3?id=42 "
         "for the source tables. Numbers are rounded to the nearest thousand. ")


def messages(count: int) -> list:
    out = []
    for i in range(count // 3):
        secret = f" use sk-proj-Fake{i:06d}abcdefghijklmnopqrstu" if i % 50 == 0 else ""
        out.append(HumanMessage(PROSE * 3 + secret, id=f"h{i}"))
        out.append(AIMessage(PROSE, id=f"a{i}", tool_calls=[{"id": f"c{i}", "name": "search",
                                                              "args": {"query": f"revenue {i}", "max_results": 5}}],
                             usage_metadata={"input_tokens": 900, "output_tokens": 80, "total_tokens": 980}))
        out.append(ToolMessage(PROSE * 6, tool_call_id=f"c{i}", id=f"t{i}", name="search"))
    return out


def write(path: Path, count: int) -> None:
    from langgraph.graph import START, StateGraph

    from inspector.schema.thread_state import ThreadState

    graph = StateGraph(ThreadState)
    graph.add_node("load", lambda state: {"messages": messages(count), "title": "a long conversation"})
    graph.add_edge(START, "load")
    with SqliteSaver.from_conn_string(str(path)) as saver:
        graph.compile(checkpointer=saver).invoke({"messages": []}, {"configurable": {"thread_id": "long"}})


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "long.db"
        write(db, args.messages)
        with open_store(str(db)) as store:
            state = store.state("long")
            redactor = Redactor()
            decode = median_seconds(lambda: store.state("long"), args.repeat)
            mask = median_seconds(lambda: redactor(state), args.repeat)
            masked = redactor(state)
    marks = sum(str(m.get("content", "")).count("[redacted ") for m in masked.values["messages"])
    print(f"{len(state.values['messages'])} messages, {marks} masked; decode {decode * 1000:.1f} ms, "
          f"mask {mask * 1000:.1f} ms; ratio mask/decode {mask / decode:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
