"""The thread page in headless Chromium: the long thread against a one-checkpoint thread and a one-line page.

    python benchmarks/bench_browser.py [--db bench-data/store.db] [--pg bench-data/pg | --dsn URL] [-n 3]

Starts ``streamlit run app.py`` on the store and, beside it, a one-line Streamlit
page (``st.write("hello")``); then times, in a fresh browser context each time,
from opening the link until the newest message is visible (for the one-line page:
until "hello" is). The first open of each page after the servers start is
reported as cold; the median of ``-n`` further opens as warm (taken in rounds, one open of each
page per round, so that the shared machine's changing load weighs on every page alike). Targets (warm): the
long thread within 1.5x of a one-checkpoint thread of the same store, and that
thread within 1.5x of the one-line page; the first open of the 1-checkpoint thread on the freshly started
dashboard within 2x of a warm open. Beside the times, the megabytes of script the browser fetched for each
page (the most over the warm opens): what a page's elements make it load (Streamlit fetches an element's
script when one is drawn: the code highlighter, the data grid, Vega) is most of what it costs beyond the
one-line page.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Iterator

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))

from pg_cluster import postgres  # noqa: E402
from store_generator import LONG_THREAD, SMALL_PREFIX  # noqa: E402

CHROMIUM = "/usr/bin/chromium"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit(script: str, *args: str, env: dict[str, str] | None = None, cwd: Path = REPO) -> Iterator[str]:
    """``streamlit run script`` on a free loopback port, run in ``cwd`` (whose ``.streamlit/config.toml`` it reads:
    the repository's, unless another folder is named)."""
    port = _port()
    cmd = [sys.executable, "-m", "streamlit", "run", script, "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none", *(["--", *args] if args else [])]
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.read().strip() == b"ok":
                    break
            time.sleep(0.25)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def newest_text(db_url: str, thread_id: str) -> str:
    from inspector.store import open_store

    with open_store(db_url) as store:
        content = store.state(thread_id).values["messages"][-1]["content"]
    return (content if isinstance(content, str) else str(content))[:60]


def open_until(browser, url: str, text: str) -> tuple[float, int]:
    """Seconds from opening ``url`` until ``text`` is visible, in a new browser context (an empty cache), and
    the bytes of script the browser fetched by then."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        scripts: list[int] = []
        page.on("response", lambda r: scripts.append(int(r.headers.get("content-length") or 0))
                if r.url.endswith(".js") else None)
        started = time.perf_counter()
        page.goto(url)
        page.get_by_text(text, exact=False).first.wait_for(state="visible", timeout=180_000)
        return time.perf_counter() - started, sum(scripts)
    finally:
        context.close()


def measure(db_url: str, repeats: int) -> dict[str, tuple[float, float, int]]:
    from playwright.sync_api import sync_playwright

    small = f"{SMALL_PREFIX}00001"
    texts = {"long": newest_text(db_url, LONG_THREAD), "small": newest_text(db_url, small)}
    with tempfile.TemporaryDirectory() as folder:
        hello = Path(folder) / "hello.py"
        hello.write_text('import streamlit as st\n\nst.write("hello")\n')
        with streamlit(str(hello)) as hello_url, \
                streamlit("app.py", "--db", db_url, env={"INSPECTOR_CACHE_DIR": f"{folder}/cache"}) as app_url, \
                sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            targets = {
                "one-line page": (hello_url, "hello"),
                "1-checkpoint thread": (f"{app_url}/thread?thread={small}", texts["small"]),
                "2,000-checkpoint thread": (f"{app_url}/thread?thread={LONG_THREAD}", texts["long"]),
            }
            cold = {name: open_until(browser, url, text)[0] for name, (url, text) in targets.items()}
            warm: dict[str, list[float]] = {name: [] for name in targets}
            scripts: dict[str, list[int]] = {name: [] for name in targets}
            for _ in range(repeats):  # round after round: a change in the machine's load hits every target alike
                for name, (url, text) in targets.items():
                    seconds, script_bytes = open_until(browser, url, text)
                    warm[name].append(seconds)
                    scripts[name].append(script_bytes)
            browser.close()
    return {name: (cold[name], statistics.median(warm[name]), max(scripts[name])) for name in targets}


def load() -> str:
    """The machine's load averages (1, 5, 15 min): a shared machine's noise, printed beside the ratios."""
    return " / ".join(f"{x:.2f}" for x in os.getloadavg())


def report(label: str, results: dict[str, tuple[float, float, int]], before: str) -> bool:
    print(f"\n{label} (load average before {before}, after {load()})")
    print(f"{'':26} {'cold s':>7} {'warm s':>7} {'script MB':>10}")  # fetched until the text showed (warm)
    for name, (cold, warm, script_bytes) in results.items():
        print(f"{name:26} {cold:7.2f} {warm:7.2f} {script_bytes / 1e6:10.2f}")
    long_vs_small = results["2,000-checkpoint thread"][1] / results["1-checkpoint thread"][1]
    small_vs_hello = results["1-checkpoint thread"][1] / results["one-line page"][1]
    print(f"2,000-checkpoint / 1-checkpoint thread (warm): {long_vs_small:.2f} (target <= 1.5)")
    print(f"1-checkpoint thread / one-line page (warm):    {small_vs_hello:.2f} (target <= 1.5)")
    # the first open after the dashboard's process started (imports, store opening, caches empty) against warm
    first_vs_warm = results["1-checkpoint thread"][0] / results["1-checkpoint thread"][1]
    print(f"1-checkpoint thread, first load on a fresh process / warm: {first_vs_warm:.2f} (target <= 2.0)")
    return long_vs_small <= 1.5 and small_vs_hello <= 1.5 and first_vs_warm <= 2.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default=str(REPO.parent / "bench-data" / "store.db"))
    parser.add_argument("--pg", help="a folder holding a generated PostgreSQL cluster (pg_cluster.py)")
    parser.add_argument("--dsn", help="a PostgreSQL URL holding the generated store")
    parser.add_argument("-n", type=int, default=3)
    args = parser.parse_args()
    ok = True
    if args.db:
        before = load()
        ok = report(f"SQLite {args.db}", measure(f"sqlite:///{Path(args.db).resolve()}", args.n), before)
    with postgres(args.dsn, args.pg) as dsn:
        if dsn:
            before = load()
            ok &= report(f"PostgreSQL {args.dsn or args.pg}", measure(dsn, args.n), before)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
