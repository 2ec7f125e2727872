"""LangGraph's long-term memory store read beside the checkpoints: ``SqliteStore`` items with namespaces, TTL and vector
rows written by LangGraph itself (``memory_stores``), read through ``inspector.memory`` and the ``memory`` command."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import orjson
import pytest
from memory_stores import DIMS, GONE_TTL, SECRET, WRITER_THREAD, VecConnection, embed, write_sqlite_memory

from inspector.cli import main
from inspector.memory import open_memory
from inspector.memory.report import growth_rows
from inspector.memory.tree import build_tree, find, totals, tree_rows
from inspector.store import StoreError, open_store


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return write_sqlite_memory(tmp_path_factory.mktemp("memory") / "agent.db")


@pytest.fixture(scope="module")
def memory_only(tmp_path_factory):
    return write_sqlite_memory(tmp_path_factory.mktemp("memory-only") / "memory.db", checkpoints=False)


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_tree_counts_every_item_and_its_bytes_as_langgraph_stored_them(written):
    with open_memory(str(written.path)) as reader:
        assert reader.present and reader.has_ttl and reader.has_vectors
        root = build_tree(reader.namespaces())
    expected: dict[tuple[str, ...], tuple[int, int]] = {}
    for (namespace, _key), value in written.items.items():
        stored = len(orjson.dumps(value))  # what SqliteStore binds
        for depth in range(1, len(namespace) + 1):
            items, size = expected.get(namespace[:depth], (0, 0))
            expected[namespace[:depth]] = (items + 1, size + stored)
    found = {tuple(r["namespace"]): (r["items"], r["bytes"]) for r in tree_rows(root).rows}
    assert found == expected
    whole = totals(root)
    assert (whole.items, whole.namespaces) == (len(written.items), 4)
    assert whole.bytes == sum(len(orjson.dumps(v)) for v in written.items.values())
    rows = tree_rows(root).rows
    assert [r["label"] for r in rows][:2] == ["users", "alice"]  # biggest first, depth first
    assert find(root, ("users", "alice")).own_items == 0 and find(root, ("org",)).own_items == 1


def test_ttl_expiry_and_vector_rows_are_read_per_item_and_per_namespace(written):
    with open_memory(str(written.path)) as reader:
        root = build_tree(reader.namespaces())
        listed = {r.key: r for r in reader.items("users.alice.memories")}
        tea = reader.item("users.alice.memories", "tea")
        name = reader.item("users.alice.profile", "name")
    memories = find(root, ("users", "alice", "memories"))
    assert (memories.with_ttl, memories.expired, memories.vector_rows) == (3, 1, 3)
    assert totals(root).with_ttl == 4  # the default TTL applied to "name"; "pets" and "policy" put with ttl=None
    assert listed["key"].ttl_minutes == pytest.approx(GONE_TTL) and listed["city"].ttl_minutes == 600
    assert listed["key"].expires_at < listed["tea"].expires_at < listed["city"].expires_at
    assert [(v.field_name, v.dims, v.bytes) for v in tea.vectors] == [("text", DIMS, 4 * DIMS)]
    assert name.vectors == [] and name.row.vector_rows == 0  # put with index=False
    assert written.searched == ["tea"]  # LangGraph's own vector search over these rows found its exact text


def test_the_stored_embedding_is_the_embedding_function_s_output(written):
    conn = sqlite3.connect(written.path)
    (blob,) = conn.execute("SELECT embedding FROM store_vectors WHERE key = 'tea'").fetchone()
    conn.close()
    import struct

    assert list(struct.unpack(f"{DIMS}f", blob)) == pytest.approx(embed(["Alice likes green tea"])[0], abs=1e-6)


def test_an_item_names_the_threads_that_wrote_it(written):
    with open_memory(str(written.path)) as reader:
        assert reader.item("users.alice.memories", "tea").threads == [WRITER_THREAD]
        assert reader.item("users.alice.memories", "city").threads == ["t-not-stored"]  # under metadata
        assert reader.item("org", "policy").threads == []
        assert reader.item("org", "nothing") is None


def test_after_langgraph_sweeps_the_expired_item_is_gone(tmp_path):
    from langgraph.store.sqlite import SqliteStore

    path = write_sqlite_memory(tmp_path / "swept.db").path
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, factory=VecConnection)
    assert SqliteStore(conn).sweep_ttl() == 1  # LangGraph's own sweep
    conn.close()
    with open_memory(str(path)) as reader:
        root = build_tree(reader.namespaces())
        assert (totals(root).items, totals(root).expired) == (5, 0)
        assert reader.item("users.alice.memories", "key") is None


def test_reading_everything_changes_nothing_and_a_write_is_refused(written):
    before = digest(written.path)
    with open_memory(str(written.path)) as reader:
        for row in reader.namespaces():
            for item in reader.items(row.prefix):
                reader.item(row.prefix, item.key)
        reader.growth()
        with pytest.raises(StoreError, match="readonly|read-only|attempt to write"):
            reader._query("DELETE FROM store")
    assert digest(written.path) == before


def test_growth_counts_items_per_day(written):
    with open_memory(str(written.path)) as reader:
        rows = growth_rows(reader.growth())
    assert sum(r["created"] for r in rows) == len(written.items) == rows[-1]["items so far"]
    assert sum(r["bytes"] for r in rows) == sum(len(orjson.dumps(v)) for v in written.items.values())


def test_a_store_of_an_older_migration_reads_without_ttl_columns(tmp_path):
    from langgraph.store.sqlite.base import MIGRATIONS

    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    for sql in MIGRATIONS[:2]:  # LangGraph's own first two migrations: before expires_at and ttl_minutes
        conn.executescript(sql)
    conn.execute("INSERT INTO store (prefix, key, value) VALUES ('a.b', 'k', ?)", [orjson.dumps({"x": 1})])
    conn.commit()
    conn.close()
    with open_memory(str(path)) as reader:
        assert reader.present and not reader.has_ttl
        (row,) = reader.namespaces()
        assert (row.prefix, row.items, row.with_ttl) == ("a.b", 1, 0)
        assert reader.item("a.b", "k").value == {"x": 1}


def test_a_memory_only_file_is_named_as_such_by_the_checkpoint_store_and_read_by_memory(memory_only, capsys):
    with pytest.raises(StoreError, match="not a LangGraph checkpoint database .*it holds a LangGraph memory store"):
        open_store(str(memory_only.path))
    assert main(["memory", "--db", str(memory_only.path)]) == 0
    out = capsys.readouterr().out
    assert "6 item(s) in 4 namespace(s)" in out


def test_a_checkpoint_store_without_memory_is_one_line(demo_db, capsys):
    with open_memory(str(demo_db)) as reader:
        assert not reader.present and reader.namespaces() == [] and reader.item("a", "b") is None
    assert main(["memory", "--db", str(demo_db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no LangGraph memory store (no table store)" in err


@pytest.mark.parametrize(("url", "said"), [
    ("case.zip", "is a support bundle"),
    ("my_app.savers:checkpointer", "names a checkpoint saver in code"),
    ("mysql://x/y", "unsupported store URL"),
])
def test_urls_that_name_no_memory_database_are_one_line(url, said, capsys):
    assert main(["memory", "--db", url]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_cli_tree_namespace_item_and_growth(written, capsys):
    db = str(written.path)
    assert main(["memory", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "6 item(s) in 4 namespace(s)" in out and "1 expired and not swept yet" in out
    assert "      └ memories  3" in out and "└ org" in out
    assert main(["memory", "--db", db, "--namespace", "users.alice.memories", "--sort", "bytes"]) == 0
    out = capsys.readouterr().out
    assert "items 1-3 of 3 stored in this namespace" in out and "expired" in out and "not swept yet" in out
    assert main(["memory", "--db", db, "--namespace", "users.alice.memories", "--item", "key"]) == 0
    out = capsys.readouterr().out
    assert SECRET not in out and "[redacted" in out and "text (8 dims, 32 B)" in out
    assert main(["memory", "--db", db, "--growth", "--json"]) == 0
    days = json.loads(capsys.readouterr().out)["days"]
    assert days[-1]["items so far"] == 6


def test_cli_item_json_is_masked_and_names_its_thread(written, capsys):
    assert main(["memory", "--db", str(written.path), "--namespace", "users.alice.memories", "--item", "tea",
                 "--json"]) == 0
    item = json.loads(capsys.readouterr().out)
    assert item["threads"] == [WRITER_THREAD] and item["value"]["text"] == "Alice likes green tea"
    assert item["vectors"][0]["dims"] == DIMS and item["expired"] is False
    assert [f["field"] for f in item["fields"]] == ["text", "thread_id"]
    assert main(["memory", "--db", str(written.path), "--namespace", "users.alice.memories", "--item", "key",
                 "--json"]) == 0
    item = json.loads(capsys.readouterr().out)
    assert SECRET not in json.dumps(item) and item["expired"] is True and "not swept yet" in item["expiry"]


@pytest.mark.parametrize(("argv", "said"), [
    (["--namespace", "users.nobody"], "no namespace 'users.nobody'"),
    (["--namespace", "users.alice.memories", "--item", "gone"], "no item 'gone' in namespace"),
    (["--item", "tea"], "--item needs --namespace"),
    (["--limit", "-1"], "--limit must be 0 or more"),
])
def test_cli_bad_input_is_one_line(written, capsys, argv, said):
    assert main(["memory", "--db", str(written.path), *argv]) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1


def test_cli_item_view_is_audited(written, capsys, tmp_path, monkeypatch):
    log = tmp_path / "audit.log"
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    assert main(["memory", "--db", str(written.path), "--namespace", "org", "--item", "policy"]) == 0
    (line,) = [json.loads(x) for x in log.read_text().splitlines()]
    assert (line["action"], line["namespace"], line["key"], line["via"]) == ("memory_view", "org", "policy", "cli")


def test_the_memory_db_setting_names_the_memory_database(written, demo_db, capsys, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", str(demo_db))
    monkeypatch.setenv("INSPECTOR_MEMORY_DB", str(written.path))
    assert main(["memory"]) == 0
    assert "6 item(s)" in capsys.readouterr().out

