"""Retention planning on plain keys: what each policy selects, what it breaks, what the safe variant keeps."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from inspector.retention import Policy, plan_thread
from inspector.retention.graph import ThreadGraph
from inspector.retention.sql import literal
from inspector.store.model import BranchThread, checkpoint_step
from inspector.store_ops.retention_keys import BlobKeys, CheckpointKeys, StrayWrites, ThreadKeys

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)


def cid(days_ago: float, step: int, node: int = 1) -> str:
    """A uuid6 checkpoint id as LangGraph writes it: the time, and the step in the clock sequence."""
    ticks = int((NOW - timedelta(days=days_ago) - datetime(1582, 10, 15, tzinfo=timezone.utc)).total_seconds() * 10**7)
    value = ((ticks >> 12) & 0xFFFFFFFFFFFF) << 80 | 0x6 << 76 | (ticks & 0x0FFF) << 64
    value |= 0x2 << 62 | (step & 0x3FFF) << 48 | node
    return str(uuid.UUID(int=value))


def line(n: int, ns: str = "", start_days: float = 100, parent: str | None = None, node: int = 1,
         **extra) -> list[CheckpointKeys]:
    """``n`` checkpoints one after another, a day apart, the newest last."""
    out = []
    for step in range(n):
        this = cid(start_days - step, step, node)
        out.append(CheckpointKeys(ns, this, parent, 1000, 1000.0, 2, 100, 200.0, **extra))
        parent = this
    return out


def ids(checkpoints: list[CheckpointKeys]) -> list[str]:
    return [c.checkpoint_id for c in checkpoints]


def going(outcome_plan) -> set[str]:
    """Every checkpoint id the plan's statements delete (ranges expanded against the plan's own keys)."""
    out = set()
    for action in outcome_plan.actions:
        out.update(action.ids)
    return out


def test_step_is_read_from_the_id():
    assert checkpoint_step(cid(1, 7)) == 7
    assert checkpoint_step(cid(1, -1)) == -1
    assert checkpoint_step(cid(1, -2)) == -2  # DeerFlow's writes through put start from empty_checkpoint()
    assert checkpoint_step("not-a-uuid") is None


def test_keep_latest_cuts_a_line_without_breaking_it():
    main = line(6)
    outcome = plan_thread(ThreadKeys("t", main), Policy(keep_latest=2), NOW)
    plan = outcome.plain
    assert plan.checkpoints == 4 and plan.writes == 8 and plan.kept == 2 and not plan.whole_thread
    assert plan.breaks == [] and outcome.safe.checkpoints == 4
    action = plan.actions[0]
    assert action.upto == main[3].checkpoint_id and action.except_ids == []  # a range: every id is a uuid6
    assert [r["checkpoint_id"] for r in plan.new_roots] == [main[4].checkpoint_id]
    assert plan.bytes == 4 * 1200 and plan.stored_bytes == 4 * 1100


def test_older_than_and_keep_latest_narrow_each_other():
    main = line(10, start_days=20)  # 20 .. 11 days ago
    outcome = plan_thread(ThreadKeys("t", main), Policy(keep_latest=8, older_than_days=15), NOW)
    assert outcome.plain.checkpoints == 2  # older than 15 days: 5 (20..16 days); beyond the newest 8: 2; both: 2
    outcome = plan_thread(ThreadKeys("t", main), Policy(keep_latest=3, older_than_days=15), NOW)
    assert outcome.plain.checkpoints == 5


def test_inactive_for_selects_whole_threads_only():
    old, fresh = line(3, start_days=40), line(3, start_days=5)
    assert plan_thread(ThreadKeys("fresh", fresh), Policy(inactive_for_days=30), NOW).plain is None
    plan = plan_thread(ThreadKeys("old", old, stray_writes=[StrayWrites("", 1, 10, 50.0)]),
                       Policy(inactive_for_days=30), NOW).plain
    assert plan.whole_thread and plan.checkpoints == 3 and plan.writes == 7  # stray writes go with the thread


def test_threads_alone_delete_them_and_scope_the_other_policies():
    keys = ThreadKeys("a", line(4))
    assert plan_thread(keys, Policy(threads=("a",)), NOW).plain.whole_thread
    assert plan_thread(keys, Policy(threads=("b",)), NOW).plain is None
    assert plan_thread(keys, Policy(threads=("a",), keep_latest=3), NOW).plain.checkpoints == 1


def test_ids_without_time_are_kept_by_time_policies_and_never_ranged():
    plain = [CheckpointKeys("", f"c{i}", f"c{i - 1}" if i else None, 10, 10.0) for i in range(5)]
    assert plan_thread(ThreadKeys("t", plain), Policy(older_than_days=1), NOW).plain is None
    plan = plan_thread(ThreadKeys("t", plain), Policy(keep_latest=2), NOW).plain
    assert plan.actions[0].upto is None and plan.actions[0].ids == ["c0", "c1", "c2"]


def forked() -> tuple[list[CheckpointKeys], list[CheckpointKeys]]:
    """A line of 6; a branch of 3 forked from its 3rd checkpoint, written after the main line ended."""
    main = line(6, start_days=100)
    branch = line(3, start_days=90, parent=main[2].checkpoint_id, node=2)
    return main, branch


def test_deleting_a_fork_point_both_branches_keep_is_a_break_and_the_safe_variant_keeps_the_join():
    main, branch = forked()
    keys = ThreadKeys("t", main + branch)
    outcome = plan_thread(keys, Policy(older_than_days=96), NOW)  # main[0..3] go; branch (90..88) and main[4:] stay
    plain = outcome.plain
    assert [b.kind for b in plain.breaks] == ["fork"]
    fork = plain.breaks[0]
    assert fork.checkpoint_id == main[2].checkpoint_id and "would no longer meet" in fork.message
    assert set(fork.protects) == {("", main[2].checkpoint_id), ("", main[3].checkpoint_id)}
    safe = outcome.safe
    assert safe.breaks == [] and [b.kind for b in safe.protected] == ["fork"]
    assert safe.checkpoints == plain.checkpoints - 2
    assert {r["checkpoint_id"] for r in safe.new_roots} == {main[2].checkpoint_id}


def test_a_branch_deleted_whole_is_no_break():
    main, branch = forked()
    outcome = plan_thread(ThreadKeys("t", main + branch), Policy(keep_latest=2), NOW)
    assert outcome.plain.breaks == []  # the two newest are on the branch: the main line and the fork point just go


def test_a_thread_waiting_on_an_interrupt_loses_its_resume_point():
    main = line(3)
    main[-1] = CheckpointKeys("", main[-1].checkpoint_id, main[-1].parent_checkpoint_id, 1000, 1000.0, 1, 50, 80.0,
                              interrupt=True)
    outcome = plan_thread(ThreadKeys("t", main), Policy(threads=("t",)), NOW)
    assert [b.kind for b in outcome.plain.breaks] == ["interrupt"]
    assert "could not be resumed" in outcome.plain.breaks[0].message
    assert outcome.safe.kept == 1 and outcome.safe.checkpoints == 2 and not outcome.safe.whole_thread
    assert plan_thread(ThreadKeys("t", main), Policy(keep_latest=1), NOW).plain.breaks == []


def test_delta_snapshots_are_kept_for_the_checkpoints_rebuilt_from_them():
    main = line(10)
    counters = {main[i].key: {"counters_since_delta_snapshot": {"messages": [i - 5, i - 5]}} for i in range(6, 10)}
    asked: list = []

    def metadata_of(keys):
        asked.extend(keys)
        return {k: counters.get(k, {}) for k in keys}

    outcome = plan_thread(ThreadKeys("t", main), Policy(keep_latest=2), NOW, metadata_of=metadata_of)
    plain = outcome.plain
    assert [b.kind for b in plain.breaks] == ["delta"]
    assert "`messages` is stored as deltas" in plain.breaks[0].message and "step 5" in plain.breaks[0].message
    # only checkpoints that stay are read (the plain plan keeps 8, 9; the safe one adds 5 .. 7), never those that go
    assert {main[8].key, main[9].key} <= set(asked) <= {c.key for c in main[5:]}
    safe = outcome.safe
    assert safe.breaks == [] and safe.kept == 5  # steps 5 (the snapshot) .. 9
    assert safe.checkpoints == 5


def test_a_deerflow_branch_point_is_kept_by_the_safe_variant():
    main = line(5)
    link = BranchThread("branch-thread", "t", main[1].checkpoint_id)
    outcome = plan_thread(ThreadKeys("t", main), Policy(keep_latest=2), NOW, links=[link])
    assert [b.kind for b in outcome.plain.breaks] == ["deerflow-branch"]
    assert outcome.plain.breaks[0].branch_thread == "branch-thread"
    assert "branch-thread" in outcome.plain.breaks[0].message
    assert outcome.safe.checkpoints == 2  # main[1] kept


def test_a_subgraph_call_goes_whole_with_the_checkpoint_it_was_called_from():
    main = line(4)
    call_ns = "tools:0b1c"
    sub = line(3, ns=call_ns, start_days=99.5, node=3)
    sub[0] = CheckpointKeys(call_ns, sub[0].checkpoint_id, None, 500, 500.0,
                            metadata={"parents": {"": main[1].checkpoint_id}})
    outcome = plan_thread(ThreadKeys("t", main + sub), Policy(keep_latest=2), NOW)
    plan = outcome.plain
    whole = [a for a in plan.actions if a.whole]
    assert [a.checkpoint_ns for a in whole] == [call_ns]
    assert plan.checkpoints == 2 + 3


def test_shared_blobs_go_when_no_remaining_checkpoint_references_them():
    main = line(3)
    versions = [{"messages": "1"}, {"messages": "1"}, {"messages": "2"}]
    main = [CheckpointKeys(c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, 100, 100.0, blob_versions=v)
            for c, v in zip(main, versions)]
    blobs = [BlobKeys("", "messages", "1", 5000), BlobKeys("", "messages", "2", 7000), BlobKeys("", "messages", "0", 9)]
    plan = plan_thread(ThreadKeys("t", main, blobs), Policy(keep_latest=1), NOW).plain
    assert sorted(plan.actions[0].blobs) == [("messages", "0"), ("messages", "1")]  # the orphan too
    assert plan.blobs == 2 and plan.bytes == 200 + 5009
    plan = plan_thread(ThreadKeys("t", main, blobs), Policy(keep_latest=2), NOW).plain
    assert plan.actions[0].blobs == [("messages", "0")]  # version 1 is still referenced by a kept checkpoint


@pytest.mark.parametrize("kwargs, message", [
    ({}, "give a policy"),
    ({"keep_latest": 0}, "at least 1"),
    ({"older_than_days": -1}, "must not be negative"),
    ({"threads": ()}, "at least one thread"),
])
def test_bad_policies_say_why(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Policy(**kwargs)


def test_sql_literals_double_quotes_and_write_nul_as_bytes():
    assert literal("it's") == literal("it's", "postgres") == "'it''s'"
    assert literal("a\\'b") == "'a\\''b'"  # SQLite reads no backslash escapes
    assert literal("a\\'b", "postgres") == "E'a\\\\''b'"  # the same on any standard_conforming_strings
    assert literal("a\x00b'") == "CAST(X'61006227' AS TEXT)"  # a SQLite id may hold a NUL: its bytes
    with pytest.raises(ValueError, match="NUL"):
        literal("a\x00b", "postgres")  # PostgreSQL's text cannot hold one


def test_graph_ignores_parents_the_store_does_not_hold():
    main = line(3)
    orphan = CheckpointKeys("", cid(50, 9), "missing-parent", 10, 10.0)
    graph = ThreadGraph(ThreadKeys("t", main + [orphan]))
    assert graph.parent(orphan.key) is None and graph.ancestors(main[2].key) == [main[1].key, main[0].key]


def test_a_line_break_in_a_thread_id_cannot_end_a_comment_in_the_sql(tmp_path):
    import sqlite3
    from contextlib import closing

    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.retention import statements
    from inspector.retention.plan import Plan
    from inspector.store_ops.retention_keys import StorageFacts

    evil = "t\nDROP TABLE checkpoints; --"
    outcome = plan_thread(ThreadKeys(evil, line(3)), Policy(threads=(evil,)), NOW)
    plan = Plan(Policy(threads=(evil,)), "sqlite", NOW, StorageFacts("sqlite"), [outcome.plain], 1, None)
    script = statements(plan)
    assert "-- t\\nDROP TABLE checkpoints; --: 3 checkpoint(s)" in script  # one line: the line feed as \n
    with closing(sqlite3.connect(tmp_path / "s.db")) as conn:
        SqliteSaver(conn).setup()
        conn.executemany("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id) VALUES (?, '', ?)",
                         [(evil, "a"), ("other", "b")])
        conn.commit()
        conn.executescript(script)
        assert conn.execute("SELECT thread_id FROM checkpoints").fetchall() == [("other",)]


def test_a_parent_cycle_neither_hangs_nor_breaks_the_plan():
    a, b, c = cid(10, 1), cid(9, 2), cid(8, 3)
    cycle = [CheckpointKeys("", a, c, 10, 10.0), CheckpointKeys("", b, a, 10, 10.0), CheckpointKeys("", c, b, 10, 10.0)]
    tail = line(4, start_days=5, node=7)
    outcome = plan_thread(ThreadKeys("t", cycle + tail), Policy(keep_latest=2), NOW,
                          metadata_of=lambda keys: {k: {"counters_since_delta_snapshot": {"messages": [1, 9]}}
                                                    for k in keys})
    assert outcome.plain.checkpoints == 5 and outcome.plain.kept == 2
