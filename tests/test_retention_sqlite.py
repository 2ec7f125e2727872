"""``prune-preview`` on a real SQLite store: the printed SQL applied to a copy, then VACUUM.

The store is the demo database (written by LangGraph's SqliteSaver: forks, a
delta-mode thread, a pending interrupt, subgraph namespaces) plus a DeerFlow
branch thread. For each policy: the prediction holds within 25% of what the
file loses, every checkpoint that lost its parent is one the plan named, every
fork point deleted under two surviving branches is a named break, and every
thread the plan keeps still opens (with ``--safe``: every kept state reads
exactly as before).
"""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import subprocess
from contextlib import closing, redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver
from retention_helpers import (
    BRANCH_THREAD,
    BRANCHED_FROM,
    HOSTILE_THREAD,
    add_deerflow_branch,
    lost_junctions,
    lost_parents,
    parents,
    sqlite_store_with_branch,
)

from inspector.cli import main
from inspector.history.lineage import build_history
from inspector.retention import Policy, plan_store, statements
from inspector.state.interrupts import pending_questions
from inspector.store import open_store
from inspector.store_ops.sqlite.pages import PageModel, record_len


def cli(*args: str) -> subprocess.CompletedProcess:
    """``python -m inspector ARGS`` run in this process (the command line itself is tested in test_cli.py)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def apply(db: Path, script: str, vacuum: bool = False) -> None:
    """What an operator does with the printed statements (the store is in WAL mode: checkpoint it too)."""
    conn = sqlite3.connect(db)
    try:
        conn.executescript(script)
        if vacuum:
            conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def generated(demo_db, tmp_path_factory) -> tuple[Path, str]:
    return sqlite_store_with_branch(demo_db, tmp_path_factory.mktemp("retention") / "store.db")


def states(db: Path) -> dict:
    """Every checkpoint's decoded fields and problems, read through the inspector."""
    out = {}
    with open_store(str(db)) as store:
        for summary in store.threads(limit=10_000):
            for row in store.timeline(summary.thread_id):
                state = store.state(summary.thread_id, row.checkpoint_id, row.checkpoint_ns)
                out[(summary.thread_id, row.checkpoint_ns, row.checkpoint_id)] = (
                    state.values, [p.message for p in state.problems])
    return out


POLICIES = [
    ("--keep-latest", "2"),
    ("--keep-latest", "2", "--safe"),
    ("--keep-latest", "12", "--threads", "demo-time-travel"),
    ("--threads", "demo-interrupt", BRANCHED_FROM),
    ("--keep-latest", "1", "--safe"),
]


@pytest.mark.parametrize("policy", POLICIES, ids=[" ".join(p) for p in POLICIES])
def test_printed_sql_applied_to_a_copy_does_what_the_plan_says(generated, tmp_path, policy):
    source, _ = generated
    copy = tmp_path / "copy.db"
    copy.write_bytes(source.read_bytes())
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    planned = cli("prune-preview", "--db", str(copy), *policy, "--json")
    script = cli("prune-preview", "--db", str(copy), *policy, "--sql")
    assert planned.returncode == 0 and script.returncode == 0, planned.stderr + script.stderr
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == digest  # previewing changed nothing
    plan = json.loads(planned.stdout)
    assert plan["threads"] and plan["reclaim_bytes"] > 0
    before, size_before = parents(copy), copy.stat().st_size
    kept_states_before = states(copy) if "--safe" in policy else None

    apply(copy, script.stdout, vacuum=True)
    after = parents(copy)
    lost = size_before - copy.stat().st_size

    assert abs(plan["reclaim_bytes"] - lost) <= 0.25 * lost, (plan["reclaim_bytes"], lost)
    by_thread = {t["thread_id"]: t for t in plan["threads"]}
    assert len(before) - len(after) == plan["checkpoints"]
    for (thread, ns, cid), _ in lost_parents(before, after).items():
        named = {(r["checkpoint_ns"], r["checkpoint_id"]) for r in by_thread[thread]["new_first_checkpoints"]}
        assert (ns, cid) in named, f"{thread} {ns} {cid} lost its parent unannounced"
    for thread, _ns, cid in lost_junctions(before, after):
        assert any(b["kind"] == "fork" and b["checkpoint_id"] == cid for b in by_thread[thread]["breaks"])

    with open_store(str(copy)) as store:
        for summary in store.threads(limit=10_000):
            history = build_history(store.timeline(summary.thread_id))
            state = store.state(summary.thread_id, history.head[1], history.head[0])
            assert state.checkpoint_id == history.head[1]
    if kept_states_before is not None:
        for key, state in states(copy).items():
            assert state == kept_states_before[key], f"{key} reads differently after a safe prune"


def test_plain_and_safe_plans_name_what_breaks(generated):
    source, branched_from = generated
    plan = json.loads(cli("prune-preview", "--db", str(source), "--keep-latest", "2", "--json").stdout)
    kinds = {(t["thread_id"], b["kind"]) for t in plan["threads"] for b in t["breaks"]}
    assert ("demo-delta", "delta") in kinds and (BRANCHED_FROM, "deerflow-branch") in kinds
    branch_break = next(b for t in plan["threads"] for b in t["breaks"] if b.get("branch_thread") == BRANCH_THREAD)
    assert branch_break["kind"] == "deerflow-branch" and branch_break["checkpoint_id"] == branched_from
    assert plan["variant"]["safe"] and plan["variant"]["breaks"] == 0
    assert 0 < plan["variant"]["difference_bytes"] == plan["reclaim_bytes"] - plan["variant"]["reclaim_bytes"]

    safe = json.loads(cli("prune-preview", "--db", str(source), "--keep-latest", "2", "--safe", "--json").stdout)
    assert not [b for t in safe["threads"] for b in t["breaks"]]
    assert {b["kind"] for t in safe["threads"] for b in t["protected"]} == {"delta", "deerflow-branch"}
    assert safe["reclaim_bytes"] == plan["variant"]["reclaim_bytes"]

    table = cli("prune-preview", "--db", str(source), "--keep-latest", "2")
    assert "breaks [demo-delta]: `messages` is stored as deltas" in table.stdout
    assert "The safe variant (keep-latest 2, keeping what it would break) breaks nothing" in table.stdout
    assert "Nothing was deleted" in table.stdout


def test_a_waiting_thread_and_a_deleted_branch_thread(generated, tmp_path):
    source, branched_from = generated
    plan = json.loads(cli("prune-preview", "--db", str(source), "--threads", "demo-interrupt", "--json").stdout)
    (thread,) = plan["threads"]
    assert thread["whole_thread"] and [b["kind"] for b in thread["breaks"]] == ["interrupt"]
    # deleting the branch thread too leaves no link to lose
    both = json.loads(cli("prune-preview", "--db", str(source), "--threads", BRANCHED_FROM, BRANCH_THREAD,
                          "--json").stdout)
    assert not [b for t in both["threads"] for b in t["breaks"]]

    copy = tmp_path / "copy.db"
    copy.write_bytes(source.read_bytes())
    apply(copy, cli("prune-preview", "--db", str(copy), "--threads", "demo-interrupt", "--safe", "--sql").stdout)
    with open_store(str(copy)) as store:
        state = store.state("demo-interrupt")
        assert pending_questions(state.writes), "the resume checkpoint and its interrupt write were kept"
        assert len(store.timeline("demo-interrupt")) == 1


def test_the_page_model_matches_sqlites_own_accounting(demo_db):
    """Cells and overflow pages computed from lengths equal what dbstat reports for the same rows."""
    with closing(sqlite3.connect(f"file:{demo_db}?mode=ro", uri=True)) as conn:
        model = PageModel(conn.execute("PRAGMA page_size").fetchone()[0])
        cells = overflow = 0
        for rowid, t, ns, cid, parent, kind, body, meta in conn.execute(
                "SELECT rowid, length(thread_id), length(checkpoint_ns), length(checkpoint_id), "
                "length(parent_checkpoint_id), length(type), length(checkpoint), length(metadata) FROM checkpoints"):
            row = model.table_row(record_len("tttttbb", (t, ns, cid, parent, kind, body, meta)), rowid)
            cells, overflow = cells + row.cell, overflow + row.overflow_pages
        measured = dict(((kind, (n, used)) for kind, n, used in conn.execute(
            "SELECT pagetype, count(*), sum(pgsize - unused - 8) FROM dbstat WHERE name = 'checkpoints' "
            "GROUP BY pagetype")))
    assert overflow == measured["overflow"][0]
    assert cells == measured["leaf"][1]
    assert record_len("iii", (0, 1, 300)) == 1 + 3 + 2
    assert record_len("tb", (None, 100)) == 1 + 1 + 2 + 100  # NULL, then a blob whose serial type takes 2 bytes


def test_a_saver_store_says_it_cannot_preview(tmp_path):
    saver_file = tmp_path / "mysaver.py"
    saver_file.write_text("from langgraph.checkpoint.memory import InMemorySaver\ncheckpointer = InMemorySaver()\n")
    out = cli("prune-preview", "--db", f"{saver_file}:checkpointer", "--keep-latest", "1")
    assert out.returncode == 2 and "needs direct access to the store's tables" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_ids_that_would_end_a_literal_stay_inside_it(demo_db, tmp_path):
    db, _ = sqlite_store_with_branch(demo_db, tmp_path / "store.db")
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        add_deerflow_branch(SqliteSaver(conn), thread_id=HOSTILE_THREAD)
        conn.commit()
    before = parents(db)
    with open_store(str(db)) as store:
        script = statements(plan_store(store, Policy(threads=(HOSTILE_THREAD,))))
    assert "-- o'brien\\'; DELETE FROM checkpoints; --\\nDELETE FROM writes; --:" in script  # one comment line
    apply(db, script)
    after = parents(db)
    assert {k for k in before if k[0] == HOSTILE_THREAD} and not {k for k in after if k[0] == HOSTILE_THREAD}
    assert after == {k: v for k, v in before.items() if k[0] != HOSTILE_THREAD}  # nothing else touched


def test_an_id_holding_a_nul_is_written_as_its_bytes_and_the_rest_of_the_store_still_gets_statements(demo_db, tmp_path):
    """A thread id with a NUL (Python's sqlite3 stores it as it is) is named by its bytes in the statements, so one
    planted thread does not deny the operator the whole script, and naming it finds it (``json_each`` would end its
    text at the NUL)."""
    nul_thread = "planted\x00" + HOSTILE_THREAD
    db, _ = sqlite_store_with_branch(demo_db, tmp_path / "store.db")
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        add_deerflow_branch(SqliteSaver(conn), thread_id=nul_thread)
        conn.commit()
    before = parents(db)
    out = cli("prune-preview", "--db", str(db), "--keep-latest", "1", "--sql")
    assert out.returncode == 0 and "\x00" not in out.stdout, out.stderr
    with open_store(str(db)) as store:
        script = statements(plan_store(store, Policy(threads=(nul_thread,))))
    apply(db, script)
    after = parents(db)
    assert {k for k in before if k[0] == nul_thread} and not {k for k in after if k[0] == nul_thread}
    assert after == {k: v for k, v in before.items() if k[0] != nul_thread}  # nothing else touched
