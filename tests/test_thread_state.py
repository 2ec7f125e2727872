"""The shared reducers: exact semantics, no mutation, and the default schema's reducer table."""

import copy

from langgraph.graph.message import add_messages

from inspector.schema import DEFAULT_SCHEMA, reducers_of
from inspector.schema.thread_state import ThreadState, merge_artifacts, merge_viewed_images

REDUCERS = DEFAULT_SCHEMA.reducers
FIELDS = DEFAULT_SCHEMA.fields
reducer_for = DEFAULT_SCHEMA.reducer_for
reducer_name = DEFAULT_SCHEMA.reducer_name

PNG = {"base64": "iVBORw0KGgo=", "mime_type": "image/png"}
JPG = {"base64": "/9j/4AAQ", "mime_type": "image/jpeg"}


def test_merge_artifacts_none_cases():
    assert merge_artifacts(None, None) == []
    assert merge_artifacts(None, ["a"]) == ["a"]
    assert merge_artifacts(["a"], None) == ["a"]


def test_merge_artifacts_dedups_keeping_first_occurrence_order():
    assert merge_artifacts(["a", "b"], ["c", "a", "b", "d", "c"]) == ["a", "b", "c", "d"]
    assert merge_artifacts(["b"], ["a", "b"]) == ["b", "a"]


def test_merge_artifacts_does_not_normalise_paths():
    assert merge_artifacts(["/mnt/user-data/outputs/b.txt"], ["/mnt/user-data/outputs/a/../b.txt"]) == [
        "/mnt/user-data/outputs/b.txt",
        "/mnt/user-data/outputs/a/../b.txt",
    ]


def test_merge_artifacts_does_not_mutate_inputs():
    existing, new = ["a", "b"], ["b", "c"]
    merge_artifacts(existing, new)
    assert existing == ["a", "b"] and new == ["b", "c"]
    fresh = ["x"]
    out = merge_artifacts(None, fresh)
    out.append("y")
    assert fresh == ["x"]


def test_merge_viewed_images_none_cases():
    assert merge_viewed_images(None, None) == {}
    assert merge_viewed_images(None, {"a": PNG}) == {"a": PNG}
    assert merge_viewed_images({"a": PNG}, None) == {"a": PNG}


def test_merge_viewed_images_empty_dict_clears_but_none_keeps():
    existing = {"a": PNG, "b": JPG}
    assert merge_viewed_images(existing, {}) == {}
    assert merge_viewed_images(existing, None) == existing
    assert merge_viewed_images(None, {}) == {}


def test_merge_viewed_images_new_wins_per_key():
    merged = merge_viewed_images({"a": PNG, "b": PNG}, {"b": JPG, "c": JPG})
    assert merged == {"a": PNG, "b": JPG, "c": JPG}
    assert list(merged) == ["a", "b", "c"]


def test_merge_viewed_images_does_not_mutate_inputs():
    existing, new = {"a": PNG}, {"b": JPG}
    before = copy.deepcopy((existing, new))
    merge_viewed_images(existing, new)
    merge_viewed_images(existing, {})
    assert (existing, new) == before
    out = merge_viewed_images(None, new)
    out["z"] = PNG
    assert "z" not in new


def test_reducer_table_is_read_from_the_schema():
    assert REDUCERS["artifacts"] is merge_artifacts
    assert REDUCERS["viewed_images"] is merge_viewed_images
    assert set(REDUCERS) == {
        "messages", "sandbox", "artifacts", "todos", "goal", "viewed_images", "promoted", "delegations", "skill_context",
    }
    assert reducer_for("title") is None
    assert reducer_name("title") == "replace"
    assert reducer_name("artifacts") == "merge_artifacts"
    assert reducer_name("messages") == "add_messages"
    assert {reducer_name(name) for name in REDUCERS} == {
        "add_messages", "merge_sandbox", "merge_artifacts", "merge_todos", "merge_goal", "merge_viewed_images",
        "merge_promoted", "merge_delegations", "merge_skill_context",
    }
    assert FIELDS == (
        "messages", "sandbox", "thread_data", "title", "artifacts", "todos", "goal", "uploaded_files",
        "viewed_images", "promoted", "delegations", "skill_context", "summary_text", "background_tasks",
    )


def test_messages_reducer_behaves_as_add_messages():
    merged = REDUCERS["messages"]([{"type": "human", "content": "hi", "id": "1"}], [{"type": "ai", "content": "yo", "id": "2"}])
    expected = add_messages([{"type": "human", "content": "hi", "id": "1"}], [{"type": "ai", "content": "yo", "id": "2"}])
    assert [m.id for m in merged] == [m.id for m in expected] == ["1", "2"]


def test_reducer_table_follows_a_schema_change():
    from typing import Annotated

    def keep_max(a, b):
        return max(a or 0, b or 0)

    class Extended(ThreadState):
        score: Annotated[int, keep_max]

    assert reducers_of(Extended)["score"] is keep_max
    assert reducers_of(Extended)["artifacts"] is merge_artifacts
