"""The printed retention statements do what the preview says whatever the collation the ids compare with.

The plan orders checkpoint ids by code point (by their bytes). A PostgreSQL database created with an ICU
locale (``en-US``) orders them ignoring case first, so ``1f0a...`` sorts before ``1F0B...``; a SQLite table may
declare its id columns ``NOCASE``; a PostgreSQL column may have a nondeterministic collation, under which
``'a' = 'A'``. Threads are written by LangGraph's own savers, then ids planted in upper case by raw SQL (as a
migration or a hand-written copy would leave them: ``uuid.UUID`` reads both cases). The statements ``--sql``
prints are run on that throwaway store, as an operator would run them, and exactly the checkpoints the preview
keeps remain, with their writes and blobs; the same statements without their ``COLLATE`` are shown to delete
what the preview keeps.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Annotated, TypedDict

import psycopg
import pytest
from conftest import written_database
from corpus.hostile_operations import mixed_case_ids
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages

from inspector.retention import Policy, plan_store, statements
from inspector.store import open_store
from inspector.store_ops import operating

THREAD = "collated"
NEIGHBOUR = "collated-neighbour"


class _State(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    title: str


def run_graph(saver, thread_id: str) -> None:
    """One real run: three checkpoints (input, step 0, step 1), writes against the first two, blob rows."""
    graph = StateGraph(_State)
    graph.add_node("answer", lambda state: {"messages": [AIMessage("an answer", id=f"{thread_id}-a")], "title": "t"})
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    graph.compile(checkpointer=saver).invoke({"messages": [HumanMessage("a question", id=f"{thread_id}-q")]},
                                             {"configurable": {"thread_id": thread_id}})


# -- PostgreSQL: a database with an ICU collation --------------------------------------------------------------

_UPPER = [  # the two newest checkpoints' ids (and the parent naming one of them) in upper case
    "UPDATE checkpoints SET checkpoint_id = upper(checkpoint_id), "
    "checkpoint = jsonb_set(checkpoint, '{id}', to_jsonb(upper(checkpoint_id))) "
    "WHERE thread_id = %(t)s AND checkpoint_id = ANY(%(ids)s)",
    "UPDATE checkpoints SET parent_checkpoint_id = upper(parent_checkpoint_id) "
    "WHERE thread_id = %(t)s AND parent_checkpoint_id = ANY(%(ids)s)",
    "UPDATE checkpoint_writes SET checkpoint_id = upper(checkpoint_id) WHERE thread_id = %(t)s AND checkpoint_id = ANY(%(ids)s)",
]

_ROWS = {
    "checkpoints": "SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints",
    "writes": "SELECT thread_id, checkpoint_ns, checkpoint_id, task_id, idx FROM checkpoint_writes",
    "blobs": "SELECT thread_id, checkpoint_ns, channel, version FROM checkpoint_blobs",
}


def pg_rows(url: str) -> dict[str, set[tuple]]:
    with psycopg.connect(url) as conn:
        return {name: set(conn.execute(sql).fetchall()) for name, sql in _ROWS.items()}


def pg_states(url: str, thread_id: str) -> dict[str, dict]:
    with open_store(url) as store:
        return {row.checkpoint_id: store.state(thread_id, row.checkpoint_id).values for row in store.timeline(thread_id)}


def _new_database(postgres_dsn, name: str, create: str, threads: tuple[str, ...] = (THREAD, NEIGHBOUR)):
    """A throwaway database ``name`` made by ``create`` (``{name}`` filled in), ``threads`` written by PostgresSaver:
    the (admin, read-only) URLs."""
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_collation WHERE collprovider = 'i' LIMIT 1").fetchone():
            pytest.skip("this PostgreSQL was built without ICU")

    def write(url: str) -> None:
        with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
            conn.execute(create.format(name=name))
        with PostgresSaver.from_conn_string(url) as saver:
            saver.setup()
            for thread in threads:
                run_graph(saver, thread)

    return written_database(postgres_dsn, name, write)


@pytest.mark.postgres
def test_on_an_icu_database_the_printed_range_keeps_the_checkpoint_the_preview_keeps(postgres_dsn):
    admin, readonly = _new_database(
        postgres_dsn, "inspector_icu",
        "CREATE DATABASE {name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'")
    with psycopg.connect(admin, autocommit=True) as conn:
        ids = [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = %s "
                                          "ORDER BY checkpoint_id COLLATE \"C\"", [THREAD])]
        assert len(ids) == 3
        for sql in _UPPER:
            conn.execute(sql, {"t": THREAD, "ids": ids[1:]})
        oldest, gone = ids[0], [i.upper() for i in ids[1:]]
        # the database orders the lower-case id before the upper-case ones; the bytes order it after them
        assert conn.execute("SELECT %s <= %s", [oldest, gone[-1]]).fetchone()[0] is True
        assert oldest > gone[-1]

    kept_state = pg_states(readonly, THREAD)[oldest]
    with open_store(readonly) as store:
        plan = plan_store(store, Policy(keep_latest=1, threads=(THREAD,)))
    (thread,) = plan.threads
    assert (thread.checkpoints, thread.kept) == (2, 1) and not thread.whole_thread
    (action,) = thread.actions
    assert action.upto == max(gone) and not action.except_ids  # one range, as the finding printed it
    script = statements(plan)
    assert "checkpoint_id COLLATE \"C\" <= " in script

    before = pg_rows(admin)
    with psycopg.connect(admin) as conn:  # the range without its collation: the database's order deletes all three
        conn.execute(script.replace(' COLLATE "C"', "").replace("BEGIN;", "").replace("COMMIT;", ""))
        assert conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", [THREAD]).fetchone()[0] == 0
        conn.rollback()
    assert pg_rows(admin) == before

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(script)
    after = pg_rows(admin)
    mine = {name: {r for r in rows if r[0] == THREAD} for name, rows in before.items()}
    assert {r[2] for r in after["checkpoints"] if r[0] == THREAD} == {oldest}
    assert {r for r in after["writes"] if r[0] == THREAD} == {r for r in mine["writes"] if r[2] == oldest} != set()
    assert {r[2] for r in mine["writes"]} - {oldest}, "the deleted checkpoints had writes"
    planned_blobs = {(THREAD, "", channel, version) for channel, version in action.blobs}
    assert planned_blobs and {r for r in after["blobs"] if r[0] == THREAD} == mine["blobs"] - planned_blobs
    assert (len(mine["checkpoints"]) - 1, len(mine["writes"]) - len([r for r in after["writes"] if r[0] == THREAD]),
            len(planned_blobs)) == (thread.checkpoints, thread.writes, thread.blobs)
    for name, rows in before.items():  # the neighbour thread untouched
        assert {r for r in after[name] if r[0] != THREAD} == {r for r in rows if r[0] != THREAD}
    assert pg_states(readonly, THREAD) == {oldest: kept_state}  # the kept checkpoint still reads whole


@pytest.mark.postgres
def test_under_a_nondeterministic_collation_a_thread_is_not_its_other_case(postgres_dsn):
    """``thread_id`` columns altered to a case-insensitive ICU collation: ``thread_id = 'collated'`` finds the thread
    ``COLLATED`` too. The plan names only the thread asked for, says the statements compare exactly, and they
    delete that thread alone."""
    other = THREAD.upper()
    admin, readonly = _new_database(postgres_dsn, "inspector_icu_ci", "CREATE DATABASE {name}",
                                    (THREAD, other, NEIGHBOUR))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute("CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
        for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs"):
            conn.execute(f"ALTER TABLE {table} ALTER COLUMN thread_id TYPE text COLLATE ci")
        assert conn.execute("SELECT count(DISTINCT thread_id) FROM checkpoints WHERE thread_id = %s",
                            [THREAD]).fetchone()[0] == 1  # the two threads are one to the collation

    with open_store(readonly) as store:
        plan = plan_store(store, Policy(threads=(THREAD,)))
        everything = plan_store(store, Policy(keep_latest=1))
    assert [t.thread_id for t in plan.threads] == [THREAD] and plan.threads[0].whole_thread
    assert not plan.facts.exact_ids and any("nondeterministic" in n for n in plan.notes)
    assert {t.thread_id for t in everything.threads} == {THREAD, other, NEIGHBOUR}
    script = statements(plan)
    assert f"thread_id COLLATE \"C\" = '{THREAD}'" in script

    before = pg_rows(admin)
    with psycopg.connect(admin) as conn:  # without the collation, the other thread goes too
        conn.execute(script.replace(' COLLATE "C"', "").replace("BEGIN;", "").replace("COMMIT;", ""))
        assert conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id COLLATE \"C\" = %s",
                            [other]).fetchone()[0] == 0
        conn.rollback()
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(script)
    after = pg_rows(admin)
    for name, rows in before.items():
        assert {r for r in rows if r[0] == THREAD} and not {r for r in after[name] if r[0] == THREAD}, name
        assert after[name] == {r for r in rows if r[0] != THREAD}, name


# -- SQLite: id columns declared NOCASE ------------------------------------------------------------------------

_NOCASE_TABLES = """
    CREATE TABLE checkpoints (
        thread_id TEXT COLLATE NOCASE NOT NULL, checkpoint_ns TEXT COLLATE NOCASE NOT NULL DEFAULT '',
        checkpoint_id TEXT COLLATE NOCASE NOT NULL, parent_checkpoint_id TEXT COLLATE NOCASE, type TEXT,
        checkpoint BLOB, metadata BLOB, PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
    CREATE TABLE writes (
        thread_id TEXT COLLATE NOCASE NOT NULL, checkpoint_ns TEXT COLLATE NOCASE NOT NULL DEFAULT '',
        checkpoint_id TEXT COLLATE NOCASE NOT NULL, task_id TEXT NOT NULL, task_path TEXT NOT NULL DEFAULT '',
        idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, value BLOB,
        PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx));
"""


def nocase_store(path: Path) -> dict[str, list[str]]:
    """LangGraph's two tables declared with ``NOCASE`` id columns (``SqliteSaver.setup`` keeps tables that exist), and
    two threads whose ids differ only in case, written by ``SqliteSaver.put``: ``collated`` with three uuid6 ids
    (the oldest in lower case, the newer two in upper case) and ``COLLATED`` with two. Each checkpoint has a write."""
    written: dict[str, list[str]] = {}
    with closing(sqlite3.connect(path, check_same_thread=False)) as conn:
        conn.executescript(_NOCASE_TABLES)
        saver = SqliteSaver(conn)
        saver.setup()
        for thread, ids in ((THREAD, mixed_case_ids()), (THREAD.upper(), mixed_case_ids()[:2])):
            parent = None
            for step, checkpoint_id in enumerate(ids):
                checkpoint = {"v": 4, "id": checkpoint_id, "ts": "2026-01-01T00:00:00+00:00",
                              "channel_values": {"title": f"{thread} {step}"}, "channel_versions": {"title": step + 1},
                              "versions_seen": {}}
                config = {"configurable": {"thread_id": thread, "checkpoint_ns": "",
                                           **({"checkpoint_id": parent} if parent else {})}}
                saved = saver.put(config, checkpoint, {"source": "loop", "step": step}, {"title": step + 1})
                saver.put_writes(saved, [("title", f"write {step}")], task_id=f"task-{step}")
                parent = checkpoint_id
            written[thread] = ids
        conn.commit()
    return written


def sqlite_rows(path: Path) -> dict[str, set[tuple]]:
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return {"checkpoints": set(conn.execute("SELECT thread_id, checkpoint_ns, checkpoint_id FROM checkpoints")),
                "writes": set(conn.execute("SELECT thread_id, checkpoint_ns, checkpoint_id, task_id FROM writes"))}


def apply_to_copy(source: Path, copy: Path, script: str) -> dict[str, set[tuple]]:
    copy.write_bytes(source.read_bytes())
    with closing(sqlite3.connect(copy)) as conn:
        conn.executescript(script)
    return sqlite_rows(copy)


def test_nocase_id_columns_neither_widen_the_range_nor_join_the_threads(tmp_path):
    db = tmp_path / "nocase.db"
    written = nocase_store(db)
    kept = written[THREAD][0]
    before = sqlite_rows(db)
    with closing(sqlite3.connect(db)) as conn:  # the column's collation: case ignored, the kept id sorts first
        assert conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = ?", [THREAD]).fetchone()[0] == 5
        assert conn.execute("SELECT ? <= ? COLLATE NOCASE", [kept, max(written[THREAD])]).fetchone()[0] == 1

    with open_store(str(db)) as store:
        pruned = plan_store(store, Policy(keep_latest=1, threads=(THREAD,)))
        whole = plan_store(store, Policy(threads=(THREAD,)))
        exported = list(operating(store).export_thread(THREAD))  # a bundle's rows: the thread's own, each with its write
    assert sorted(c.checkpoint_id for c in exported) == sorted(written[THREAD])
    assert all(not c.missing and [w.task_id for w in c.writes] == [f"task-{written[THREAD].index(c.checkpoint_id)}"]
               for c in exported)
    (thread,) = pruned.threads
    assert (thread.thread_id, thread.checkpoints, thread.kept, thread.writes) == (THREAD, 2, 1, 2)
    assert [t.thread_id for t in whole.threads] == [THREAD] and whole.threads[0].checkpoints == 3

    script = statements(pruned)
    assert "checkpoint_id COLLATE BINARY <= " in script and "thread_id COLLATE BINARY = 'collated'" in script
    after = apply_to_copy(db, tmp_path / "pruned.db", script)
    assert after["checkpoints"] == before["checkpoints"] - {(THREAD, "", i) for i in written[THREAD][1:]}
    assert after["writes"] == {w for w in before["writes"] if w[:3] in after["checkpoints"]}
    assert len(before["writes"]) - len(after["writes"]) == thread.writes
    loose = apply_to_copy(db, tmp_path / "loose.db", script.replace(" COLLATE BINARY", ""))
    assert (THREAD, "", kept) not in loose["checkpoints"]  # the column's collation would have deleted it

    script = statements(whole)
    after = apply_to_copy(db, tmp_path / "whole.db", script)
    for name, rows in before.items():
        assert after[name] == {r for r in rows if r[0] != THREAD} and {r for r in after[name] if r[0] == THREAD.upper()}
    loose = apply_to_copy(db, tmp_path / "whole-loose.db", script.replace(" COLLATE BINARY", ""))
    assert not {r for r in loose["checkpoints"] if r[0] == THREAD.upper()}  # NOCASE: the other thread went too
