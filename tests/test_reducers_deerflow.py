"""DeerFlow main's six further reducers, branch by branch: None handling, conflicts, caps,
terminal statuses, catalog changes and normalisation; none of them mutates its inputs."""

import copy

import pytest

from inspector.schema.thread_state import (
    DELEGATIONS_MAX_ENTRIES,
    SKILL_CONTEXT_MAX_ENTRIES,
    SKILL_DESCRIPTION_MAX_CHARS,
    TERMINAL_STATUSES,
    SandboxConflict,
    merge_delegations,
    merge_goal,
    merge_promoted,
    merge_sandbox,
    merge_skill_context,
    merge_todos,
    normalise_skill_entry,
)

# -- merge_sandbox -------------------------------------------------------------


def test_merge_sandbox_none_cases():
    box = {"sandbox_id": "sb-1"}
    assert merge_sandbox(None, None) is None
    assert merge_sandbox(None, box) == box
    assert merge_sandbox(box, None) == box


def test_merge_sandbox_same_id_keeps_the_existing_value():
    existing = {"sandbox_id": "sb-1", "note": "first"}
    assert merge_sandbox(existing, {"sandbox_id": "sb-1", "note": "second"}) is existing
    assert merge_sandbox({}, {"sandbox_id": None}) == {}  # both ids missing: the same id


def test_merge_sandbox_different_ids_raise_a_conflict():
    with pytest.raises(SandboxConflict, match="'sb-1' != 'sb-2'"):
        merge_sandbox({"sandbox_id": "sb-1"}, {"sandbox_id": "sb-2"})
    with pytest.raises(ValueError):  # DeerFlow raises ValueError; SandboxConflict is one
        merge_sandbox({"sandbox_id": "sb-1"}, {})
    with pytest.raises(SandboxConflict) as conflict:  # ids from the data, named as ids are quoted
        merge_sandbox({"sandbox_id": "sb-\udcff\u202e"}, {"sandbox_id": 7})
    assert str(conflict.value) == "conflicting sandbox writes: 'sb-\\xff\\u202e' (not UTF-8) != 7"


# -- merge_todos, merge_goal ---------------------------------------------------


@pytest.mark.parametrize("reducer", [merge_todos, merge_goal])
def test_none_keeps_and_anything_else_replaces(reducer):
    old, new = [{"content": "a"}], [{"content": "b"}]
    assert reducer(None, None) is None
    assert reducer(old, None) is old
    assert reducer(None, new) is new
    assert reducer(old, new) is new


def test_merge_todos_empty_list_replaces():
    assert merge_todos([{"content": "a", "status": "pending"}], []) == []


def test_merge_goal_replaces_a_goal_wholesale():
    goal = {"objective": "ship", "status": "active", "continuation_count": 0}
    later = {"objective": "ship", "status": "active", "continuation_count": 1}
    assert merge_goal(goal, later) == later
    assert merge_goal(goal, {}) == {}  # an empty goal is a value, not None


# -- merge_promoted ------------------------------------------------------------


def test_merge_promoted_none_or_empty_keeps():
    existing = {"catalog_hash": "h1", "names": ["a"]}
    assert merge_promoted(None, None) is None
    assert merge_promoted(existing, None) is existing
    assert merge_promoted(existing, {}) is existing
    assert merge_promoted(None, {}) is None


def test_merge_promoted_first_value_is_deduplicated():
    assert merge_promoted(None, {"catalog_hash": "h1", "names": ["a", "b", "a"]}) == {
        "catalog_hash": "h1", "names": ["a", "b"],
    }


def test_merge_promoted_same_hash_unions_names_in_order():
    merged = merge_promoted({"catalog_hash": "h1", "names": ["b", "a"]}, {"catalog_hash": "h1", "names": ["c", "a", "d"]})
    assert merged == {"catalog_hash": "h1", "names": ["b", "a", "c", "d"]}


def test_merge_promoted_catalog_change_replaces_wholesale():
    merged = merge_promoted({"catalog_hash": "h1", "names": ["a", "b"]}, {"catalog_hash": "h2", "names": ["c", "c"]})
    assert merged == {"catalog_hash": "h2", "names": ["c"]}
    assert merge_promoted({}, {"catalog_hash": "h2", "names": ["x"]}) == {"catalog_hash": "h2", "names": ["x"]}


def test_merge_promoted_does_not_mutate_inputs():
    existing, new = {"catalog_hash": "h", "names": ["a"]}, {"catalog_hash": "h", "names": ["b"]}
    before = copy.deepcopy((existing, new))
    merge_promoted(existing, new)
    assert (existing, new) == before


# -- merge_delegations ---------------------------------------------------------


def entry(id_, status="running", created_at="t0", **extra):
    return {"id": id_, "description": f"task {id_}", "subagent_type": "general-purpose",
            "status": status, "created_at": created_at, **extra}


def test_merge_delegations_none_or_empty_keeps():
    existing = [entry("a")]
    assert merge_delegations(None, None) == []
    assert merge_delegations(None, []) == []
    assert merge_delegations(existing, None) is existing
    assert merge_delegations(existing, []) is existing
    assert merge_delegations(None, [entry("a")]) == [entry("a")]


def test_merge_delegations_merges_by_id_in_first_seen_order():
    merged = merge_delegations([entry("a"), entry("b")], [entry("c"), entry("a", "completed", "t9")])
    assert [e["id"] for e in merged] == ["a", "b", "c"]
    assert merged[0]["status"] == "completed"


def test_merge_delegations_keeps_the_earlier_created_at_and_run_id():
    merged = merge_delegations([entry("a", created_at="t0", run_id="r1")], [entry("a", "completed", created_at="t5")])
    assert merged == [entry("a", "completed", created_at="t0", run_id="r1")]
    newer_run = merge_delegations([entry("a", run_id="r1")], [entry("a", "completed", run_id="r2")])
    assert newer_run[0]["run_id"] == "r2"


def test_merge_delegations_earlier_without_created_at_keeps_nothing():
    earlier = {"id": "a", "status": "running", "run_id": "r1"}
    merged = merge_delegations([earlier], [entry("a", "completed", created_at="t5")])
    assert merged == [entry("a", "completed", created_at="t5")]  # no created_at before: run_id not carried either


@pytest.mark.parametrize("terminal", sorted(TERMINAL_STATUSES))
def test_merge_delegations_terminal_status_is_never_replaced_by_a_running_one(terminal):
    done = entry("a", terminal, result_brief="done")
    assert merge_delegations([done], [entry("a", "running")]) == [done]
    assert merge_delegations([done], [entry("a", "completed", result_brief="again")])[0]["result_brief"] == "again"


def test_merge_delegations_terminal_statuses_are_deerflows():
    assert {"completed", "failed", "cancelled", "timed_out", "polling_timed_out"} == TERMINAL_STATUSES


def test_merge_delegations_keeps_the_newest_fifty():
    existing = [entry(f"d{i}") for i in range(DELEGATIONS_MAX_ENTRIES)]
    merged = merge_delegations(existing, [entry("new")])
    assert DELEGATIONS_MAX_ENTRIES == 50
    assert len(merged) == 50
    assert merged[0]["id"] == "d1" and merged[-1]["id"] == "new"
    # an update to an old entry keeps its first-seen place, so the cap still drops the oldest
    updated = merge_delegations(existing, [entry("d0", "completed"), entry("new")])
    assert [e["id"] for e in updated][:2] == ["d1", "d2"]


def test_merge_delegations_does_not_mutate_inputs():
    existing, new = [entry("a", run_id="r1")], [entry("a", "completed", created_at="t5")]
    before = copy.deepcopy((existing, new))
    merge_delegations(existing, new)
    assert (existing, new) == before


# -- merge_skill_context -------------------------------------------------------


def skill(path, name=None, description="reads PDFs", loaded_at=1, **extra):
    return {"name": name or path.rsplit("/", 1)[-1], "path": path, "description": description,
            "loaded_at": loaded_at, **extra}


def test_normalise_skill_entry_drops_unknown_keys_and_fixes_types():
    raw = {"path": "/skills/pdf", "name": None, "description": "  reads\n\n  PDFs \t fast ",
           "loaded_at": "12", "body": "# the whole SKILL.md"}
    assert normalise_skill_entry(raw) == {"name": "", "path": "/skills/pdf", "description": "reads PDFs fast", "loaded_at": 0}
    assert normalise_skill_entry({"path": 7, "description": 3, "loaded_at": 4})["description"] == ""
    assert normalise_skill_entry({"path": 7})["path"] == "7"
    long = normalise_skill_entry({"path": "p", "description": "word " * 300})["description"]
    assert len(long) == SKILL_DESCRIPTION_MAX_CHARS == 500


def test_merge_skill_context_none_or_empty_returns_normalised_existing():
    existing = [skill("/s/a", body="legacy body"), skill("/s/b", loaded_at="x")]
    expected = [skill("/s/a"), skill("/s/b", loaded_at=0)]
    assert merge_skill_context(existing, None) == expected
    assert merge_skill_context(existing, []) == expected
    assert merge_skill_context(None, None) == []


def test_merge_skill_context_rereading_moves_the_entry_to_the_end():
    merged = merge_skill_context([skill("/s/a"), skill("/s/b")], [skill("/s/a", loaded_at=9), skill("/s/c")])
    assert [s["path"] for s in merged] == ["/s/b", "/s/a", "/s/c"]
    assert merged[1]["loaded_at"] == 9


def test_merge_skill_context_duplicate_existing_paths_keep_the_first_place_and_the_last_value():
    merged = merge_skill_context([skill("/s/a", loaded_at=1), skill("/s/b"), skill("/s/a", loaded_at=2)], [skill("/s/c")])
    assert [(s["path"], s["loaded_at"]) for s in merged] == [("/s/a", 2), ("/s/b", 1), ("/s/c", 1)]


def test_merge_skill_context_keeps_the_newest_eight():
    existing = [skill(f"/s/{i}") for i in range(7)]
    merged = merge_skill_context(existing, [skill("/s/new1"), skill("/s/new2"), skill("/s/0")])
    assert SKILL_CONTEXT_MAX_ENTRIES == 8
    assert [s["path"] for s in merged] == ["/s/2", "/s/3", "/s/4", "/s/5", "/s/6", "/s/new1", "/s/new2", "/s/0"]


def test_merge_skill_context_does_not_mutate_inputs():
    existing, new = [skill("/s/a", body="x")], [skill("/s/a", description="  new  ")]
    before = copy.deepcopy((existing, new))
    merge_skill_context(existing, new)
    assert (existing, new) == before
