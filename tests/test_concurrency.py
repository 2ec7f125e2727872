"""An agent writes checkpoints (SQLite in WAL mode, and PostgreSQL) while the dashboard (AppTest) and the
CLI read threads, timelines, states and analyses in a loop: no error on either side, the writer never
waits on the inspector (its SQLite connection has a zero busy timeout and its PostgreSQL sessions a
200 ms lock timeout, so a wait would be an error), and every committed checkpoint becomes visible.

The writer runs ``INSPECTOR_TEST_CONCURRENCY_SECONDS`` per backend (default 12); the readers start
after the first quarter, so the writer's step latency alone and under readers are both measured and
printed (a shared 2-core machine makes their ratio a report, not an assertion).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import READONLY_ROLE, grant_readonly_role, pg_url
from ui_app import all_text, open_page

REPO_ROOT = Path(__file__).resolve().parent.parent
SECONDS = float(os.environ.get("INSPECTOR_TEST_CONCURRENCY_SECONDS", "12"))
THREADS = ("load-0", "load-1")
# A thread page reads a growing thread's whole history (sizes, replay marks) while the writer and the
# CLI share two cores: slow, not wrong. The limit only catches a page that never finishes.
PAGE_TIMEOUT = 240


def cli(url: str, *args: str) -> subprocess.CompletedProcess:
    """One command; ``--quiet``: stderr then holds only errors (no progress counts)."""
    return subprocess.run([sys.executable, "-m", "inspector", *args, "--db", url, "--quiet"], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=120)


def read_with_cli(url: str, stop: threading.Event, failures: list[str], calls: list[str]) -> None:
    commands = [("threads", "--json"), ("timeline", "load-0", "--json"), ("state", "load-1", "--json"),
                ("replay", "load-0", "--json"), ("sizes", "load-1", "--json"), ("health", "load-0", "--json")]
    i = 0
    while not stop.is_set() or i < len(commands):  # every command at least once
        args = commands[i % len(commands)]
        i += 1
        calls.append(args[0] if not stop.is_set() else args[0] + " (after the writer)")
        out = cli(url, *args)
        allowed = (0, 1) if args[0] == "health" else (0,)  # health exits 1 when it raises a flag
        if out.returncode not in allowed or out.stderr.strip():
            failures.append(f"{' '.join(args)} -> {out.returncode}: {out.stderr.strip()[:300]}")
            continue
        try:
            json.loads(out.stdout)
        except ValueError as exc:
            failures.append(f"{' '.join(args)}: not JSON ({exc})")


PAGES = [("threads", {}), ("thread", {"thread": "load-0"}), ("thread", {"thread": "load-1"}), ("health", {}),
         ("diff", {"thread": "load-0", "replay": "1"})]


def read_with_dashboard(writer: subprocess.Popen, failures: list[str], pages: list[str]) -> None:
    """The pages, one after the other, until the writer ends: no exception, no error box."""
    from inspector.ui import connection, data

    i = 0
    while writer.poll() is None or i < len(PAGES):  # every page at least once
        page, params = PAGES[i % len(PAGES)]
        i += 1
        pages.append(page if writer.poll() is None else page + " (after the writer)")
        if "thread" in params:  # what the Refresh button does: read the running thread again
            data.refresh_thread(connection._open(connection.settings().db), params["thread"])
        at = open_page(page, timeout=PAGE_TIMEOUT, **params)
        problems = [str(e) for e in at.exception] + [e.value for e in at.error]
        if problems:
            failures.append(f"{page} {params}: {problems}")


def run_load(url: str, reader_url: str) -> dict:
    """The writer as its own process; readers from the first quarter on; returns the writer's report."""
    writer = subprocess.Popen([sys.executable, str(REPO_ROOT / "tests" / "load_writer.py"), url, str(SECONDS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    assert writer.stdout.readline().strip() == "ready", writer.stderr.read()[-2000:]  # a first run is committed
    started = time.time()
    time.sleep(SECONDS / 4)  # the writer alone for a quarter of the time: its baseline latency
    stop = threading.Event()
    cli_failures: list[str] = []
    cli_calls: list[str] = []
    readers_from = time.time()
    cli_thread = threading.Thread(target=read_with_cli, args=(reader_url, stop, cli_failures, cli_calls))
    cli_thread.start()
    page_failures: list[str] = []
    pages: list[str] = []
    try:
        read_with_dashboard(writer, page_failures, pages)
    finally:
        stop.set()
        cli_thread.join()
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, err[-2000:]
    report = json.loads(out)
    report.update(readers_from=readers_from, started=started, cli_failures=cli_failures, cli_calls=cli_calls,
                  page_failures=page_failures, pages=pages)
    return report


def check(report: dict, url: str) -> None:
    runs = report["runs"]
    alone = [r["step_seconds"] for r in runs if r["start"] < report["readers_from"]]
    shared = [r["step_seconds"] for r in runs if r["start"] >= report["readers_from"]]
    print(f"\n{url.split(':')[0]}: {len(runs)} runs; writer step latency median {statistics.median(alone) * 1000:.1f} ms "
          f"alone, {statistics.median(shared) * 1000:.1f} ms under readers "
          f"(x{statistics.median(shared) / statistics.median(alone):.2f}); "
          f"{len(report['cli_calls'])} CLI calls, {len(report['pages'])} page runs")
    assert report["errors"] == []  # no lock wait (it would have been an error), nothing else either
    assert report["cli_failures"] == [] and report["page_failures"] == []
    during = [c for c in report["cli_calls"] + report["pages"] if "after the writer" not in c]
    assert alone and shared and len(during) >= 2  # readers did overlap the writes

    committed = report["committed"]
    timeline = {t: json.loads(cli(url, "timeline", t, "--json").stdout)["checkpoints"] for t in THREADS}
    for thread in THREADS:
        assert {c["checkpoint_id"] for c in timeline[thread]} == set(committed[thread])
    from inspector.ui import connection, data

    for thread in THREADS:
        data.refresh_thread(connection._open(connection.settings().db), thread)
        at = open_page("thread", timeout=PAGE_TIMEOUT, thread=thread)
        assert f"{len(committed[thread])} checkpoint(s)" in all_text(at)


@pytest.mark.timeout(900)
def test_sqlite_wal_writer_and_readers(tmp_path, app_on_store):
    db = tmp_path / "load.db"
    url = f"sqlite:///{db}"
    app_on_store(url)
    check(run_load(url, url), url)


@pytest.mark.postgres
@pytest.mark.timeout(900)
def test_postgres_writer_and_readers(postgres_dsn, app_on_store):
    import psycopg

    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute("CREATE DATABASE load_test")
    info = psycopg.conninfo.conninfo_to_dict(postgres_dsn.admin_dsn)
    admin = pg_url(info.get("user", "postgres"), info.get("password"), info["host"], info["port"], "load_test")
    from langgraph.checkpoint.postgres import PostgresSaver

    with PostgresSaver.from_conn_string(admin) as saver:
        saver.setup()
    grant_readonly_role(admin)
    reader = pg_url(READONLY_ROLE, READONLY_ROLE, info["host"], info["port"], "load_test")
    app_on_store(reader)
    check(run_load(admin, reader), reader)
