"""``prune-preview`` on a real PostgreSQL store (LangGraph's PostgresSaver), read by the SELECT-only role.

The demo threads and a DeerFlow branch thread go into a database of their own,
since the printed statements are then applied to it (as the admin role): the
rows, writes and blob rows that go are exactly the ones predicted, no blob row
a remaining checkpoint needs is deleted, and after the safe plan every kept
checkpoint reads exactly as before.
"""

from __future__ import annotations

import urllib.parse

import psycopg
import pytest
from conftest import grant_readonly_role
from langgraph.checkpoint.postgres import PostgresSaver
from retention_helpers import BRANCH_THREAD, BRANCHED_FROM, HOSTILE_THREAD, add_deerflow_branch

from inspector.demo import write_demo_postgres
from inspector.retention import Policy, plan_store, statements
from inspector.store import open_store

pytestmark = pytest.mark.postgres

DATABASE = "inspector_retention"

_TOTALS = """
    SELECT (SELECT count(*) FROM checkpoints),
           (SELECT coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) FROM checkpoints),
           (SELECT count(*) FROM checkpoint_writes), (SELECT coalesce(sum(pg_column_size(blob)), 0) FROM checkpoint_writes),
           (SELECT count(*) FROM checkpoint_blobs), (SELECT coalesce(sum(pg_column_size(blob)), 0) FROM checkpoint_blobs)
"""

_UNREFERENCED = """
    SELECT count(*) FROM checkpoint_blobs b WHERE NOT EXISTS (
        SELECT 1 FROM checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
        AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)
    AND b.thread_id = ANY(%s)
"""


def with_database(url: str, name: str) -> str:
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(path=f"/{name}"))


@pytest.fixture(scope="module")
def pg_retention(postgres_dsn, tmp_path_factory):
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
        conn.execute(f"CREATE DATABASE {DATABASE}")
    admin = with_database(postgres_dsn.admin_dsn, DATABASE)
    write_demo_postgres(admin, tmp_path_factory.mktemp("pg-retention"))
    with PostgresSaver.from_conn_string(admin) as saver:
        branched_from = add_deerflow_branch(saver)
    grant_readonly_role(admin)
    yield admin, with_database(postgres_dsn.readonly_dsn, DATABASE), branched_from


def read_all(url: str) -> dict:
    out = {}
    with open_store(url) as store:
        for summary in store.threads(limit=10_000):
            for row in store.timeline(summary.thread_id):
                state = store.state(summary.thread_id, row.checkpoint_id, row.checkpoint_ns)
                out[(summary.thread_id, row.checkpoint_ns, row.checkpoint_id)] = state.values
    return out


def test_the_safe_plan_applied_deletes_exactly_what_it_predicted(pg_retention):
    admin, readonly, branched_from = pg_retention
    with open_store(readonly) as store:
        plain = plan_store(store, Policy(keep_latest=2))
        safe = plan_store(store, Policy(keep_latest=2, safe=True))
    kinds = {(t.thread_id, b.kind) for t in plain.threads for b in t.breaks}
    assert ("demo-delta", "delta") in kinds and (BRANCHED_FROM, "deerflow-branch") in kinds
    assert not safe.breaks and plain.variant.safe and plain.variant.reclaim_bytes == safe.reclaim_bytes
    assert safe.dialect == "postgres" and safe.facts.free_bytes == 0

    before_states = read_all(readonly)
    with psycopg.connect(admin, autocommit=True) as conn:
        before = conn.execute(_TOTALS).fetchone()
        conn.execute(statements(safe))
        after = conn.execute(_TOTALS).fetchone()
        touched = [t.thread_id for t in safe.threads]
        assert conn.execute(_UNREFERENCED, [touched]).fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s AND checkpoint_id = %s",
                            [BRANCHED_FROM, branched_from]).fetchone()[0] == 1
    assert before[0] - after[0] == safe.checkpoints
    assert before[2] - after[2] == sum(t.writes for t in safe.threads)
    assert before[4] - after[4] == sum(t.blobs for t in safe.threads) > 0
    assert (before[1] + before[3] + before[5]) - (after[1] + after[3] + after[5]) == safe.reclaim_bytes

    after_states = read_all(readonly)
    assert set(after_states) < set(before_states)
    for key, values in after_states.items():
        assert values == before_states[key], f"{key} reads differently after a safe prune"
    assert {k[0] for k in after_states} >= {BRANCH_THREAD, "demo-delta", "demo-interrupt"}


def test_sql_for_a_schema_sets_the_search_path(pg_retention):
    _, readonly, _ = pg_retention
    with open_store(readonly) as store:
        plan = plan_store(store, Policy(threads=("demo-vision",)))
    plan.facts = type(plan.facts)("postgres", plan.facts.file_bytes, 0, "agents")
    script = statements(plan)
    assert 'SET LOCAL search_path TO "agents";' in script
    assert "DELETE FROM checkpoint_blobs WHERE thread_id = 'demo-vision';" in script


def test_the_readonly_role_cannot_apply_what_it_previews(pg_retention):
    _, readonly, _ = pg_retention
    with open_store(readonly) as store:
        script = statements(plan_store(store, Policy(threads=("demo-long",))))
        with store.connection() as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
            conn.execute(script)
        assert store.count_threads("demo-long") == 1


def test_ids_that_would_end_a_literal_stay_inside_it_whatever_the_server_reads(pg_retention):
    """With ``standard_conforming_strings`` off a plain literal reads backslash escapes: an id holding one is
    written as an escape string, so the statements mean the same on every server setting."""
    admin, readonly, _ = pg_retention
    with PostgresSaver.from_conn_string(admin) as saver:
        add_deerflow_branch(saver, thread_id=HOSTILE_THREAD)
    with open_store(readonly) as store:
        script = statements(plan_store(store, Policy(threads=(HOSTILE_THREAD,))))
    assert "thread_id = E'o''brien\\\\''; DELETE FROM checkpoints; --" in script
    count = "SELECT thread_id = %s, count(*) FROM {} GROUP BY 1 ORDER BY 1"
    tables = ("checkpoints", "checkpoint_writes", "checkpoint_blobs")
    with psycopg.connect(admin, autocommit=True) as conn:
        before = {t: conn.execute(count.format(t), [HOSTILE_THREAD]).fetchall() for t in tables}
        conn.execute("SET standard_conforming_strings = off")
        conn.execute("SET escape_string_warning = off")
        conn.execute(script)
        after = {t: conn.execute(count.format(t), [HOSTILE_THREAD]).fetchall() for t in tables}
    assert before["checkpoints"][1] == (True, 1) and before["checkpoint_blobs"][1][1] > 0
    assert after == {t: before[t][:1] for t in tables}  # the thread is gone, every other row is there
