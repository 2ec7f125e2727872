"""File facts and leftovers on stores LangGraph's savers wrote, with free pages, orphaned writes (and blobs)
and a DeerFlow-style thread table planted.

Free pages come from the saver's own ``delete_thread``. Orphaned rows cannot be made through a saver's
API (every delete it offers removes a thread's writes and blobs with its checkpoints), so they are
planted with one raw ``DELETE FROM checkpoints``: what a hand-written cleanup that forgets the writes
leaves behind. The statements the report prints are then run on a copy (as an operator would) and
exactly the leftovers go.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time

import psycopg
import pytest
from conftest import grant_readonly_role
from fixtures.stores import copy_store
from growth_store import EARLY, write_bulk_thread, write_postgres
from test_retention_postgres import with_database

from inspector.cli import main
from inspector.formatting import human_bytes
from inspector.operations.orphans import orphan_report
from inspector.store import StoreError, open_store
from inspector.store.not_utf8 import shown
from inspector.store_ops import operating

NOW = EARLY  # pinned: what the tests assert holds whatever the hour they run at
PG_DATABASE = "inspector_leftovers"
APP_TABLE = "CREATE TABLE threads_meta (thread_id TEXT PRIMARY KEY, title TEXT, user_id TEXT)"
APP_ROWS = [("grow-a", "known to both", "u1"), ("only-in-app", "created, never run", "u2")]


def plant(conn, dialect: str) -> str:
    """Orphaned writes (grow-c loses every checkpoint; grow-a one that has writes) and the app's table."""
    p = "?" if dialect == "sqlite" else "%s"
    writes = "writes" if dialect == "sqlite" else "checkpoint_writes"
    lost = conn.execute(f"SELECT max(checkpoint_id) FROM {writes} WHERE thread_id = 'grow-a'").fetchone()[0]
    conn.execute("DELETE FROM checkpoints WHERE thread_id = 'grow-c'")
    conn.execute(f"DELETE FROM checkpoints WHERE thread_id = 'grow-a' AND checkpoint_id = {p}", [lost])
    conn.execute(APP_TABLE)
    for row in APP_ROWS:
        conn.execute(f"INSERT INTO threads_meta VALUES ({p}, {p}, {p})", row)
    conn.commit()
    return lost


@pytest.fixture(scope="module")
def sqlite_leftovers(growth_sqlite, tmp_path_factory):
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = copy_store(growth_sqlite(NOW), tmp_path_factory.mktemp("leftovers"), "deerflow.db")
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    write_bulk_thread(saver)
    saver.delete_thread("bulk")  # its pages fall free
    lost = plant(conn, "sqlite")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path, lost


def sqlite_orphaned_writes(path) -> dict[str, tuple[int, int]]:
    with sqlite3.connect(path) as conn:
        return {tid: (n, size) for tid, n, size in conn.execute(
            "SELECT thread_id, count(*), sum(length(value)) FROM writes w WHERE NOT EXISTS (SELECT 1 FROM checkpoints c "
            "WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id) "
            "GROUP BY thread_id")}


def test_sqlite_file_facts_count_the_free_pages_vacuum_reclaims(sqlite_leftovers, tmp_path):
    path, _ = sqlite_leftovers
    with open_store(str(path)) as store:
        facts = operating(store).file_facts()
    with sqlite3.connect(path) as conn:
        page_size, pages, free = (conn.execute(f"PRAGMA {p}").fetchone()[0]
                                  for p in ("page_size", "page_count", "freelist_count"))
    assert (facts.page_size, facts.page_count, facts.free_pages) == (page_size, pages, free) and free > 20
    assert facts.free_bytes == free * page_size
    assert facts.files[0].bytes == path.stat().st_size and facts.total_bytes >= path.stat().st_size
    names = {r.name: r for r in facts.relations}
    assert {"checkpoints", "writes", "threads_meta"} <= set(names)
    assert names["checkpoints"].langgraph and not names["threads_meta"].langgraph
    assert names["sqlite_autoindex_checkpoints_1"].kind == "index"
    assert names["sqlite_autoindex_checkpoints_1"].table == "checkpoints"
    # dbstat's pages and the free pages are the whole file
    assert sum(r.bytes for r in facts.relations) + facts.free_bytes == pages * page_size
    copy = tmp_path / "vacuumed.db"
    shutil.copy(path, copy)
    conn = sqlite3.connect(copy)
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the store is in WAL mode: the vacuumed pages reach the file
    conn.close()
    assert path.stat().st_size - copy.stat().st_size >= facts.free_bytes


def test_sqlite_file_facts_are_estimated_without_dbstat(sqlite_leftovers, monkeypatch):
    from inspector.store_ops.sqlite import files

    path, _ = sqlite_leftovers
    monkeypatch.setattr(files, "DBSTAT", "SELECT * FROM no_such_dbstat_module")  # a build without dbstat
    with open_store(str(path)) as store:
        facts = operating(store).file_facts()
    assert facts.basis.startswith("estimated from stored lengths")
    with sqlite3.connect(path) as conn:
        payload = conn.execute("SELECT sum(length(checkpoint) + length(metadata)) FROM checkpoints").fetchone()[0]
    checkpoints = next(r for r in facts.relations if r.name == "checkpoints")
    assert payload < checkpoints.bytes < payload * 1.2


def test_sqlite_orphans_name_the_planted_rows_and_their_statements_remove_exactly_them(sqlite_leftovers, tmp_path):
    path, lost = sqlite_leftovers
    expected = sqlite_orphaned_writes(path)
    assert set(expected) == {"grow-a", "grow-c"}
    with open_store(str(path)) as store:
        report = orphan_report(store)
    kinds = {item.kind: item for item in report.leftovers}
    writes = kinds["writes"]
    assert {t.thread_id: (t.rows, t.bytes) for t in writes.threads} == expected
    assert {t.thread_id for t in writes.threads if t.gone} == {"grow-c"}
    assert writes.bytes == report.total_bytes == sum(size for _, size in expected.values())
    assert report.app_tables == [("DeerFlow", "threads_meta")]
    assert [t.thread_id for t in kinds["app-without-checkpoints"].threads] == ["only-in-app"]
    unknown = kinds["checkpoints-unknown-to-app"]
    assert [t.thread_id for t in unknown.threads] == ["grow-b"]
    with sqlite3.connect(path) as conn:
        grow_b = conn.execute("SELECT (SELECT sum(length(checkpoint) + length(metadata)) FROM checkpoints WHERE "
                              "thread_id = 'grow-b') + (SELECT sum(length(value)) FROM writes WHERE thread_id = 'grow-b')"
                              ).fetchone()[0]
    assert unknown.bytes == grow_b
    copy = tmp_path / "cleaned.db"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as conn:
        before = conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]
        conn.executescript(writes.statements)
        conn.executescript(kinds["app-without-checkpoints"].statements)
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == before
        assert [r[0] for r in conn.execute("SELECT thread_id FROM threads_meta")] == ["grow-a"]
    assert sqlite_orphaned_writes(copy) == {}


def test_sqlite_blob_ids_in_the_app_table_are_named_and_deleted_as_their_bytes(sqlite_leftovers, tmp_path, capsys):
    """A thread id stored as a BLOB: named as text marked ``(stored as bytes)`` (bytes that are not UTF-8 as ``\\xff``),
    never as ``b'...'``; its statement is an ``X'..'`` literal that removes that row and nothing else. It is another
    key than the text of the same spelling (``'grow-b' = X'67726F772D62'`` is false in SQLite, and DeerFlow, binding
    text, never finds it): the checkpoint thread grow-b stays unknown to the table, and a checkpoint thread stored
    as a BLOB is listed and deleted as its bytes too."""
    path, _ = sqlite_leftovers
    copy = tmp_path / "blob-ids.db"
    shutil.copy(path, copy)
    with sqlite3.connect(copy) as conn:
        conn.executemany("INSERT INTO threads_meta VALUES (?, 't', 'u')", [(b"blob-\xff",), (b"blob-ok",), (b"grow-b",)])
        conn.execute("INSERT INTO checkpoints SELECT CAST('grow-x' AS BLOB), checkpoint_ns, checkpoint_id, "
                     "parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE thread_id = 'grow-b'")
    with open_store(str(copy)) as store:
        kinds = {i.kind: i for i in orphan_report(store).leftovers}
    found, unknown = kinds["app-without-checkpoints"], kinds["checkpoints-unknown-to-app"]
    assert {(t.thread_id, t.blob) for t in found.threads} == {
        ("only-in-app", False), ("blob-\udcff", True), ("blob-ok", True), ("grow-b", True)}
    assert {(t.thread_id, t.blob) for t in unknown.threads} == {("grow-b", False), ("grow-x", True)}
    assert "X'626C6F622DFF'" in found.statements and "X'626C6F622D6F6B'" in found.statements
    with sqlite3.connect(copy) as conn:
        conn.executescript(unknown.statements)  # grow-b's checkpoints go: the BLOB row does not name them
        assert {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")} == {"grow-a"}
        conn.executescript(found.statements)
        assert [r[0] for r in conn.execute("SELECT thread_id FROM threads_meta")] == ["grow-a"]
    listed = tmp_path / "blob-ids-listed.db"
    shutil.copy(path, listed)
    with sqlite3.connect(listed) as conn:
        conn.executemany("INSERT INTO threads_meta VALUES (?, 't', 'u')", [(b"blob-\xff",), (b"grow-b",)])
    capsys.readouterr()
    assert main(["health", "--store", "--db", str(listed)]) == 0
    out = capsys.readouterr().out
    assert "    blob-\\xff (not UTF-8, stored as bytes): 1 row(s)" in out and "b'blob" not in out
    grow_b = next(t.rows for t in unknown.threads if t.thread_id == "grow-b")
    assert "    grow-b (stored as bytes): 1 row(s)" in out and f"    grow-b: {grow_b} row(s)" in out


def test_health_store_cli_prints_facts_and_statements(sqlite_leftovers, capsys):
    path, _ = sqlite_leftovers
    assert main(["health", "--store", "--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert "what VACUUM would give back" in out and "DELETE FROM writes WHERE NOT EXISTS" in out
    assert "grow-c" in out and "(every checkpoint gone)" in out and "DeerFlow threads_meta" in out
    assert main(["health", "--store", "--db", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["file_facts"]["free_pages"] > 0 and data["orphans"]["total_bytes"] > 0


def test_a_long_thread_id_is_cut_on_its_listing_line_and_whole_in_the_statements(sqlite_leftovers, tmp_path, capsys):
    """The listing line names a 10,000-character id by its head and its length, as error lines quote it; the
    statements an operator would run name it whole."""
    long_id = "L" * 10_000
    path = tmp_path / "long-id.db"
    shutil.copy(sqlite_leftovers[0], path)
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT INTO threads_meta VALUES (?, 't', 'u')", (long_id,))
    assert main(["health", "--store", "--db", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"    {'L' * 160}… (10,000 characters): 1 row(s)" in out
    assert [line for line in out.splitlines() if long_id in line and line.lstrip().startswith("DELETE")]
    assert shown(long_id + "\udcff", cut=True) == f"{'L' * 160}… (10,001 characters) (not UTF-8)"  # its mark kept


def test_a_thread_id_holding_line_feeds_cannot_forge_a_line_of_the_report_or_the_statements(sqlite_leftovers, tmp_path,
                                                                                             capsys):
    """A checkpoint thread unknown to the app's table is listed by id, and named in the statements: an id holding a
    line feed is shown as ``\\n`` (one line) and written in SQL as ``char(10)``, so it never prints a line of its own
    that reads as a statement to run."""
    from growth_store import build_graph
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    forged = "x\n    BEGIN IMMEDIATE; DELETE FROM checkpoints; COMMIT;\n"
    path = tmp_path / "forged.db"
    shutil.copyfile(sqlite_leftovers[0], path)
    with sqlite3.connect(path, check_same_thread=False) as conn:
        build_graph(SqliteSaver(conn)).invoke({"messages": [HumanMessage("hi")]}, {"configurable": {"thread_id": forged}})
    for args in (["health", "--store"], ["prune-preview", "--threads", forged, "--sql"]):
        assert main([*args, "--db", str(path)]) == 0
        out = capsys.readouterr().out
        assert "x\\n    BEGIN IMMEDIATE; DELETE FROM checkpoints; COMMIT;" in out or "char(10)" in out
        assert not [line for line in out.splitlines() if line.strip().startswith("BEGIN IMMEDIATE; DELETE")], out


def test_a_bundles_file_facts_say_they_are_its_private_copy(demo_db, tmp_path, capsys):
    case = tmp_path / "case.zip"
    assert main(["bundle", "demo-research", "--db", str(demo_db), "--out", str(case), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["health", "--store", "--db", str(case)]) == 0
    out = capsys.readouterr().out
    assert "a support bundle: these are the files of the private copy" in out and f"({demo_db})" in out


def test_saver_stores_say_file_facts_and_orphans_are_not_available():
    from langgraph.checkpoint.memory import InMemorySaver

    from inspector.store.saver import SaverStore

    with SaverStore(InMemorySaver(), "memory") as store:
        ops = operating(store)
        for call in (ops.file_facts, ops.orphan_rows):
            with pytest.raises(StoreError, match="needs direct access"):
                call()


@pytest.fixture(scope="module")
def pg_leftovers(postgres_dsn):
    from langgraph.checkpoint.postgres import PostgresSaver

    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE}")
        conn.execute(f"CREATE DATABASE {PG_DATABASE}")
    admin = with_database(postgres_dsn.admin_dsn, PG_DATABASE)
    write_postgres(admin, NOW)
    with PostgresSaver.from_conn_string(admin) as saver:
        write_bulk_thread(saver)
        saver.delete_thread("bulk")
    with psycopg.connect(admin) as conn:
        lost = plant(conn, "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("VACUUM checkpoint_migrations")
    grant_readonly_role(admin)
    return admin, with_database(postgres_dsn.readonly_dsn, PG_DATABASE), lost


@pytest.mark.postgres
def test_postgres_file_facts_as_the_readonly_role(pg_leftovers):
    admin, readonly, _ = pg_leftovers
    deadline = time.monotonic() + 15
    while True:  # the statistics collector reports the deletes within a second or so
        with open_store(readonly) as store:
            facts = operating(store).file_facts()
        tables = {r.name: r for r in facts.relations if r.kind == "table"}
        if (tables["checkpoints"].dead_rows or 0) > 0 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    with psycopg.connect(admin) as conn:
        heap, toast, indexes, total, size = conn.execute(
            "SELECT pg_relation_size('checkpoint_blobs'), pg_total_relation_size(reltoastrelid), "
            "pg_indexes_size('checkpoint_blobs'), pg_total_relation_size('checkpoint_blobs'), "
            "pg_database_size(current_database()) FROM pg_class "
            "WHERE relname = 'checkpoint_blobs'").fetchone()
    blobs = tables["checkpoint_blobs"]
    assert (blobs.heap_bytes, blobs.toast_bytes, blobs.index_bytes) == (heap, toast, indexes) and toast > 0
    assert blobs.bytes == total >= heap + toast + indexes  # the free-space and visibility maps besides
    assert facts.total_bytes == size
    assert tables["checkpoints"].dead_rows > 0  # the bulk thread and the planted deletes
    assert tables["checkpoint_migrations"].last_vacuum is not None
    assert tables["threads_meta"].langgraph is False and blobs.langgraph
    assert any(r.kind == "index" and r.table == "checkpoint_blobs" for r in facts.relations)


@pytest.mark.postgres
def test_postgres_orphans_and_their_statements(pg_leftovers, postgres_dsn):
    admin, readonly, _ = pg_leftovers
    with open_store(readonly) as store:
        report = orphan_report(store)
    kinds = {item.kind: item for item in report.leftovers}
    with psycopg.connect(admin) as conn:
        grow_c_blobs = conn.execute("SELECT count(*), sum(octet_length(blob)) FROM checkpoint_blobs "
                                    "WHERE thread_id = 'grow-c'").fetchone()
        orphan_writes = conn.execute(
            "SELECT count(*), sum(octet_length(blob)) FROM checkpoint_writes w WHERE NOT EXISTS (SELECT 1 FROM "
            "checkpoints c WHERE c.thread_id = w.thread_id AND c.checkpoint_ns = w.checkpoint_ns "
            "AND c.checkpoint_id = w.checkpoint_id)").fetchone()
    assert (kinds["writes"].rows, kinds["writes"].bytes) == orphan_writes
    blobs = {t.thread_id: t for t in kinds["blobs"].threads}
    assert (blobs["grow-c"].rows, blobs["grow-c"].bytes) == grow_c_blobs and blobs["grow-c"].gone
    assert report.total_bytes == kinds["writes"].bytes + kinds["blobs"].bytes
    assert [t.thread_id for t in kinds["app-without-checkpoints"].threads] == ["only-in-app"]
    assert [t.thread_id for t in kinds["checkpoints-unknown-to-app"].threads] == ["grow-b"]
    # the statements, run by the admin on the store itself (this database is the test's own)
    with psycopg.connect(admin) as conn:
        checkpoints = conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]
        for kind in ("writes", "blobs"):
            conn.execute(kinds[kind].statements.replace("BEGIN;", "").replace("COMMIT;", ""))
        conn.commit()
        assert conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0] == checkpoints
    with open_store(readonly) as store:
        after = orphan_report(store)
        assert store.state("grow-a").values["messages"]  # what remains still reads
    assert after.total_bytes == 0


@pytest.mark.postgres
def test_postgres_bytea_ids_in_an_app_table_are_named_and_deleted_as_their_bytes(pg_leftovers):
    """A ``bytea`` thread table is compared as its app compares: a row holding a checkpoint thread's id as UTF-8
    (grow-b) knows that thread, both ways and in the statements' re-checks; bytes that are not UTF-8 know none."""
    admin, readonly, _ = pg_leftovers
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("CREATE TABLE thread (thread_id bytea PRIMARY KEY)")
        conn.execute("INSERT INTO thread VALUES (%s), (%s), (%s)", [b"blob-\xff", b"blob-ok", b"grow-b"])
    try:
        grant_readonly_role(admin)
        with open_store(readonly) as store:
            kinds = {i.kind: i for i in orphan_report(store).leftovers if "Server's thread table" in i.title}
        found, unknown = kinds["app-without-checkpoints"], kinds["checkpoints-unknown-to-app"]
        assert {(t.thread_id, t.blob) for t in found.threads} == {("blob-\udcff", True), ("blob-ok", True)}
        assert [t.thread_id for t in unknown.threads] == ["grow-a"]
        assert "E'\\\\x626c6f622dff'::bytea" in found.statements
        with psycopg.connect(admin) as conn:  # run, then rolled back: the other tests read these threads
            for item in (found, unknown):
                conn.execute(item.statements.replace("BEGIN;", "").replace("COMMIT;", ""))
            assert [bytes(r[0]) for r in conn.execute("SELECT thread_id FROM thread")] == [b"grow-b"]
            assert [r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")] == ["grow-b"]
            conn.rollback()
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("DROP TABLE thread")


def test_health_page_shows_file_facts_and_leftovers(sqlite_leftovers, app_on_store):
    from ui_app import open_page

    path, _ = sqlite_leftovers
    app_on_store(f"sqlite:///{path}")
    at = open_page("health")
    assert not at.exception
    with open_store(str(path)) as store:
        facts = operating(store).file_facts(per_table=False)
        report = orphan_report(store)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["VACUUM would give back"] == human_bytes(facts.free_bytes)
    writes = next(e for e in at.expander if e.label.startswith("Writes stored against"))
    assert f"{human_bytes(report.leftovers[0].bytes)}" in writes.label
    assert any("DELETE FROM writes WHERE NOT EXISTS" in c.value for c in at.code)
    at.toggle(key="files_per_table").set_value(True).run()
    tables = next(d.value for d in at.dataframe if "payload" in d.value.columns)
    assert "threads_meta" in set(tables["name"])


@pytest.mark.postgres
def test_agent_server_thread_table_with_uuid_ids(postgres_dsn):
    """LangGraph Agent Server keeps its threads in ``thread`` (thread_id uuid) beside the checkpoint tables."""
    import uuid

    from growth_store import build_graph
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.postgres import PostgresSaver

    known, unknown, never_run = (str(uuid.UUID(int=n)) for n in (1, 2, 3))
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS inspector_agent_server")
        conn.execute("CREATE DATABASE inspector_agent_server")
    admin = with_database(postgres_dsn.admin_dsn, "inspector_agent_server")
    with PostgresSaver.from_conn_string(admin) as saver:
        saver.setup()
        graph = build_graph(saver)
        for thread_id in (known, unknown):
            graph.invoke({"messages": [HumanMessage("hello")]}, {"configurable": {"thread_id": thread_id}})
    with psycopg.connect(admin) as conn:
        conn.execute("CREATE TABLE thread (thread_id uuid PRIMARY KEY, metadata jsonb, status text)")
        conn.execute("INSERT INTO thread VALUES (%s, '{}', 'idle'), (%s, '{}', 'idle')", [known, never_run])
        conn.commit()
    grant_readonly_role(admin)
    with open_store(with_database(postgres_dsn.readonly_dsn, "inspector_agent_server")) as store:
        report = orphan_report(store)
    kinds = {item.kind: item for item in report.leftovers}
    assert report.app_tables == [("LangGraph Agent Server", "thread")]
    assert [t.thread_id for t in kinds["app-without-checkpoints"].threads] == [never_run]
    assert [t.thread_id for t in kinds["checkpoints-unknown-to-app"].threads] == [unknown]
    with psycopg.connect(admin) as conn:  # the statements are valid for a uuid column, and remove just those
        for kind in ("app-without-checkpoints", "checkpoints-unknown-to-app"):
            conn.execute(kinds[kind].statements.replace("BEGIN;", "").replace("COMMIT;", ""))
        conn.commit()
        assert [str(r[0]) for r in conn.execute("SELECT thread_id FROM thread")] == [known]
        assert {r[0] for r in conn.execute("SELECT DISTINCT thread_id FROM checkpoints")} == {known}
