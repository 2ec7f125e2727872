"""What hostile sizes cost against plain inputs of the same size: a bundle bomb opened, a 3,000-node graph drawn.

    python benchmarks/bench_bounds.py [--repeat 3] [--steps 3000] [--no-browser]

1. Bundles. A real support bundle (a SqliteSaver thread's, written by ``write_bundle``) padded with random bytes
   to a 4.5 MB zip is the plain input. The bomb is the same bundle plus 3,990 members of exactly 1,000,000 zero
   bytes each (each too small for the one-member ratio check): a zip of the same size unpacking to 3.99 GB.
   Both are opened with a fresh cache folder each time (the plain one is unpacked); the bomb must be refused
   from the zip's directory. A bomb just under the whole-bundle ratio (``bundle_open_max_ratio``, 200 times
   the zip's size) is unpacked: its cost is printed per unpacked byte against the plain bundle's.
2. The graph. Two threads of ``--steps`` steps in one store, written by copying rows a SqliteSaver wrote: one
   whose every step is a node of its own name (3,000 distinct nodes), one cycling over three node names. What
   the Graph panel computes (the history, every write key, the graph, its DOT) is timed in this process for
   each; then, unless ``--no-browser``, the panel is opened in headless Chromium on ``streamlit run app.py``
   and timed until the graph is drawn (its first node in the SVG). Ratios: 3,000 nodes / 3 nodes.

Targets: each hostile input within 3x of its plain one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from bench_browser import CHROMIUM, load, streamlit  # noqa: E402
from bench_redaction import write  # noqa: E402
from bundle_helpers import deflated_zip  # noqa: E402
from langchain_core.messages import HumanMessage  # noqa: E402
from langgraph.checkpoint.base import empty_checkpoint  # noqa: E402
from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402

from inspector.bundle import write_bundle  # noqa: E402
from inspector.history.flow_dot import to_dot  # noqa: E402
from inspector.history.flow_graph import infer_graph  # noqa: E402
from inspector.history.lineage import build_history  # noqa: E402
from inspector.settings import Settings  # noqa: E402
from inspector.store import StoreError, open_store  # noqa: E402

ZIP_BYTES = 4_500_000
MANY, THREE = "bench-many-nodes", "bench-three-nodes"


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


# -- 1. bundles ----------------------------------------------------------------------------------------


def bundle_members(folder: Path) -> dict[str, bytes]:
    db = folder / "long.db"
    write(db, 400)
    with open_store(str(db)) as store:
        write_bundle(store, "long", folder / "real.zip", settings=Settings())
    with zipfile.ZipFile(folder / "real.zip") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def padded(path: Path, members: dict[str, bytes], zeros: dict[str, int]) -> Path:
    """``members`` and ``zeros`` with random bytes added until the zip is about ``ZIP_BYTES``."""
    deflated_zip(path, members, zeros)
    pad = max(ZIP_BYTES - path.stat().st_size, 0)
    return deflated_zip(path, {**members, "threads/long/user-data/outputs/pad.bin": os.urandom(pad)}, zeros)


def unpacked_bytes(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        return sum(info.file_size for info in archive.infolist())


def bench_bundles(folder: Path, repeat: int) -> list[float]:
    members = bundle_members(folder)
    plain = padded(folder / "plain.zip", members, {})
    bomb = padded(folder / "bomb.zip", members, {f"threads/long/user-data/outputs/z{i}.bin": 1_000_000
                                                 for i in range(3_990)})
    caches = iter(folder / f"cache-{i}" for i in range(10_000))

    def open_bundle(path: Path) -> bool:
        """Open ``path`` with an empty cache folder (so it is unpacked), read its threads; whether it opened."""
        cache = next(caches)
        try:
            with open_store(str(path), bundle_cache_dir=cache) as store:
                store.threads()
            return True
        except StoreError:
            return False
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    def refuse_bomb() -> None:
        if open_bundle(bomb):
            raise SystemExit("the zip bomb was opened")

    plain_s = median_seconds(lambda: open_bundle(plain), repeat)
    bomb_s = median_seconds(refuse_bomb, repeat)
    print(f"plain bundle: {plain.stat().st_size / 1e6:.2f} MB zip, {unpacked_bytes(plain) / 1e6:.1f} MB unpacked, "
          f"opened in {plain_s:.3f} s")
    print(f"zip bomb: {bomb.stat().st_size / 1e6:.2f} MB zip, {unpacked_bytes(bomb) / 1e9:.2f} GB in 3,990 members "
          f"of 1,000,000 bytes, refused in {bomb_s:.3f} s: ratio {bomb_s / plain_s:.2f} (target <= 3)")
    limit, count = folder / "limit.zip", 900  # the most a 4.5 MB zip may unpack to: 200 times its size
    while count > 0:
        padded(limit, members, {f"threads/long/user-data/outputs/z{i}.bin": 1_000_000 for i in range(count)})
        if unpacked_bytes(limit) <= 200 * limit.stat().st_size:
            break
        count -= 25
    started = time.perf_counter()
    if not open_bundle(limit):
        raise SystemExit("the bomb under the ratio was refused")
    limit_s = time.perf_counter() - started
    per_byte = (limit_s / unpacked_bytes(limit)) / (plain_s / unpacked_bytes(plain))
    print(f"a bomb just under the whole-bundle ratio (one run): {limit.stat().st_size / 1e6:.2f} MB zip, "
          f"{unpacked_bytes(limit) / 1e6:.0f} MB unpacked in {limit_s:.2f} s: {limit_s / plain_s:.1f} x the plain "
          f"bundle's time, {per_byte:.2f} x its time per unpacked byte")
    return [bomb_s / plain_s]


# -- 2. the graph ------------------------------------------------------------------------------------------


def write_threads(db: Path, steps: int) -> None:
    """``MANY`` (every step a node of its own) and ``THREE`` (three node names), ``steps`` steps each: one
    checkpoint and one write put through SqliteSaver, the rest copies of their rows."""
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        for number, (thread, name) in enumerate(((MANY, "node-{i:04d}"), (THREE, "node-{mod}"))):
            checkpoint = empty_checkpoint()
            checkpoint["id"] = f"1f0d000{number}-0000-6000-bfff-000000000000"  # the ids below sort after it
            checkpoint["channel_values"] = {"messages": [HumanMessage("go", id="m")], "title": "t"}
            checkpoint["channel_versions"] = {"messages": 1, "title": 1}
            saved = saver.put({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}, checkpoint,
                              {"source": "input", "step": -1, "parents": {}}, {})
            saver.put_writes(saved, [("title", "x")], task_id="seed")
            first = saved["configurable"]["checkpoint_id"]
            kind, blob = conn.execute("SELECT type, checkpoint FROM checkpoints WHERE thread_id = ?", [thread]).fetchone()
            wtype, value = conn.execute("SELECT type, value FROM writes WHERE thread_id = ?", [thread]).fetchone()
            conn.execute("DELETE FROM writes WHERE thread_id = ?", [thread])
            rows, writes, parent = [], [], first
            for i in range(steps):
                checkpoint_id = f"1f0d000{number}-0000-6001-{0x8000 + i:04x}-{i:012x}"
                rows.append((thread, "", checkpoint_id, parent, kind, blob,
                             json.dumps({"source": "loop", "step": i, "parents": {}}).encode()))
                writes.append((thread, "", parent, f"task-{i}", "~__pregel_pull, " + name.format(i=i, mod=i % 3), 0,
                               "title", wtype, value))
                parent = checkpoint_id
            conn.executemany("INSERT INTO checkpoints VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            conn.executemany("INSERT INTO writes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", writes)
        conn.commit()
    finally:
        conn.close()


def panel_work(db: Path, thread: str) -> int:
    """What the Graph panel computes: the history, every write key, the graph and its DOT; the nodes drawn."""
    with open_store(str(db)) as store:
        history = build_history(store.timeline_keys(thread))
        graph = infer_graph(history, store.write_keys(thread, list(history.nodes)))
    to_dot(graph)
    return len(graph.nodes)


def drawn_seconds(browser, url: str) -> float:
    """From opening the Graph panel until the browser has drawn the graph's first node, in a new context."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    try:
        page = context.new_page()
        started = time.perf_counter()
        page.goto(url)
        page.locator("[data-testid='stGraphVizChart'] svg g.node").first.wait_for(timeout=300_000)
        return time.perf_counter() - started
    finally:
        context.close()


def bench_graph(folder: Path, steps: int, repeat: int, browser_too: bool) -> list[float]:
    db = folder / "graph.db"
    write_threads(db, steps)
    drawn = {thread: panel_work(db, thread) for thread in (MANY, THREE)}
    times = {thread: median_seconds(lambda t=thread: panel_work(db, t), repeat) for thread in (MANY, THREE)}
    ratio = times[MANY] / times[THREE]
    print(f"graph of {steps:,} steps, computed (history, write keys, graph, DOT): {steps:,} distinct nodes "
          f"({drawn[MANY]} drawn) {times[MANY]:.3f} s / 3 nodes ({drawn[THREE]} drawn) {times[THREE]:.3f} s: "
          f"ratio {ratio:.2f} (target <= 3)")
    ratios = [ratio]
    if not browser_too:
        return ratios
    from playwright.sync_api import sync_playwright

    with streamlit("app.py", "--db", str(db), env={"INSPECTOR_CACHE_DIR": str(folder / "app-cache")}) as base, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
        urls = {thread: f"{base}/thread?thread={thread}&panel=graph" for thread in (MANY, THREE)}
        for url in urls.values():
            drawn_seconds(browser, url)  # warm: the server's caches hold each thread's history and graph
        seconds: dict[str, list[float]] = {thread: [] for thread in urls}
        for _ in range(repeat):  # round after round: the machine's changing load weighs on both alike
            for thread, url in urls.items():
                seconds[thread].append(drawn_seconds(browser, url))
        browser.close()
    many, three = statistics.median(seconds[MANY]), statistics.median(seconds[THREE])
    print(f"Graph panel drawn in Chromium (warm): {steps:,} distinct nodes {many:.2f} s / 3 nodes {three:.2f} s: "
          f"ratio {many / three:.2f} (target <= 3)")
    return ratios + [many / three]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--no-browser", action="store_true", help="time the graph in this process only")
    args = parser.parse_args()
    print(f"load average before: {load()}")
    with tempfile.TemporaryDirectory() as tmp:
        ratios = bench_bundles(Path(tmp), args.repeat)
        ratios += bench_graph(Path(tmp), args.steps, args.repeat, not args.no_browser)
    print(f"load average after: {load()}")
    return 0 if all(r <= 3 for r in ratios) else 1


if __name__ == "__main__":
    sys.exit(main())
