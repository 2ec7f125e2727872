"""Play and Prev / Next in headless Chromium, against a one-line Streamlit page's rerun in the same run.

    python benchmarks/bench_play.py [--db bench-data/store.db] [--steps 8] [--clicks 6] [--rounds 3] [--opens 3]

Writes the demo (for ``demo-long``, 330 steps) and, unless ``--db`` names one, a store of
``store_generator.py``'s shape whose long thread has 2,000 checkpoints; three one-checkpoint threads are
added to a copy of it (the page-open comparison). Starts ``streamlit run app.py`` on each and, beside them,
a one-line page holding a button (``st.button("again"); st.write("hello")``), twice: as Streamlit runs it by
default (from a folder without a ``.streamlit/config.toml``: the unit of the targets) and with the dashboard's
own settings (the repository's, which turn off Streamlit's full garbage collection after each run, so its
ratio is printed too). In the browser a
MutationObserver on the app's ``data-test-script-state`` times every click until the last script run it led to
returns to ``notRunning`` (a click's rerun: the one-line page's button, the thread page's Next; each script
run's own time is printed beside it), and another records
every Play frame as it enters the page: its step, the step its body shows and the graph's lit node(s).

For each long thread it prints:

- Prev / Next: the median time a click on Next takes to settle on the thread page (a middle step, the State
  panel) and its ratio to the one-line page's rerun (target: at most 3), over ``--rounds`` rounds of
  ``--clicks`` clicks, each thread's between two runs of the one-line pages' (the ratio of each round against
  the rerun around it is printed too: the machine's load moves during a run);
- Play, in the presenter view (the graph beside the diff), at each speed (0.5 to 4 steps/s) over ``--steps``
  steps from the middle: the steps shown per second, the steps skipped (from the URL each frame writes, and
  on screen), the longest run of skipped steps, and how many times a frame showed one step's heading with
  another step's body or lit node (target: no step skipped at 2 steps/s or slower; at 4 steps/s at most one
  in ten and never two in a row; no mixed frame);

and, on the generated store, the thread page's open (until its newest message shows, a fresh browser context
each time, median of ``--opens``) against a one-checkpoint thread's (target: at most 1.5). The machine's
load average is printed before and after: on a shared machine every time is pessimistic, the ratios less so.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from bench_browser import CHROMIUM, newest_text, open_until, streamlit  # noqa: E402
from store_generator import LONG_THREAD, SMALL_PREFIX, Shape, build_graph, generate_sqlite, write_small_threads  # noqa: E402

APP = "[data-testid='stApp']"
SPEEDS = {"0.5/s": 0.5, "1/s": 1.0, "2/s": 2.0, "4/s": 4.0}
OBSERVE = """() => { window.__runs = []; window.__clicks = []; window.__ends = []; let start = null;
const app = document.querySelector("[data-testid='stApp']");
document.addEventListener('click', () => window.__clicks.push(performance.now()), true);
new MutationObserver(() => { const state = app.getAttribute('data-test-script-state');
  if (state !== 'notRunning' && start === null) start = performance.now();
  else if (state === 'notRunning' && start !== null) { const now = performance.now(); window.__runs.push(now - start);
    window.__ends.push(now); start = null; } })
.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']}); }"""
# for each click, the time from it until the last script run it started (the reruns it led to included) ended
SETTLED = """() => window.__clicks.map((at, i) => { const next = window.__clicks[i + 1] ?? Infinity;
  const ends = window.__ends.filter(t => t > at && t < next); return ends.length ? Math.max(...ends) - at : null; })
  .filter(t => t !== null)"""
# every step a frame writes into the URL, and every frame as it enters the page: its heading's step, its body's
# step and the graph's lit node(s) (outlined 3 px wide: ``flow_dot.lit_style``)
RECORD = """() => { window.__urls = []; window.__frames = [];
for (const name of ['pushState', 'replaceState']) { const original = history[name].bind(history);
  history[name] = (state, title, url) => { original(state, title, url);
    window.__urls.push([performance.now(), new URLSearchParams(location.search).get('step')]); }; }
const look = () => { const frame = document.querySelector('.st-key-play-frame .si-frame'); if (!frame) return;
  const lit = Array.from(document.querySelectorAll('.st-key-flow-graph g.node')).filter(g => {
    const shape = g.querySelector('path, polygon, ellipse'); return shape && getComputedStyle(shape).strokeWidth === '3px';
  }).map(g => g.querySelector('title').textContent).sort().join(',');
  const record = [performance.now(), frame.querySelector('.si-heading').dataset.step,
                  frame.querySelector('.si-body').dataset.step, frame.querySelector('.si-head').innerText, lit];
  const last = window.__frames[window.__frames.length - 1];
  if (!last || last[1] !== record[1] || last[2] !== record[2] || last[4] !== record[4]) window.__frames.push(record); };
new MutationObserver(look).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true}); }"""


def load() -> str:
    return " / ".join(f"{x:.1f}" for x in os.getloadavg())


def settle(page, timeout: float = 180_000) -> None:
    page.locator(f"{APP}[data-test-connection-state='CONNECTED']").wait_for(state="attached", timeout=timeout)
    time.sleep(0.5)
    page.locator(f"{APP}[data-test-script-state='notRunning']").wait_for(state="attached", timeout=timeout)


def baseline(browser, url: str, clicks: int) -> tuple[list[float], list[float]]:
    """The one-line page's settle and script-run times, one per click on its button."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    page.get_by_text("hello").first.wait_for(state="visible", timeout=120_000)
    settle(page)
    page.evaluate(OBSERVE)
    for _ in range(clicks):
        page.get_by_role("button", name="again").click()
        time.sleep(0.6)
        settle(page)
    return _times(page)


def _times(page) -> tuple[list[float], list[float]]:
    """(click-to-settled times, script-run times) in seconds, and the page closed."""
    settled, runs = page.evaluate(SETTLED), page.evaluate("window.__runs")
    page.close()
    return [ms / 1000 for ms in settled], [ms / 1000 for ms in runs]


def stepping(browser, url: str, clicks: int) -> tuple[list[float], list[float]]:
    """Settle and script-run times of Next on the thread page (the State panel), one per click."""
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(url)
    page.locator(".st-key-nav_next button:visible").wait_for(timeout=180_000)
    settle(page)
    page.evaluate(OBSERVE)
    for _ in range(clicks):
        page.locator(".st-key-nav_next button:visible").click()
        time.sleep(0.6)
        settle(page)
    return _times(page)


def playing(browser, url: str, steps: int) -> dict[str, dict[str, float]]:
    """Play in the presenter view at each speed for ``steps`` steps from the step ``url`` opens, paused between
    speeds: for each, what the URL and the screen showed."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    page.goto(url)
    page.locator(".st-key-flow-graph svg g.node").first.wait_for(timeout=180_000)
    settle(page)
    page.evaluate(RECORD)
    out = {}
    for label, rate in SPEEDS.items():
        page.locator("[data-testid='stButtonGroup'] button").filter(has_text=label).first.click()
        settle(page)
        start_urls, start_frames = page.evaluate("[window.__urls.length, window.__frames.length]")
        page.keyboard.press("p")
        deadline = time.monotonic() + steps / rate * 4 + 60
        while time.monotonic() < deadline:
            moved = {step for _, step in page.evaluate("window.__urls")[start_urls:]}
            if len(moved) > steps:
                break
            time.sleep(0.25)
        page.keyboard.press("p")  # pause
        settle(page)
        urls, frames = page.evaluate("[window.__urls, window.__frames]")
        out[label] = summary(urls[start_urls:], frames[start_frames:])
    page.close()
    return out


def summary(urls: list, frames: list) -> dict[str, float]:
    """Steps per second, skipped steps and mixed frames of one speed's recording."""
    moved: list[tuple[float, int]] = []
    for at, step in urls:
        if step is not None and (not moved or int(step) != moved[-1][1]):
            moved.append((at, int(step)))
    moved = moved[1:]  # from the first tick on: the frame Play starts on is drawn with the page
    gaps = [b - a for (_, a), (_, b) in zip(moved, moved[1:])]
    shown: list[tuple[float, int]] = []
    mixed = 0
    for at, head, body, _, _ in frames:
        if head != body:
            mixed += 1
        if head not in (None, "None") and (not shown or int(head) != shown[-1][1]):
            shown.append((at, int(head)))
    shown = [s for s in shown if moved and moved[0][1] <= s[1] <= moved[-1][1]]
    screen_gaps = [b - a for (_, a), (_, b) in zip(shown, shown[1:])]
    span = (moved[-1][0] - moved[0][0]) / 1000 if len(moved) > 1 else 0.0
    screen_span = (shown[-1][0] - shown[0][0]) / 1000 if len(shown) > 1 else 0.0
    return {
        "moves": len(gaps),
        "rate": sum(gaps) / span if span else 0.0,
        "skipped": sum(g - 1 for g in gaps if g > 1),
        "run": max((g - 1 for g in gaps), default=0),
        "shown_rate": (shown[-1][1] - shown[0][1]) / screen_span if screen_span else 0.0,
        "screen_skipped": sum(g - 1 for g in screen_gaps if g > 1),
        "mixed": mixed,
        "backwards": sum(1 for g in gaps if g < 1),
    }


def middle_step(db_url: str, thread_id: str) -> int:
    from inspector.store import open_store

    with open_store(db_url) as store:
        steps = sorted(r.step for r in store.timeline_keys(thread_id) if r.checkpoint_ns == "" and r.step is not None)
    return steps[len(steps) // 2]


def with_small_threads(source: Path, folder: Path) -> Path:
    """A copy of ``source`` with three one-checkpoint threads added (``store_generator``'s small threads)."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    copy = folder / "store-with-small.db"
    with sqlite3.connect(source) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copyfile(source, copy)
    conn = sqlite3.connect(copy, check_same_thread=False)
    try:
        shape = Shape(small_threads=3)
        write_small_threads(build_graph(shape, SqliteSaver(conn)), shape)
    finally:
        conn.close()
    return copy


def opening(browser, app_url: str, db_url: str, opens: int) -> tuple[float, float]:
    """Median warm opens of the long thread's page and of a one-checkpoint thread's, taken in rounds."""
    small = f"{SMALL_PREFIX}00001"
    targets = {LONG_THREAD: newest_text(db_url, LONG_THREAD), small: newest_text(db_url, small)}
    for thread, text in targets.items():  # cold opens, not counted
        open_until(browser, f"{app_url}/thread?thread={thread}", text)
    times: dict[str, list[float]] = {thread: [] for thread in targets}
    for _ in range(opens):
        for thread, text in targets.items():
            times[thread].append(open_until(browser, f"{app_url}/thread?thread={thread}", text)[0])
    return statistics.median(times[LONG_THREAD]), statistics.median(times[small])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a store written by store_generator.py (else one is generated)")
    parser.add_argument("--steps", type=int, default=8, help="steps played at each speed")
    parser.add_argument("--clicks", type=int, default=6, help="Next clicks per round (and the one-line page's)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of Prev / Next, each between two baselines")
    parser.add_argument("--opens", type=int, default=3)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    from inspector.demo import write_demo

    print(f"load average (1 / 5 / 15 min) at the start: {load()}")
    with tempfile.TemporaryDirectory() as folder:
        demo = write_demo(Path(folder) / "demo")
        db = Path(args.db) if args.db else generate_sqlite(Path(folder) / "store.db", Shape(small_threads=0))
        db = with_small_threads(db, Path(folder))
        hello = Path(folder) / "hello.py"
        hello.write_text('import streamlit as st\n\nst.button("again")\nst.write("hello")\n')
        targets = {"demo-long (330 steps)": (f"sqlite:///{demo}", "demo-long"),
                   f"{LONG_THREAD} (2,000 checkpoints)": (f"sqlite:///{db.resolve()}", LONG_THREAD)}
        results, opened = {}, None
        with contextlib.ExitStack() as running, sync_playwright() as pw:
            # the unit: a one-line page as Streamlit runs it by default (from a folder without a config.toml); and
            # beside it the same page with the dashboard's own settings (the repository's .streamlit/config.toml)
            units = {"Streamlit's defaults": running.enter_context(streamlit(str(hello), cwd=Path(folder))),
                     "the dashboard's settings": running.enter_context(streamlit(str(hello)))}
            apps = {name: running.enter_context(streamlit("app.py", "--db", url, env={
                "INSPECTOR_CACHE_DIR": f"{folder}/cache-{i}"})) for i, (name, (url, _)) in enumerate(targets.items())}
            pages = {name: f"{apps[name]}/thread?thread={thread}&step={middle_step(url, thread)}"
                     for name, (url, thread) in targets.items()}
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            # Prev / Next in rounds, each thread's clicks between two runs of the one-line pages': the machine's
            # load moves during a run, and each ratio is taken against the rerun measured around it
            base = {unit: ([], []) for unit in units}
            nexts: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in targets}
            rounds: dict[tuple[str, str], list[float]] = {(name, unit): [] for name in targets for unit in units}
            for _ in range(args.rounds):
                before = {unit: baseline(browser, url, args.clicks) for unit, url in units.items()}
                stepped = {name: stepping(browser, pages[name], args.clicks) for name in targets}
                after = {unit: baseline(browser, url, args.clicks) for unit, url in units.items()}
                for unit in units:
                    around = statistics.median(before[unit][0] + after[unit][0])
                    for part in (before[unit], after[unit]):
                        base[unit][0].extend(part[0])
                        base[unit][1].extend(part[1])
                    for name, (settles, _) in stepped.items():
                        rounds[name, unit].append(statistics.median(settles) / around)
                for name, (settles, runs) in stepped.items():
                    nexts[name][0].extend(settles)
                    nexts[name][1].extend(runs)
            for name, (url, thread) in targets.items():
                plays = playing(browser, f"{pages[name]}&present=1", args.steps)
                if thread == LONG_THREAD:
                    opened = opening(browser, apps[name], url, args.opens)
                results[name] = (nexts[name], plays)
            browser.close()
    print(f"load average at the end: {load()}")
    reruns = {}
    for unit, (settles, runs) in base.items():
        reruns[unit] = statistics.median(settles), statistics.median(runs)
        print(f"one-line page rerun with {unit}: settles {reruns[unit][0] * 1000:.0f} ms after the click (median of "
              f"{len(settles)}), its script runs {reruns[unit][1] * 1000:.0f} ms")
    unit, other = units
    rerun, script = reruns[unit]
    ok = True
    for name, ((nexts, runs), plays) in results.items():
        settled = statistics.median(nexts)
        print(f"\n{name}")
        print(f"  Prev / Next settles {settled * 1000:.0f} ms after the click (median of {len(nexts)}, max "
              f"{max(nexts) * 1000:.0f}): {settled / rerun:.1f}x the one-line rerun with {unit} (target <= 3), "
              f"{settled / reruns[other][0]:.1f}x with {other}; its script runs {statistics.median(runs) * 1000:.0f} ms "
              f"({statistics.median(runs) / script:.0f}x the one-line page's)")
        for each in units:
            print(f"  each round against the rerun with {each} around it: "
                  f"{', '.join(f'{r:.1f}x' for r in rounds[name, each])}")
        ok &= settled / rerun <= 3
        print("  Play in the presenter view (graph and diff):")
        for label, got in plays.items():
            rate = SPEEDS[label]
            print(f"    {label:>6}: {got['rate']:.2f} steps/s by the URL, {got['shown_rate']:.2f} on screen, over "
                  f"{got['moves']} moves; skipped {got['skipped']} (longest run {got['run']}), on screen "
                  f"{got['screen_skipped']}; mixed frames {got['mixed']}")
            ok &= got["mixed"] == 0 and got["run"] <= 1 and got["backwards"] == 0
            ok &= got["skipped"] == 0 if rate <= 2 else got["skipped"] * 10 <= max(got["moves"], 10)
    if opened is not None:
        long_open, small_open = opened
        print(f"\nthread page opens (warm, median of {args.opens}): {LONG_THREAD} {long_open:.2f} s, a one-checkpoint "
              f"thread {small_open:.2f} s: {long_open / small_open:.2f}x (target <= 1.5)")
        ok &= long_open / small_open <= 1.5
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
