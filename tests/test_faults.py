"""Faults survived: a PostgreSQL server restarted or stopped under an open store (and under the
dashboard), a SQLite file replaced, deleted or locked under it, a statement timeout. Each gives one
clear message while it lasts, and the next read after it recovers."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from contextlib import closing

import pytest
from conftest import READONLY_ROLE, grant_readonly_role, pg_url, throwaway_cluster
from langgraph.checkpoint.postgres import PostgresSaver
from secret_store import THREAD, run_secret_thread, write_secret_store
from ui_app import open_page

from inspector.store import StoreError, open_store
from inspector.store.sqlite import connect as sqlite_connect

# -- SQLite -----------------------------------------------------------------------


@pytest.fixture
def sqlite_files(tmp_path):
    """Two different checkpoint databases: ``a`` holds THREAD, ``b`` THREAD and a second thread."""
    a = write_secret_store(tmp_path / "a.db")
    b = write_secret_store(tmp_path / "b.db")
    with closing(sqlite3.connect(b)) as conn, conn:
        conn.execute("UPDATE checkpoints SET thread_id = 'renamed' WHERE thread_id = ?", [THREAD])
    write_secret_store(b)  # THREAD again, next to 'renamed'
    return tmp_path, a, b


def thread_ids(store) -> set[str]:
    return {t.thread_id for t in store.threads()}


def test_sqlite_file_replaced_under_the_store_is_reopened(sqlite_files):
    folder, a, b = sqlite_files
    live = folder / "live.db"
    shutil.copy(a, live)
    with open_store(str(live)) as store:
        assert thread_ids(store) == {THREAD}
        shutil.copy(b, folder / "incoming.db")
        os.replace(folder / "incoming.db", live)  # a restore: a new file at the same path
        assert thread_ids(store) == {THREAD, "renamed"}
        assert len(store.timeline("renamed")) == 5


def test_sqlite_file_deleted_under_the_store_says_so_then_recovers(sqlite_files):
    folder, a, _ = sqlite_files
    live = folder / "live.db"
    shutil.copy(a, live)
    with open_store(str(live)) as store:
        assert thread_ids(store) == {THREAD}
        live.unlink()
        for _ in range(2):  # the same one line each time, no stale rows from the deleted file
            with pytest.raises(StoreError, match=r"the SQLite file .*live\.db is gone \(deleted or moved\)"):
                store.threads()
        shutil.copy(a, live)
        assert thread_ids(store) == {THREAD}


def test_sqlite_file_replaced_by_something_else_is_named_then_recovers(sqlite_files):
    folder, a, _ = sqlite_files
    live = folder / "live.db"
    shutil.copy(a, live)
    with open_store(str(live)) as store:
        live.unlink()
        live.write_bytes(b"not a database at all" * 100)
        with pytest.raises(StoreError, match="not a readable SQLite database"):
            store.timeline(THREAD)
        live.unlink()
        shutil.copy(a, live)
        assert len(store.timeline(THREAD)) == 5


def test_sqlite_file_locked_by_a_writer_says_so_then_recovers(sqlite_files, monkeypatch):
    folder, a, _ = sqlite_files
    live = folder / "live.db"
    shutil.copy(a, live)
    with closing(sqlite3.connect(live)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")  # a rollback journal: a writer's lock blocks readers
    monkeypatch.setattr(sqlite_connect, "BUSY_TIMEOUT_SECONDS", 0.3)
    with open_store(str(live)) as store:
        assert thread_ids(store) == {THREAD}
        writer = sqlite3.connect(live, isolation_level=None)
        writer.execute("BEGIN EXCLUSIVE")
        try:
            started = time.monotonic()
            with pytest.raises(StoreError, match=r"is locked by a writer .* try again in a moment"):
                store.timeline(THREAD)
            assert time.monotonic() - started < 5
        finally:
            writer.execute("ROLLBACK")
            writer.close()
        assert len(store.timeline(THREAD)) == 5


def test_dashboard_says_the_sqlite_file_is_gone_then_recovers(sqlite_files, monkeypatch):
    from inspector.ui import connection

    folder, a, _ = sqlite_files
    live = folder / "live.db"
    shutil.copy(a, live)
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{live}")
    connection.settings.clear()
    at = open_page("threads")
    assert not at.exception and not at.error
    live.unlink()
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == [f"Reading the thread list failed: the SQLite file {live} is gone "
                                           "(deleted or moved); it is read again as soon as it is back"]
    shutil.copy(a, live)
    at.run()
    assert not at.exception and not at.error
    assert THREAD in at.dataframe[0].value["thread"].tolist()
    connection.settings.clear()


# -- PostgreSQL ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def pg_cluster():
    """A cluster of this module's own, since its tests restart and stop it."""
    with throwaway_cluster("faults") as cluster:
        admin = cluster.url("faults")
        with PostgresSaver.from_conn_string(admin) as saver:
            saver.setup()
            run_secret_thread(saver)
        grant_readonly_role(admin)
        yield cluster, pg_url(READONLY_ROLE, READONLY_ROLE, "127.0.0.1", cluster.port, "faults")


@pytest.mark.postgres
def test_postgres_restart_under_an_open_store_reconnects_on_the_next_read(pg_cluster):
    cluster, url = pg_cluster
    with open_store(url) as store:
        assert THREAD in thread_ids(store)
        cluster.restart()
        assert THREAD in thread_ids(store)  # the pool checks a connection before lending it: no error at all
        assert len(store.timeline(THREAD)) == 5


@pytest.mark.postgres
def test_postgres_stopped_gives_one_clear_message_then_recovers(pg_cluster):
    cluster, url = pg_cluster
    with open_store(url) as store:
        assert THREAD in thread_ids(store)
        cluster.stop()
        try:
            started = time.monotonic()
            with pytest.raises(StoreError) as failed:
                store.timeline(THREAD)
            message = str(failed.value)
            assert message.startswith(f"PostgreSQL at 127.0.0.1:{cluster.port}/faults is not answering")
            assert message.endswith("the next read reconnects") and "\n" not in message
            assert READONLY_ROLE + ":" not in message  # no password
            assert time.monotonic() - started < 20
        finally:
            cluster.start()
        assert len(store.timeline(THREAD)) == 5


@pytest.mark.postgres
def test_dashboard_survives_a_postgres_restart(pg_cluster, monkeypatch):
    from inspector.ui import connection

    cluster, url = pg_cluster
    monkeypatch.setenv("INSPECTOR_DB", url)
    connection.settings.clear()
    at = open_page("thread", thread=THREAD)
    assert not at.exception and not at.error
    cluster.stop()
    try:
        from inspector.ui import data

        data.refresh_thread(connection._open(url), THREAD)  # the Refresh button: read the store again
        at.run()
        assert not at.exception
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and "is not answering" in errors[0] and "the next read reconnects" in errors[0]
    finally:
        cluster.start()
    at.run()
    assert not at.exception and not at.error
    assert "5 checkpoint(s)" in " ".join(c.value for c in at.caption)
    connection.settings.clear()


@pytest.mark.postgres
def test_statement_timeout_names_the_setting(pg_cluster):
    _, url = pg_cluster
    from inspector.store.postgres import PostgresStore

    with PostgresStore(url, statement_timeout_ms=50) as store:
        with pytest.raises(StoreError) as failed:
            store._query("SELECT pg_sleep(1)")
        assert "ran past the statement timeout of 50 ms" in str(failed.value)
        assert "pg_statement_timeout_ms" in str(failed.value)
        assert THREAD in thread_ids(store)  # the session is usable again
