"""The metrics endpoint, served by a real process and scraped over HTTP, parsed with the Prometheus client's
own text parser; its values equal what the CLI's commands print as JSON for the same store.

The store: five simulated days written by LangGraph's SqliteSaver, and orphaned writes planted with one
raw ``DELETE FROM checkpoints`` (no saver API leaves writes behind; see ``test_store_files``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest
from conftest import REPO_ROOT, free_port
from growth_store import write_postgres, write_sqlite
from prometheus_client.parser import text_string_to_metric_families

from inspector.cli import main
from inspector.store_ops import operating

OVERSIZE = 20_000  # the long thread's newest state passes it, the others do not
BUDGET = 50_000_000
ENV = {"INSPECTOR_OVERSIZE_STATE_BYTES": str(OVERSIZE), "INSPECTOR_DISK_BUDGET_BYTES": str(BUDGET)}


@pytest.fixture(scope="module")
def metrics_db(tmp_path_factory):
    path = write_sqlite(tmp_path_factory.mktemp("metrics") / "store.db", time.time())
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM checkpoints WHERE thread_id = 'grow-c'")
    return path


@pytest.fixture(scope="module")
def served(metrics_db, tmp_path_factory):
    port = free_port()
    log = tmp_path_factory.mktemp("metrics-log") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "inspector", "metrics", "--db", str(metrics_db),
                                 "--port", str(port), "--cache-seconds", "300"],
                                cwd=REPO_ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **ENV})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                pytest.fail(f"metrics exited with {proc.returncode}: {log.read_text()}")
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read()
                break
            except OSError:
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/metrics", log
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def scrape(url: str) -> dict[tuple, float]:
    text = urllib.request.urlopen(url, timeout=10).read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def cli_json(capsys, *args: str) -> dict:
    assert main(list(args)) in (0, 1)
    return json.loads(capsys.readouterr().out)


def test_scraped_metrics_equal_the_cli(served, metrics_db, capsys, monkeypatch):
    url, log = served
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    first = scrape(url)
    db = ["--db", str(metrics_db), "--json"]
    snap = cli_json(capsys, "metrics", "--once", *db)
    threads = cli_json(capsys, "threads", "--sort", "stored", "--limit", "1", *db)
    growth = cli_json(capsys, "growth", "--since", "7", *db)
    store = cli_json(capsys, "health", "--store", *db)
    v = {name: value for (name, labels), value in first.items() if not labels}
    assert v["inspector_up"] == 1
    assert v["inspector_store_bytes"] == snap["store_bytes"] == growth["forecast"]["current_bytes"]
    assert v["inspector_threads"] == snap["threads"] == threads["total"] == 2  # grow-c has no checkpoint left
    assert v["inspector_checkpoints"] == snap["checkpoints"]
    assert v["inspector_largest_thread_bytes"] == threads["threads"][0]["stored_bytes"] == snap["largest_thread_bytes"]
    assert v["inspector_orphaned_bytes"] == store["orphans"]["total_bytes"] == snap["orphaned_bytes"] > 0
    assert v["inspector_store_file_bytes"] == store["file_facts"]["total_bytes"]
    tables = {dict(labels)["table"]: value for (name, labels), value in first.items() if name == "inspector_table_bytes"}
    assert tables == snap["table_bytes"] and set(tables) == {"checkpoints", "writes"}
    written = {dict(labels)["window"]: value for (name, labels), value in first.items()
               if name == "inspector_written_bytes"}
    assert written == snap["written_bytes"] and written["1d"] <= written.get("7d", v["inspector_store_bytes"])
    assert v["inspector_flagged_threads"] == snap["flagged_threads"] == 1
    assert v["inspector_largest_state_bytes"] == snap["largest_state_bytes"] > OVERSIZE
    assert v["inspector_disk_budget_bytes"] == BUDGET
    assert v["inspector_forecast_days_left"] == pytest.approx(snap["forecast_days_left"], rel=1e-3)
    # the same forecast as `growth --since 7`: five days stored, so the rate is over the store's own life
    assert snap["forecast_days_left"] == pytest.approx(growth["forecast"]["days_left"], rel=1e-3)
    assert "younger than the window" in snap["forecast_basis"]
    assert v["inspector_scrape_duration_seconds"] > 0
    # a second scrape within cache_seconds is served from the same snapshot
    second = scrape(url)
    assert second[("inspector_scrape_duration_seconds", ())] == v["inspector_scrape_duration_seconds"]
    assert second[("inspector_snapshot_age_seconds", ())] >= v["inspector_snapshot_age_seconds"]
    assert "serving Prometheus metrics on http://127.0.0.1:" in log.read_text()


def test_one_snapshot_as_a_table_reads_in_units_with_the_exact_counts(metrics_db, capsys):
    snap = cli_json(capsys, "metrics", "--once", "--db", str(metrics_db), "--json")
    assert main(["metrics", "--once", "--db", str(metrics_db)]) == 0
    rows = dict(line.split(None, 1) for line in capsys.readouterr().out.splitlines()[1:] if "  " in line)
    assert rows["store_bytes"].strip().endswith(f"({snap['store_bytes']:,})")
    assert rows["taken_at"].strip().endswith(" UTC") and rows["seconds"].strip().endswith(" s")
    assert rows["disk_budget_bytes"].startswith("none")


def test_metrics_refuses_a_bad_port_and_a_taken_one(metrics_db, served, capsys):
    url, _ = served
    assert main(["metrics", "--db", str(metrics_db), "--port", "0"]) == 2
    assert "--port" in capsys.readouterr().err
    port = url.split(":")[2].split("/")[0]
    assert main(["metrics", "--db", str(metrics_db), "--port", port]) == 2
    assert "cannot listen" in capsys.readouterr().err


@pytest.mark.postgres
def test_postgres_snapshot_equals_the_store(pg_demo):
    from inspector.operations.metrics import metrics_snapshot
    from inspector.store import open_store

    pg, _ = pg_demo
    with open_store(pg.readonly_dsn) as store:
        snap = metrics_snapshot(store, 1_000_000)
        totals = store.totals()
        facts = operating(store).file_facts()
        largest = store.threads(limit=1, sort="stored")[0]
    assert (snap.store_bytes, snap.threads, snap.checkpoints) == (totals.stored_bytes, totals.threads, totals.checkpoints)
    assert snap.largest_thread_bytes == largest.stored_bytes
    assert snap.table_bytes["checkpoint_blobs"] == next(r.bytes for r in facts.relations if r.name == "checkpoint_blobs")
    assert snap.flagged_threads >= 1  # demo-bloated's newest state passes 1 MB


def test_metrics_refuses_no_cache_and_warns_beyond_loopback(metrics_db, capsys):
    for seconds in ("0", "-5", "nan"):
        assert main(["metrics", "--db", str(metrics_db), "--cache-seconds", seconds]) == 2
        err = capsys.readouterr().err
        assert "--cache-seconds must be a positive number" in err and len(err.strip().splitlines()) == 1
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the warning comes first, then binding fails
    assert main(["metrics", "--db", str(metrics_db), "--host", "192.0.2.1", "--port", str(free_port())]) == 2
    err = capsys.readouterr().err
    assert "warning: --host 192.0.2.1 is not loopback" in err and "cannot listen on 192.0.2.1" in err
    from inspector.cli.operations_commands import exposure_warning

    assert [exposure_warning(h) for h in ("127.0.0.1", "127.8.0.1", "::1", "[::1]", "localhost")] == [None] * 5
    assert exposure_warning("0.0.0.0") and exposure_warning("example.internal")


def test_a_snapshot_that_fails_is_said_once_and_its_recovery_too(metrics_db, tmp_path):
    """The store's file goes away under the endpoint: ``inspector_up`` drops to 0 with the last good values, and the
    operator's log says why, once per outage (not at every scrape), then that the store answers again."""
    import shutil

    from inspector.operations.metrics import metrics_snapshot
    from inspector.operations.metrics_server import SnapshotCollector
    from inspector.store import open_store

    path = tmp_path / "store.db"
    shutil.copyfile(metrics_db, path)
    said: list[str] = []
    with open_store(str(path)) as store:
        collector = SnapshotCollector(lambda: metrics_snapshot(store, OVERSIZE), 1e-9, said.append)
        assert collector.current()[1] and said == []
        path.rename(tmp_path / "away.db")
        for _ in range(3):
            snap, up = collector.current()
            assert not up and snap is not None and snap.threads > 0
        assert len(said) == 1 and said[0].startswith("a snapshot of the store failed (inspector_up 0")
        (tmp_path / "away.db").rename(path)
        assert collector.current()[1]
    assert said[1:] == ["the store answers again (inspector_up 1)"]


@pytest.mark.postgres
def test_a_schema_of_a_thousand_tables_is_a_handful_of_table_series(postgres_dsn):
    """1,000 tables of an app's own beside LangGraph's and DeerFlow's ``threads_meta``: the endpoint serves one
    ``inspector_table_bytes`` series per LangGraph table and known app table, and one ``table="other"`` holding the
    bytes of all the rest, as ``health --store`` lists them."""
    from conftest import written_database

    from inspector.operations.metrics import OTHER_TABLES, metrics_snapshot
    from inspector.operations.metrics_server import families
    from inspector.store import open_store

    def write(url: str) -> None:
        import psycopg

        write_postgres(url, time.time())
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("CREATE TABLE threads_meta (thread_id TEXT PRIMARY KEY, title TEXT)")
            conn.execute("DO $$ BEGIN FOR i IN 1..1000 LOOP "
                         "EXECUTE format('CREATE TABLE app_table_%s (id int)', i); "
                         "END LOOP; END $$")
            conn.execute("INSERT INTO app_table_1 SELECT generate_series(1, 500)")

    _, readonly = written_database(postgres_dsn, "inspector_many_tables", write)
    with open_store(readonly) as store:
        snap = metrics_snapshot(store, 1_000_000)
        facts = operating(store).file_facts(per_table=False)
    listed = {r.name: r.bytes for r in facts.relations if r.kind == "table"}
    assert len(listed) == 1005
    named = {"checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations", "threads_meta"}
    assert snap.table_bytes == {**{n: listed[n] for n in named},
                                OTHER_TABLES: sum(b for n, b in listed.items() if n not in named)}
    assert snap.table_bytes[OTHER_TABLES] > listed["app_table_2"] * 1000  # app_table_1 holds rows
    series = [s for family in families(snap, True, 0.0) if family.name == "inspector_table_bytes"
              for s in family.samples]
    assert sorted(s.labels["table"] for s in series) == sorted([*named, OTHER_TABLES])
