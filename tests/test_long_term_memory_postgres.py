"""LangGraph's ``PostgresStore`` beside ``PostgresSaver``'s checkpoints, read by the read-only role: namespaces, bytes,
TTL and expiry, the item's value masked, the thread it names, and a write refused by the server.

Vector rows are tested on SQLite only: ``PostgresStore``'s ``index`` config needs the pgvector extension, which this
machine's PostgreSQL 15 does not have (``/usr/share/postgresql/15/extension`` holds no ``vector``); the test below
says so if that changes."""

from __future__ import annotations

import json
from pathlib import Path

import psycopg
import pytest
from conftest import written_database
from memory_stores import GONE_TTL, SECRET, WRITER_THREAD, write_postgres_memory

from inspector.cli import main
from inspector.memory import open_memory
from inspector.memory.tree import build_tree, find, totals
from inspector.store import StoreError

PG_DATABASE = "inspector_memory"


@pytest.fixture(scope="module")
def pg_memory(postgres_dsn):
    written = {}

    def write(admin: str) -> None:
        written["items"] = write_postgres_memory(admin).items

    admin, readonly = written_database(postgres_dsn, PG_DATABASE, write)
    return admin, readonly, written["items"]


def test_the_tree_and_ttls_as_the_read_only_role_sees_them(pg_memory):
    admin, readonly, items = pg_memory
    with psycopg.connect(admin) as conn:  # the stored sizes, as the server counts them
        sizes = dict(conn.execute("SELECT prefix, sum(pg_column_size(value)) FROM store GROUP BY prefix").fetchall())
    with open_memory(readonly) as reader:
        assert reader.present and reader.has_ttl and not reader.has_vectors and reader.migration is not None
        root = build_tree(reader.namespaces())
        listed = {r.key: r for r in reader.items("users.alice.memories")}
    assert totals(root).items == len(items) and totals(root).namespaces == 4
    assert find(root, ("users", "alice", "memories")).bytes == sizes["users.alice.memories"]
    assert totals(root).bytes == sum(sizes.values())
    memories = find(root, ("users", "alice", "memories"))
    assert (memories.items, memories.with_ttl, memories.expired) == (3, 3, 1)
    assert listed["key"].expires_at < listed["tea"].expires_at < listed["city"].expires_at
    assert listed["key"].created_at is not None and listed["key"].ttl_minutes == pytest.approx(round(GONE_TTL))


def test_an_item_reads_whole_and_names_its_thread(pg_memory):
    _, readonly, items = pg_memory
    with open_memory(readonly) as reader:
        tea = reader.item("users.alice.memories", "tea")
        gone = reader.item("users", "tea")
    assert tea.value == items[(("users", "alice", "memories"), "tea")] and tea.threads == [WRITER_THREAD]
    assert tea.problems == [] and tea.vectors == [] and gone is None


def test_the_server_refuses_a_write_through_the_reader(pg_memory):
    _, readonly, _ = pg_memory
    with open_memory(readonly) as reader, pytest.raises(StoreError, match="read-only transaction"):
        reader._query("UPDATE store SET key = key")


def test_cli_masks_the_item_and_lists_the_namespace(pg_memory, capsys):
    _, readonly, _ = pg_memory
    assert main(["memory", "--db", readonly, "--namespace", "users.alice.memories"]) == 0
    out = capsys.readouterr().out
    assert "items 1-3 of 3 stored in this namespace" in out and "inspector_ro:***@" not in out
    assert main(["memory", "--db", readonly, "--namespace", "users.alice.memories", "--item", "key", "--json"]) == 0
    text = capsys.readouterr().out
    item = json.loads(text)
    assert SECRET not in text and item["expired"] is True
    assert main(["memory", "--db", readonly, "--growth"]) == 0
    assert "items so far" in capsys.readouterr().out


def test_a_database_without_the_memory_store_says_so(pg_demo, capsys):
    server, _ = pg_demo
    with open_memory(server.readonly_dsn) as reader:
        assert not reader.present and reader.namespaces() == []
    assert main(["memory", "--db", server.readonly_dsn]) == 2
    assert "holds no LangGraph memory store" in capsys.readouterr().err


def test_pgvector_is_not_installed_here_so_vector_rows_are_tested_on_sqlite():
    extensions = Path("/usr/share/postgresql/15/extension")
    assert not list(extensions.glob("vector*")), "pgvector is installed now: test PostgresStore's index config too"
