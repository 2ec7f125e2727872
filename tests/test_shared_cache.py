"""Replicas sharing their work: two dashboard processes (AppTest, each in its own Python process) on one
PostgreSQL store and one shared analysis cache in another PostgreSQL database. What the first computed,
the second reads: it reads no checkpoint's sizes from the store, and every fact is a cache hit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest
from conftest import REPO_ROOT
from test_retention_postgres import with_database

from inspector.cache import CacheError, open_cache
from inspector.cache.postgres import PostgresAnalysisCache
from inspector.profiles import EVIDENCE_KIND
from inspector.store import open_store
from inspector.threads.thread_status import STATUS_KIND
from inspector.threads.thread_titles import TITLE_KIND

pytestmark = pytest.mark.postgres
CACHE_DATABASE = "inspector_shared_cache"
THREAD = "demo-bloated"


@pytest.fixture(scope="module")
def cache_url(postgres_dsn):
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {CACHE_DATABASE}")
        conn.execute(f"CREATE DATABASE {CACHE_DATABASE}")
    return with_database(postgres_dsn.admin_dsn, CACHE_DATABASE)


def dashboard(store_url: str, cache: str, tmp_path) -> dict:
    env = {**os.environ, "INSPECTOR_DB": store_url, "INSPECTOR_CACHE_URL": cache, "PYTHONPATH": str(REPO_ROOT),
           "INSPECTOR_CACHE_DIR": str(tmp_path / "unused-sqlite-cache")}
    proc = subprocess.run([sys.executable, str(REPO_ROOT / "tests" / "shared_cache_process.py"), THREAD],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_second_process_reads_what_the_first_computed(pg_demo, cache_url, tmp_path):
    pg, _ = pg_demo
    with open_store(pg.readonly_dsn) as store:
        checkpoints = len(store.timeline(THREAD))
    first = dashboard(pg.readonly_dsn, cache_url, tmp_path)
    second = dashboard(pg.readonly_dsn, cache_url, tmp_path)
    assert first["exception"] == [] and second["exception"] == []
    assert first["caches"] == second["caches"] == 1
    assert first["checkpoints_read"] >= checkpoints and first["hits"] == 0 and first["misses"] == checkpoints
    # every size fact came from the cache, and what the newest checkpoint holds (the app profile's evidence)
    assert second["hits"] == checkpoints and second["misses"] == 0
    assert second["checkpoints_read"] == first["checkpoints_read"] - checkpoints <= 1
    assert second["metrics"] == first["metrics"]  # the same Size panel, from the cache
    with psycopg.connect(cache_url) as conn:
        # one size fact per checkpoint; the thread list's status and title of the newest one beside them
        assert conn.execute("SELECT count(*) FROM inspector_cache_facts WHERE thread = %s AND kind <> ALL(%s)",
                            [THREAD, [EVIDENCE_KIND, STATUS_KIND, TITLE_KIND]]).fetchone()[0] == checkpoints
        assert conn.execute("SELECT count(*) FROM inspector_cache_facts WHERE thread = %s AND kind = %s",
                            [THREAD, EVIDENCE_KIND]).fetchone()[0] == 1


def test_a_cache_url_naming_the_store_is_refused(pg_demo, postgres_dsn):
    pg, _ = pg_demo
    elsewhere = postgres_dsn.admin_dsn + ("&" if "?" in postgres_dsn.admin_dsn else "?") + "options=-csearch_path%3Dnowhere"
    with open_store(pg.readonly_dsn) as store:  # noqa: SIM117
        with pytest.raises(CacheError, match="checkpoint tables"):  # the store's database, as the admin
            open_cache(None, 10, store, postgres_dsn.admin_dsn)
        with pytest.raises(CacheError, match="is the inspected store's database"):  # ... under another schema
            open_cache(None, 10, store, elsewhere)
    with psycopg.connect(postgres_dsn.admin_dsn) as conn:
        tables = conn.execute("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'inspector_cache%'").fetchone()[0]
    assert tables == 0  # nothing was written to the store


def test_same_bounds_and_eviction_as_the_embedded_cache(cache_url, pg_demo):
    with PostgresAnalysisCache(cache_url, max_bytes=60_000) as cache:
        with psycopg.connect(cache_url, autocommit=True) as conn:
            conn.execute("TRUNCATE inspector_cache_facts, inspector_cache_threads")
        blob = {"data": b"x" * 10_000}
        for n in range(8):
            cache.put("s", f"thread-{n}", "sizes", {("", f"c{i}"): blob for i in range(2)})
            cache.get("s", "thread-0", "sizes", [("", "c0")])  # thread-0 stays the most recently used
        stats = cache.stats()
        kept = {t for (t,) in psycopg.connect(cache_url).execute("SELECT thread FROM inspector_cache_threads")}
        assert stats["bytes"] <= 60_000 and "thread-0" in kept and "thread-7" in kept and "thread-1" not in kept
        cache.put("s", "thread-7", "sizes", {("", "c0"): {"other": 1}})  # a fact already there is kept
        assert cache.get("s", "thread-7", "sizes", [("", "c0")]) == {("", "c0"): blob}
