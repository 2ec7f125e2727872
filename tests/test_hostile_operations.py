"""Operating the hostile corpus (``corpus/hostile_operations.py``): the statements ``prune-preview --sql`` prints
spell a hostile thread id escaped in their comments, name it exactly in their literals and, run on a copy as an
operator would run them, delete exactly the checkpoints the preview deletes, ids in mixed case included; the
metrics endpoint serves a bounded set of table series however many tables the store holds."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus.hostile_operations import EXTRA_TABLES, PRUNED
from test_hostile_cli import check, run

from inspector.store import open_store
from inspector.store.not_utf8 import spelled
from inspector.store_ops import operating

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory) -> Path:
    return corpus.write_corpus(tmp_path_factory.mktemp("hostile-operations"), ["operations", "escapes", "plain"])


def rows(db: Path, thread: str) -> tuple[set[str], set[str]]:
    """The thread's checkpoint ids, and the checkpoint ids its writes are stored against, read directly."""
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        checkpoints = {r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = ?", [thread])}
        writes = {r[0] for r in conn.execute("SELECT checkpoint_id FROM writes WHERE thread_id = ?", [thread])}
    return checkpoints, writes


def everything_but(db: Path, thread: str) -> list[tuple]:
    with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        return sorted(conn.execute("SELECT CAST(thread_id AS BLOB), checkpoint_ns, checkpoint_id, 'c' FROM checkpoints "
                                   "WHERE thread_id != ? UNION ALL SELECT CAST(thread_id AS BLOB), checkpoint_ns, "
                                   "checkpoint_id, 'w' FROM writes WHERE thread_id != ?", [thread, thread]).fetchall())


def test_the_printed_sql_spells_the_id_escaped_and_deletes_what_the_preview_deletes(hostile_db, capsys, tmp_path):
    before_hash = hashlib.sha256(hostile_db.read_bytes()).hexdigest()
    base = ["prune-preview", "--db", str(hostile_db), "--threads", PRUNED, "--keep-latest", "1"]
    code, out = run(capsys, *base, "--json")
    check(code, out, allowed=(0,))
    (planned,) = json.loads(out)["threads"]
    assert (planned["checkpoints"], planned["kept_checkpoints"], planned["writes"]) == (2, 1, 2)
    ids, _ = rows(hostile_db, PRUNED)
    kept = max(ids)  # by code point: the lower-case id, the oldest of the three
    assert kept == kept.lower() and sorted(i for i in ids if i != kept) == sorted(i.upper() for i in ids if i != kept)
    assert kept.upper() < min(i for i in ids if i != kept)  # case ignored, the kept id sorts first

    code, script = run(capsys, *base, "--sql")
    check(code, script, allowed=(0,))
    for control in ("\u202e", "\x9b", "\x9d", "\x9c"):
        assert control not in script, repr(control)
    comment = f"-- {spelled(PRUNED)}: 2 checkpoint(s), 2 write(s)"
    assert comment in script and "\\u202e\\x9b2J\\x9d0;pwned\\x9c-end: " in comment
    assert "checkpoint_id COLLATE BINARY <= " in script  # a range: every id is an ASCII uuid6

    copy = tmp_path / "copy.db"
    copy.write_bytes(hostile_db.read_bytes())
    others = everything_but(copy, PRUNED)
    with closing(sqlite3.connect(copy)) as conn:
        conn.executescript(script)
    assert rows(copy, PRUNED) == ({kept}, {kept})  # the kept checkpoint and its write, nothing else of the thread
    assert everything_but(copy, PRUNED) == others
    with open_store(str(copy)) as store:
        assert [r.checkpoint_id for r in store.timeline(PRUNED)] == [kept]
    assert hashlib.sha256(hostile_db.read_bytes()).hexdigest() == before_hash


def test_metrics_serve_the_langgraph_tables_by_name_whatever_else_the_store_holds(hostile_db, capsys):
    """SQLite: the endpoint estimates LangGraph's two tables from stored lengths (``dbstat`` would read every page) and
    serves no series for the app's own tables, however many there are (PostgreSQL sums them: ``test_metrics``)."""
    code, out = run(capsys, "metrics", "--once", "--db", str(hostile_db), "--json")
    check(code, out, allowed=(0,))
    tables = json.loads(out)["table_bytes"]
    with open_store(str(hostile_db)) as store:
        ops = operating(store)
        measured = [r for r in ops.file_facts(per_table=True).relations if r.kind == "table"]
        estimated = {r.name: r.bytes for r in ops.file_facts(per_table=False).relations if r.kind == "table"}
    assert len([r for r in measured if r.name.startswith("app_cache_")]) == EXTRA_TABLES
    assert tables == estimated and set(tables) == {"checkpoints", "writes"}
