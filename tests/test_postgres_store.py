"""The PostgreSQL store on a real server: read-only by construction, a SELECT-only role is enough,
blob contents stay on the server for lists and timelines, and every broken setup gives one clear line."""

from __future__ import annotations

import time

import psycopg
import pytest
from conftest import READONLY_ROLE, free_port, pg_url
from psycopg import sql

from inspector.store import StoreError, open_store
from inspector.store.postgres import PostgresStore
from inspector.store.postgres.connect import parse_pg_url

pytestmark = pytest.mark.postgres


@pytest.fixture(scope="module")
def store(pg_demo):
    pg, _ = pg_demo
    with open_store(pg.readonly_dsn) as s:
        yield s


def admin(pg_demo) -> psycopg.Connection:
    return psycopg.connect(pg_demo[0].admin_dsn, autocommit=True)


def test_the_server_refuses_writes_through_the_store_connection(store):
    with store.connection() as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        conn.execute("INSERT INTO checkpoint_migrations (v) VALUES (12345)")
    with store.connection() as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        conn.execute("CREATE TABLE scratch (a int)")
    with store.connection() as conn:
        assert conn.autocommit
        assert conn.execute("SHOW default_transaction_read_only").fetchone()[0] == "on"
        assert conn.execute("SHOW statement_timeout").fetchone()[0] != "0"


def test_repeated_reads_leave_no_prepared_statement_on_the_server(store):
    """Every read is planned for its own thread: a long-lived session prepares nothing server-side, so no read
    falls back to one generic plan shared by a store's short and long threads."""
    threads = [row.thread_id for row in store.threads(limit=3)]
    for _ in range(8):  # past psycopg's default threshold of 5 executions
        for thread in threads:
            store.timeline_keys(thread)
            store.state(thread)
    with store.connection() as conn:
        assert conn.prepare_threshold is None
        assert conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0] == 0


def test_even_the_superuser_cannot_write_through_the_store(pg_demo):
    with open_store(pg_demo[0].admin_dsn) as s, s.connection() as conn, pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        conn.execute("DELETE FROM checkpoints")
    with admin(pg_demo) as conn:
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] > 0


def test_the_readonly_role_has_select_only(pg_demo, store):
    with admin(pg_demo) as conn:
        privileges = {
            row[0]
            for row in conn.execute(
                "SELECT DISTINCT privilege_type FROM information_schema.role_table_grants WHERE grantee = %s",
                [READONLY_ROLE],
            )
        }
    assert privileges == {"SELECT"}
    assert store.count_threads() >= 9


def test_titles_and_sizes_come_from_lengths(store):
    threads = {t.thread_id: t for t in store.threads(limit=100)}
    assert threads["demo-research"].title == "EV battery chemistries: cost and outlook"
    rows = store.timeline("demo-long")
    # unchanged channels share blob rows: each checkpoint counts every blob it references,
    # the thread's total counts each stored row once
    assert sum(r.stored_bytes for r in rows) > threads["demo-long"].stored_bytes
    newest = store.state("demo-bloated")
    assert newest.stored_bytes == store.timeline("demo-bloated")[0].stored_bytes
    assert newest.stored_bytes > 1_000_000


def _toast_blocks(pg_demo) -> int:
    with admin(pg_demo) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT coalesce(toast_blks_read, 0) + coalesce(toast_blks_hit, 0) FROM pg_statio_all_tables "
            "WHERE relname = 'checkpoint_blobs' AND schemaname = 'public'"
        ).fetchone()
    return int(row[0])


def _flush(store: PostgresStore) -> None:
    with store.connection() as conn:
        conn.execute("SELECT pg_stat_force_next_flush()")
        conn.execute("SELECT 1")


def test_lists_and_timelines_never_read_blob_contents(pg_demo):
    """The bloated thread's images are TOASTed: reading them shows up in the TOAST block counters."""
    with PostgresStore(pg_demo[0].readonly_dsn, pool_size=1) as s:
        _flush(s)
        time.sleep(1.1)
        before = _toast_blocks(pg_demo)
        s.threads(limit=100)
        ranked = s.threads(limit=100, sort="stored")  # the store-wide ranking, from lengths
        assert ranked[0].thread_id == "demo-bloated"
        s.totals()
        for thread_id in ("demo-bloated", "demo-vision", "demo-long"):
            s.timeline(thread_id)
            s.timeline_keys(thread_id)
        _flush(s)
        time.sleep(1.1)
        assert _toast_blocks(pg_demo) == before
        s.state("demo-bloated")  # the positive control: a state decodes the images
        _flush(s)
        deadline = time.monotonic() + 5
        while _toast_blocks(pg_demo) == before and time.monotonic() < deadline:
            time.sleep(0.3)
        assert _toast_blocks(pg_demo) > before


def test_a_server_that_is_down(pg_demo):
    url = pg_url("someone", "s3cret-pw", "127.0.0.1", free_port(), "nowhere")
    with pytest.raises(StoreError, match="cannot connect to PostgreSQL") as err:
        open_store(url)
    assert "s3cret-pw" not in str(err.value) and "\n" not in str(err.value)


def test_a_refused_login(pg_demo):
    info = psycopg.conninfo.conninfo_to_dict(pg_demo[0].readonly_dsn)
    url = pg_url("no_such_role", "s3cret-pw", info["host"], info["port"], info["dbname"])
    with pytest.raises(StoreError, match="no_such_role") as err:
        open_store(url)
    assert "s3cret-pw" not in str(err.value) and "\n" not in str(err.value)


def test_a_database_without_langgraph_tables(pg_demo):
    info = psycopg.conninfo.conninfo_to_dict(pg_demo[0].admin_dsn)
    with admin(pg_demo) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'empty_db'").fetchone():
            conn.execute("CREATE DATABASE empty_db")
    url = pg_url(info["user"], None, info["host"], info["port"], "empty_db")
    with pytest.raises(StoreError, match="no LangGraph checkpoint tables"):
        open_store(url)


def _schema_with(pg_demo, schema: str, migration_level: int, copy_thread: str | None) -> None:
    """A schema holding LangGraph's tables at ``migration_level``, optionally with one thread copied in."""
    from langgraph.checkpoint.postgres.base import MIGRATIONS

    with admin(pg_demo) as conn:
        conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        for v, migration in enumerate(MIGRATIONS[: migration_level + 1]):
            conn.execute(migration.replace("CONCURRENTLY ", ""))
            conn.execute("INSERT INTO checkpoint_migrations (v) VALUES (%s)", [v])
        if copy_thread:
            for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes"):
                conn.execute(
                    sql.SQL("INSERT INTO {} SELECT * FROM public.{} WHERE thread_id = %s").format(
                        sql.Identifier(table), sql.Identifier(table)), [copy_thread])
        role = sql.Identifier(READONLY_ROLE)
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), role))
        conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(sql.Identifier(schema), role))


def test_a_schema_from_an_older_migration_level(pg_demo):
    _schema_with(pg_demo, "old_langgraph", 5, None)
    with pytest.raises(StoreError, match="migration level 5"):
        open_store(pg_demo[0].readonly_dsn + "?schema=old_langgraph")


@pytest.mark.parametrize("suffix", ["?schema=tenant_a", "?options=-csearch_path%3Dtenant_a"])
def test_a_named_schema(pg_demo, suffix):
    _schema_with(pg_demo, "tenant_a", 9, "demo-research")
    with open_store(pg_demo[0].readonly_dsn + suffix) as s:
        assert [t.thread_id for t in s.threads()] == ["demo-research"]
        assert s.state("demo-research").values["title"] == "EV battery chemistries: cost and outlook"


def test_postgres_scheme_alias_and_url_parsing(pg_demo):
    with open_store(pg_demo[0].readonly_dsn.replace("postgresql://", "postgres://", 1)) as s:
        assert s.kind == "postgres" and s.read_only
    target = parse_pg_url("postgresql://u:pw@h:5433/db?schema=x&sslmode=disable", 1234)
    assert "search_path=x" in target.options and "statement_timeout=1234" in target.options
    assert "default_transaction_read_only=on" in target.options and "sslmode=disable" in target.conninfo
    assert target.where == "h:5433/db"


def test_timeout_and_pool_size_are_open_store_options(pg_demo):
    with open_store(pg_demo[0].readonly_dsn, pg_timeout_ms=1234, pg_pool_size=2) as s, s.connection() as conn:
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "1234ms"
        assert s._pool.max_size == 2
    with open_store(pg_demo[0].readonly_dsn) as s, s.connection() as conn:  # the settings' defaults
        assert conn.execute("SHOW statement_timeout").fetchone()[0] == "30s" and s._pool.max_size == 4


def test_a_short_password_is_masked_where_it_stands_alone_not_cut_out_of_words():
    from inspector.store.postgres.connect import one_line, parse_pg_url

    short = parse_pg_url("postgresql://reader:p@127.0.0.1:5432/db")
    said = one_line(Exception("permission denied for table checkpoint_migrations\nfor password p"), short)
    assert said == "permission denied for table checkpoint_migrations; for password ***"
    long = parse_pg_url("postgresql://reader:s3cr3t-Pw@127.0.0.1:5432/db")
    assert one_line(Exception("auth failed (password=s3cr3t-Pw)"), long) == "auth failed (password=***)"
