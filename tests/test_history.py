"""Lineage, forks, subgraph lanes and paging, from parent ids only."""

from __future__ import annotations

import pytest

from inspector.history.lineage import branch_label, build_history, parent_namespace, short_namespace
from inspector.store import CheckpointRow, open_store


def row(cid: str, parent: str | None, ns: str = "", step: int = 0, parents: dict | None = None) -> CheckpointRow:
    return CheckpointRow("t", ns, cid, parent, step, "loop", None, 10,
                         metadata={"step": step, "parents": parents or {}})


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as s:
        yield s


def test_a_checkpoint_with_two_children_is_a_fork_and_starts_a_second_branch():
    rows = [row("a", None), row("b", "a", step=1), row("c", "b", step=2), row("d", "a", step=1), row("e", "d", step=2)]
    h = build_history(rows)
    assert h.forks == [("", "a")]
    assert len(h.branches) == 2
    # the branch holding the newest checkpoint ("e") continues the main line
    assert h.branches[0].keys == (("", "a"), ("", "d"), ("", "e"))
    assert h.branches[1].keys == (("", "b"), ("", "c"))
    assert h.branches[1].forked_from == ("", "a")
    assert branch_label(h, h.branches[1]) == "fork at step 0"


def test_forks_come_from_parent_ids_not_from_id_order():
    # ids that sort in an order unrelated to lineage: a straight line z -> a -> m
    rows = [row("z", None), row("a", "z", step=1), row("m", "a", step=2)]
    h = build_history(rows)
    assert h.forks == []
    assert len(h.branches) == 1
    assert h.lineage(("", "m")) == [("", "z"), ("", "a"), ("", "m")]


def test_subgraph_namespaces_hang_off_their_parent_graph_in_lanes_of_their_own():
    rows = [row("r1", None), row("r2", "r1", step=1),
            row("s1", None, ns="tools:x", parents={"": "r1"}), row("s2", "s1", ns="tools:x", step=1, parents={"": "r1"}),
            row("n1", None, ns="tools:x|search:y", parents={"": "r1", "tools:x": "s1"})]
    h = build_history(rows)
    assert h.node(("tools:x", "s1")).parent == ("", "r1")
    assert h.node(("tools:x|search:y", "n1")).parent == ("tools:x", "s1")
    assert [b.ns for b in h.branches] == ["", "tools:x", "tools:x|search:y"]
    assert h.forks == []  # children in other namespaces do not make a fork
    assert branch_label(h, h.branches[1]).startswith("subgraph tools:x")


def test_missing_parents_are_reported_not_invented():
    h = build_history([row("b", "gone", step=1), row("c", "b", step=2)])
    assert h.orphans == [("", "b")]
    assert h.node(("", "b")).parent is None


def test_path_through_walks_a_branch_end_to_end():
    rows = [row("a", None), row("b", "a", step=1), row("c", "b", step=2), row("d", "a", step=1)]
    h = build_history(rows)
    assert h.path_through(("", "b")) == [("", "a"), ("", "b"), ("", "c")]
    assert h.path_through(("", "d")) == [("", "a"), ("", "d")]


def test_paging_newest_first():
    rows = [row(f"{i:03d}", f"{i - 1:03d}" if i else None, step=i) for i in range(95)]
    h = build_history(rows)
    assert h.page_count(40) == 3
    assert h.page(0, 40)[0] == ("", "094")
    assert h.page(2, 40) == [("", f"{i:03d}") for i in range(14, -1, -1)]
    assert h.page_of(("", "010"), 40) == 2


def test_time_travel_demo_has_two_branches_sharing_a_step(store):
    h = build_history(store.timeline("demo-time-travel"))
    assert len(h.forks) == 1
    assert len(h.branches) == 2
    fork = h.node(h.forks[0])
    children = [h.node(c).row for c in fork.children]
    assert len({c.step for c in children}) == 1  # siblings share a step
    assert {c.source for c in children} == {"input", "update"}


def test_subgraph_demo_links_every_namespace(store):
    h = build_history(store.timeline("demo-subgraph"))
    namespaces = {k[0] for k in h.ordered}
    assert len(namespaces) == 3
    assert h.orphans == []
    assert len(h.branches) == len(namespaces)


def test_long_demo_pages(store):
    h = build_history(store.timeline("demo-long"))
    assert len(h) >= 300
    assert h.page_count(40) == -(-len(h) // 40)
    assert len(h.path_through(h.head)) == len(h)


def test_namespace_helpers():
    assert parent_namespace("tools:a|search:b") == "tools:a"
    assert parent_namespace("tools:a") == ""
    assert short_namespace("") == "root"
    assert short_namespace("tools:0db8286e-34fc|search:5b81") == "tools:0db8|search:5b81"


def _laid_out(h) -> None:
    """Every checkpoint is drawn in a branch, and every lineage walk ends."""
    assert sorted(k for b in h.branches for k in b.keys) == sorted(h.ordered)
    for key in h.ordered:
        assert h.lineage(key)[-1] == key and len(h.path_through(key)) <= len(h)


def test_a_checkpoint_that_names_itself_is_a_parent_cycle():
    h = build_history([row("a", None), row("b", "b", step=1), row("c", "b", step=2)])
    assert [(p.kind, p.keys) for p in h.problems] == [("parent cycle", (("", "b"),))]
    assert "names itself as its parent" in h.problems[0].message
    assert h.problem_of(("", "b")).kind == "parent cycle" and h.problem_of(("", "c")) is None
    _laid_out(h)


def test_parents_that_loop_are_one_parent_cycle_cut_at_its_oldest_checkpoint():
    h = build_history([row("a", None), row("b", "d", step=1), row("c", "b", step=2), row("d", "c", step=3),
                       row("e", "d", step=4)])
    (problem,) = h.problems
    assert problem.kind == "parent cycle" and problem.keys == (("", "d"), ("", "c"), ("", "b"))
    assert problem.message == "parent cycle: 3 checkpoints name each other as parents (d -> c -> b -> d)"
    assert h.node(("", "b")).parent is None and h.lineage(("", "e")) == [("", "b"), ("", "c"), ("", "d"), ("", "e")]
    _laid_out(h)


def test_missing_parents_and_duplicate_ids_are_named():
    rows = [row("a", None), row("b", "a", step=1), row("b", "a", step=1), row("c", "gone", step=2)]
    h = build_history(rows)
    kinds = {p.kind: p for p in h.problems}
    assert set(kinds) == {"duplicate id", "missing parent"}
    assert kinds["duplicate id"].keys == (("", "b"),) and "stored 2 times" in kinds["duplicate id"].message
    assert kinds["missing parent"].message == "missing parent: checkpoint c names parent gone, which is not in the store"
    assert len(h) == 3 and h.orphans == [("", "c")]
    _laid_out(h)


def test_a_sound_history_has_no_problems(store):
    for thread in ("demo-research", "demo-time-travel", "demo-subgraph"):
        assert build_history(store.timeline(thread)).problems == []
