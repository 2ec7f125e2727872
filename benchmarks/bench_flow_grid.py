"""The flow grid on a 2,000-step thread against the same grid on a 30-step one.

    python benchmarks/bench_flow_grid.py [--checkpoints 2000] [--short 30] [--repeats 9] [--store PATH]

``store_generator.py`` writes two threads of the same shape with LangGraph's ``SqliteSaver`` (the
long one and a short one). On each, with its history laid out once (what opening the thread page
already paid), one window of the flow grid is computed as the panel does: the window along the
selected checkpoint's line (``flow_window``), the attribution of its steps (write keys of the
window, its parents and grandparents only), the grid and its chart spec. Timed for the newest
window and, on the long thread, one from the middle. Prints the ratio long / short, per window and per
step shown (the short thread's window holds all its 30 steps, the long one's 40): target about 1, so a
long thread pages through the grid at the cost of one screen. ``--store`` keeps the generated file
(written when missing) for another run.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402
from store_generator import Shape, build_graph, write_long_thread  # noqa: E402

from inspector.history.attribution import attribute_keys  # noqa: E402
from inspector.history.flow_grid import flow_grid, flow_window, grid_chart  # noqa: E402
from inspector.history.lineage import build_history  # noqa: E402
from inspector.store import open_store  # noqa: E402

LONG, SHORT = "flow-long", "flow-short"


def write(path: Path, long_steps: int, short_steps: int) -> None:
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        for thread_id, steps in ((LONG, long_steps), (SHORT, short_steps)):
            shape = Shape(checkpoints=steps, final_bytes=60_000, small_threads=0)
            write_long_thread(build_graph(shape, saver), shape, thread_id)
    finally:
        conn.close()


def best(repeats: int, fn) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def grid_cost(store, thread_id: str, repeats: int, middle: bool = False) -> tuple[float, int, int]:
    history = build_history(store.timeline_keys(thread_id))  # the thread page's layout, paid on opening
    head = history.head
    key = history.path_through(head)[len(history.path_through(head)) // 2] if middle else head

    def one_window():
        window = flow_window(history, key)
        made = attribute_keys(store, history, window.keys)
        grid = flow_grid(history, window.keys, made)
        grid_chart(grid, key)
        return grid

    seconds, grid = best(repeats, one_window)
    return seconds, len(history), len(grid.cells)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--checkpoints", type=int, default=2000)
    parser.add_argument("--short", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--store", type=Path, help="keep the generated store here (reused when it exists)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = args.store or Path(folder) / "flow.db"
        if not path.exists():
            started = time.perf_counter()
            write(path, args.checkpoints, args.short)
            print(f"wrote {path.name} in {time.perf_counter() - started:.0f} s")
        with open_store(f"sqlite:///{path}") as store:
            short_s, short_n, short_cells = grid_cost(store, SHORT, args.repeats)
            long_s, long_n, long_cells = grid_cost(store, LONG, args.repeats)
            mid_s, _, mid_cells = grid_cost(store, LONG, args.repeats, middle=True)
    print(f"short thread: {short_n:5d} checkpoints, newest window: {short_s * 1000:7.1f} ms ({short_cells} cells)")
    print(f"long thread:  {long_n:5d} checkpoints, newest window: {long_s * 1000:7.1f} ms ({long_cells} cells)")
    print(f"long thread:  {long_n:5d} checkpoints, middle window: {mid_s * 1000:7.1f} ms ({mid_cells} cells)")
    ratio = max(long_s, mid_s) / short_s
    columns = min(long_n, 40) / min(short_n, 40)
    print(f"ratio long / short: {ratio:.2f}x per window, {ratio / columns:.2f}x per step shown "
          "(target about 1: a window costs one screen, whatever the thread's length)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
