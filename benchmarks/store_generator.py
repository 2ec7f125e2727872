"""A store shaped like production, written by LangGraph's own savers: one long, heavy thread and many small ones.

    python benchmarks/store_generator.py sqlite OUT.db [--checkpoints 2000] [--final-bytes 430000]
                                                        [--small-threads 10000] [--images-every 0]
    python benchmarks/store_generator.py postgres postgresql://... [same options]
    python benchmarks/store_generator.py postgres FOLDER [same options]   # a cluster kept in FOLDER (pg_cluster.py)

The long thread (``LONG_THREAD``) is a real ``StateGraph`` over DeerFlow's ``ThreadState``:
each turn a user message, then an agent that calls a tool ``tool_rounds`` times and
answers; every step writes a checkpoint holding the whole conversation, so the
``messages`` of the newest checkpoint reach about ``final_bytes``. With
``images_every`` N, every Nth turn views an image the way DeerFlow's main branch
does: a metadata-only ``viewed_images`` entry and a transient message carrying the
base64 data URL, removed again after the model call. Then ``small_threads``
threads of one checkpoint each (``update_state``), written after the long thread,
so the long thread is the oldest: it is not on the first page of a list sorted by
last update, while it holds almost every stored byte.

Sizes are parameters, so tests build a small store of the same shape.
"""

from __future__ import annotations

import argparse
import base64
import random
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage  # noqa: E402
from langgraph.checkpoint.base import BaseCheckpointSaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.graph.state import CompiledStateGraph  # noqa: E402

from inspector.schema.thread_state import ThreadState  # noqa: E402

LONG_THREAD = "bench-long"
SMALL_PREFIX = "bench-small-"
IMAGE_CONTEXT_PREFIX = "view-image-context:"
WORDS = [
    "state", "checkpoint", "reducer", "message", "agent", "tool", "search", "result", "thread", "graph",
    "node", "channel", "value", "report", "source", "table", "figure", "summary", "plan", "step", "write",
    "read", "store", "image", "file", "upload", "output",
]
# A 1x1 PNG: the transient image message carries a real data URL.
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@dataclass(frozen=True)
class Shape:
    """The store's shape: the long thread's length and final size, how many small threads, images."""

    checkpoints: int = 2000
    final_bytes: int = 430_000
    small_threads: int = 10_000
    tool_rounds: int = 3
    images_every: int = 0
    image_bytes: int = 24_000  # base64 payload of the transient image message
    seed: int = 11

    @property
    def checkpoints_per_turn(self) -> int:
        # input, the step that reads the input, then agent/tools(/image context) rounds and the final answer
        return 2 + (3 if self.images_every else 2) * self.tool_rounds + 1

    @property
    def turns(self) -> int:
        return max(1, round(self.checkpoints / self.checkpoints_per_turn))

    @property
    def text_bytes(self) -> int:
        """Text per message so that the newest checkpoint's messages reach ``final_bytes``."""
        messages = self.turns * (2 + 2 * self.tool_rounds)
        return max(16, self.final_bytes // messages - 246)  # ~246 bytes of ids and fields per stored message


def _text(rng: random.Random, size: int) -> str:
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(WORDS)
        words.append(word)
        length += len(word) + 1
    return " ".join(words)[:size]


def _turn_of(messages: list) -> tuple[int, int]:
    """(index of the current turn's user message, its turn number)."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, HumanMessage) and not str(message.id).startswith(IMAGE_CONTEXT_PREFIX):
            return index, int(str(message.id).rsplit("-", 1)[1])
    raise RuntimeError("no user message")


def build_graph(shape: Shape, checkpointer: BaseCheckpointSaver) -> CompiledStateGraph:
    """agent -> tools -> [view_image_context] -> agent ... -> END, over ``ThreadState``."""
    rng = random.Random(shape.seed)
    size = shape.text_bytes

    def agent(state: dict) -> dict:
        messages = state["messages"]
        start, turn = _turn_of(messages)
        calls = sum(isinstance(m, AIMessage) for m in messages[start:])
        number = sum(isinstance(m, AIMessage) for m in messages) + 1
        out: list = [RemoveMessage(id=m.id) for m in messages[start:]
                     if str(m.id).startswith(IMAGE_CONTEXT_PREFIX)]
        if calls < shape.tool_rounds:
            viewing = shape.images_every and turn % shape.images_every == 0 and calls == 0
            tool = "view_image" if viewing else "web_search"
            args = {"image_path": f"/mnt/user-data/uploads/figure-{turn}.png"} if viewing else {"query": _text(rng, 40)}
            out.append(AIMessage(_text(rng, size // 4), id=f"ai-{number}",
                                 tool_calls=[{"name": tool, "args": args, "id": f"call-{number}", "type": "tool_call"}],
                                 response_metadata={"model_name": "bench-model", "finish_reason": "tool_calls"}))
        else:
            out.append(AIMessage(_text(rng, size), id=f"ai-{number}",
                                 response_metadata={"model_name": "bench-model", "finish_reason": "stop"}))
        return {"messages": out}

    def tools(state: dict) -> dict:
        call = state["messages"][-1].tool_calls[0]
        result: dict[str, Any] = {}
        if call["name"] == "view_image":
            path = call["args"]["image_path"]
            on_disk = f"/data/threads/{LONG_THREAD}/user-data/uploads/{path.rsplit('/', 1)[-1]}"
            result["viewed_images"] = {path: {"mime_type": "image/png", "size": len(PIXEL_PNG), "actual_path": on_disk}}
        body = _text(rng, size + size // 2)
        result["messages"] = [ToolMessage(body, tool_call_id=call["id"], name=call["name"], id=f"tool-{call['id']}")]
        return result

    def view_image_context(state: dict) -> dict:
        """DeerFlow's transient image message: base64 data URLs, added before the model call."""
        last = state["messages"][-1]
        if not isinstance(last, ToolMessage) or last.name != "view_image":
            return {}
        payload = base64.b64encode(PIXEL_PNG).decode() + "A" * max(0, shape.image_bytes - 92)
        parts = [{"type": "text", "text": "Here is the image you viewed:"},
                 {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{payload}"}}]
        return {"messages": [HumanMessage(parts, id=f"{IMAGE_CONTEXT_PREFIX}{last.id}",
                                          additional_kwargs={"hide_from_ui": True,
                                                             "deerflow_view_image_context": True})]}

    def route(state: dict) -> str:
        return "tools" if getattr(state["messages"][-1], "tool_calls", None) else END

    graph = StateGraph(ThreadState)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    if shape.images_every:
        graph.add_node("view_image_context", view_image_context)
        graph.add_edge("tools", "view_image_context")
        graph.add_edge("view_image_context", "agent")
    else:
        graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer)


def add_turn(graph: CompiledStateGraph, shape: Shape, turn: int, thread_id: str = LONG_THREAD,
             rng: random.Random | None = None) -> None:
    """One more turn of the conversation (a user message, the tool rounds, the answer): a running thread."""
    rng = rng or random.Random(shape.seed + turn)
    config = {"configurable": {"thread_id": thread_id}, "recursion_limit": 10 * shape.checkpoints_per_turn}
    graph.invoke({"messages": [HumanMessage(_text(rng, shape.text_bytes), id=f"user-{turn}")],
                  **deerflow_run_start(thread_id)}, config)


def deerflow_run_start(thread_id: str) -> dict[str, Any]:
    """What DeerFlow's ThreadDataMiddleware and SandboxMiddleware write when a run starts."""
    root = f"/srv/deer-flow/.deer-flow/threads/{thread_id}/user-data"
    return {"thread_data": {"workspace_path": f"{root}/workspace", "uploads_path": f"{root}/uploads",
                            "outputs_path": f"{root}/outputs"},
            "sandbox": {"sandbox_id": "local"}}


def write_long_thread(graph: CompiledStateGraph, shape: Shape, thread_id: str = LONG_THREAD,
                      progress: bool = False) -> None:
    rng = random.Random(shape.seed + 1)
    for turn in range(1, shape.turns + 1):
        add_turn(graph, shape, turn, thread_id, rng)
        if progress and turn % 20 == 0:
            print(f"  {thread_id}: turn {turn} of {shape.turns}", file=sys.stderr)
    graph.update_state({"configurable": {"thread_id": thread_id}}, {"title": "A long research thread"})


def write_small_threads(graph: CompiledStateGraph, shape: Shape, progress: bool = False) -> None:
    rng = random.Random(shape.seed + 2)
    for index in range(shape.small_threads):
        config = {"configurable": {"thread_id": f"{SMALL_PREFIX}{index:05d}"}}
        graph.update_state(config, {"messages": [HumanMessage(_text(rng, 120), id=f"user-{index}")],
                                    "title": f"Small thread {index}", **deerflow_run_start(config["configurable"]
                                                                                        ["thread_id"])},
                           as_node="agent")
        if progress and (index + 1) % 2000 == 0:
            print(f"  small threads: {index + 1} of {shape.small_threads}", file=sys.stderr)


def write_store(checkpointer: BaseCheckpointSaver, shape: Shape, progress: bool = False) -> None:
    """The long thread first (so it is the oldest), then the small threads."""
    graph = build_graph(shape, checkpointer)
    write_long_thread(graph, shape, progress=progress)
    write_small_threads(graph, shape, progress=progress)


def generate_sqlite(path: str | Path, shape: Shape = Shape(), progress: bool = False) -> Path:
    """Write the store into a new SQLite file with ``SqliteSaver``; returns its path."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = Path(path)
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, check_same_thread=False)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=OFF")
    try:
        write_store(SqliteSaver(conn), shape, progress)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    return path


def generate_postgres(dsn: str, shape: Shape = Shape(), progress: bool = False) -> str:
    """Write the store into PostgreSQL with ``PostgresSaver`` (tables created when missing); returns ``dsn``."""
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(dsn) as saver:
        saver.setup()
        saver.delete_thread(LONG_THREAD)
        write_store(saver, shape, progress)
    return dsn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("backend", choices=["sqlite", "postgres"])
    parser.add_argument("target", help="SQLite file to create; a PostgreSQL URL, or a folder to keep a cluster in")
    defaults = Shape()
    parser.add_argument("--checkpoints", type=int, default=defaults.checkpoints)
    parser.add_argument("--final-bytes", type=int, default=defaults.final_bytes)
    parser.add_argument("--small-threads", type=int, default=defaults.small_threads)
    parser.add_argument("--images-every", type=int, default=defaults.images_every)
    args = parser.parse_args()
    shape = Shape(args.checkpoints, args.final_bytes, args.small_threads, images_every=args.images_every)
    started = time.perf_counter()
    if args.backend == "sqlite":
        generate_sqlite(args.target, shape, progress=True)
    elif "://" in args.target:
        generate_postgres(args.target, shape, progress=True)
    else:
        from pg_cluster import cluster

        with cluster(Path(args.target)) as dsn:
            generate_postgres(dsn, shape, progress=True)
    print(f"wrote {shape} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
