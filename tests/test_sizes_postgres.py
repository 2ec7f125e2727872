"""Size accounting on PostgreSQL: demo threads written by LangGraph's PostgresSaver, read through a
read-only session; blob lengths and hashes come from the server."""

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.conninfo import make_conninfo

from inspector.demo.threads import THREADS, Demo
from inspector.profiles.deerflow.health import uncleared_image_flags
from inspector.settings import Settings
from inspector.sizes.accounting import thread_sizes
from inspector.store import SHARED_BLOBS, NotFound
from inspector.store.postgres.sizes import pg_field_sizes

pytestmark = pytest.mark.postgres
THREAD_IDS = ("demo-bloated", "demo-vision")
DATABASE = "inspector_sizes_test"


@pytest.fixture(scope="module")
def pg(postgres_dsn, tmp_path_factory):
    """Two demo threads written by PostgresSaver into a database of their own, read as the read-only role."""
    from conftest import fresh_database, grant_readonly_role

    admin_dsn = fresh_database(postgres_dsn.admin_dsn, DATABASE)
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        saver.setup()
        demo = Demo(tmp_path_factory.mktemp("pg-demo"), saver)
        for thread_id in THREAD_IDS:
            THREADS[thread_id][1](demo)
    grant_readonly_role(admin_dsn)
    readonly = make_conninfo(postgres_dsn.readonly_dsn, dbname=DATABASE)
    with psycopg.connect(readonly, autocommit=True, options="-c default_transaction_read_only=on") as conn:
        yield conn, admin_dsn


def query_of(conn):
    return lambda sql, params: conn.execute(sql, params).fetchall()


def test_blob_sizes_equal_what_the_saver_serialized(pg):
    conn, admin_dsn = pg
    rows = pg_field_sizes(query_of(conn), "demo-bloated")
    assert rows and [r.checkpoint_id for r in rows] == sorted(r.checkpoint_id for r in rows)
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        for row in rows[-4:]:
            config = {"configurable": {"thread_id": "demo-bloated", "checkpoint_ns": "", "checkpoint_id": row.checkpoint_id}}
            values = saver.get_tuple(config).checkpoint["channel_values"]
            for name in ("messages", "viewed_images"):
                assert row.channels[name].bytes == len(saver.serde.dumps_typed(values[name])[1])
                assert row.channels[name].blob_key


def test_shared_rows_count_once(pg):
    conn, _ = pg
    rows = pg_field_sizes(query_of(conn), "demo-bloated", None)
    report = thread_sizes("demo-bloated", rows, SHARED_BLOBS)
    own, blobs, writes = conn.execute(
        """SELECT (SELECT sum(pg_column_size(checkpoint) + pg_column_size(metadata)) FROM checkpoints WHERE thread_id = %s),
                  (SELECT sum(octet_length(blob)) FROM checkpoint_blobs WHERE thread_id = %s AND type <> 'empty'),
                  (SELECT sum(octet_length(blob)) FROM checkpoint_writes WHERE thread_id = %s)""",
        ["demo-bloated"] * 3).fetchone()
    assert report.stored_bytes == own + blobs + writes
    images = report.field("viewed_images")
    # one row per version: far less than the checkpoints' copies added up
    copies = sum(r.channels["viewed_images"].bytes for r in rows if "viewed_images" in r.channels)
    assert images.stored_bytes < copies / 2
    assert report.last_total_bytes > 1_000_000


def test_uncleared_images_on_postgres(pg):
    conn, _ = pg
    settings = Settings()
    bloated = pg_field_sizes(query_of(conn), "demo-bloated")
    vision = pg_field_sizes(query_of(conn), "demo-vision")
    assert uncleared_image_flags("demo-bloated", bloated, settings)
    assert uncleared_image_flags("demo-vision", vision, settings) == []


def test_unknown_thread(pg):
    conn, _ = pg
    with pytest.raises(NotFound):
        pg_field_sizes(query_of(conn), "no-such-thread", None)
    assert pg_field_sizes(query_of(conn), "demo-vision", "no-such-ns") == []
