"""A masked support bundle / the same bundle written unmasked, on a long thread that re-stores its messages.

    python benchmarks/bench_bundle.py [--steps 300] [--per-step 3] [--repeat 3] [--profile deerflow]

Writes one thread through SqliteSaver: ``--steps`` checkpoints, each adding
``--per-step`` messages (prose, tool calls with JSON arguments, tool results;
one in fifty carries a fake credential), so checkpoint N stores N x per-step
messages, as LangGraph stores a growing conversation. Times ``write_bundle``
masked (every value decoded, masked, written back) against ``reveal=True``
(rows copied as stored), both measured in this run, and checks the masked zip
holds none of the fake keys. Masking costs the distinct messages, not the
history: a message stored unchanged in many checkpoints is masked once, by its
bytes. ``--profile deerflow`` reads the thread with DeerFlow's profile, whose bundles also
look for the files every message attaches (each distinct message decoded once more).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import zipfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench_redaction import messages  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from langgraph.graph import START, StateGraph  # noqa: E402

from inspector.bundle import write_bundle  # noqa: E402
from inspector.schema.thread_state import ThreadState  # noqa: E402
from inspector.settings import Settings  # noqa: E402
from inspector.store import open_store  # noqa: E402

THREAD = "long"


def write(path: Path, steps: int, per_step: int) -> list[str]:
    """The thread; returns the fake keys it holds."""
    pool = messages(steps * per_step)
    graph = StateGraph(ThreadState)
    graph.add_node("say", lambda state: {"messages": pool[len(state["messages"]):len(state["messages"]) + per_step]})
    graph.add_edge(START, "say")
    with SqliteSaver.from_conn_string(str(path)) as saver:
        app = graph.compile(checkpointer=saver)
        for _ in range(steps):
            app.invoke({"messages": []}, {"configurable": {"thread_id": THREAD}})
    return [word for m in pool for word in str(m.content).split() if word.startswith("sk-proj-")]


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--per-step", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", help="read the thread with this profile (default: chosen by evidence)")
    args = parser.parse_args()
    if args.profile:
        from inspector import profiles

        profiles.name_profile(args.profile)
    settings = replace(Settings(), allow_reveal=True)
    with tempfile.TemporaryDirectory() as folder:
        db, out = Path(folder) / "long.db", Path(folder) / "bundle.zip"
        keys = write(db, args.steps, args.per_step)
        with open_store(str(db)) as store:
            plain = median_seconds(lambda: write_bundle(store, THREAD, out, reveal=True, settings=settings),
                                   args.repeat)
            masked = median_seconds(lambda: write_bundle(store, THREAD, out, settings=settings), args.repeat)
            manifest = write_bundle(store, THREAD, out, settings=settings)
        with zipfile.ZipFile(out) as archive:
            leaked = [k for name in archive.namelist() for k in keys if k.encode() in archive.read(name)]
        size = db.stat().st_size
    print(f"{manifest['checkpoints']} checkpoints, {args.steps * args.per_step} messages, {size / 1e6:.1f} MB store; "
          f"{sum(manifest['redaction']['marks'].values())} marks, {len(leaked)} keys left in the zip")
    print(f"unmasked {plain:.2f} s, masked {masked:.2f} s; ratio masked/unmasked {masked / plain:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
