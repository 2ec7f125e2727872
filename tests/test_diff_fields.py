"""The diff of each field kind, in the terms of its reducer, on hand-built states."""

from __future__ import annotations

import base64
import json
import os

from inspector.diff import CLEARED_NOTE, diff
from inspector.formatting import dumps
from inspector.schema.thread_state import merge_viewed_images
from inspector.store import WriteRecord


def write(channel, value, task="agent"):
    return WriteRecord(task_id=task, task_path=f"~__pregel_pull, {task}", idx=0, channel=channel,
                       value=value, type="msgpack", size=0)


def msg(kind, mid, content="", **extra):
    return {"type": kind, "id": mid, "content": content, "name": None, "additional_kwargs": {}, **extra}


def kinds(field_diff):
    return [(c.kind, c.key) for c in field_diff.changes]


# -- messages ------------------------------------------------------------------


def test_messages_added_and_changed_are_matched_by_id():
    calls = [{"name": "bash", "args": {}, "id": "c1"}, {"name": "present_files", "args": {}, "id": "c2"}]
    before = {"messages": [msg("human", "h1", "hi"), msg("ai", "a1", "draft")]}
    after = {"messages": [msg("human", "h1", "hi"), msg("ai", "a1", "final"), msg("ai", "a2", "", tool_calls=calls)]}
    field = diff(before, after).field("messages")
    assert field.status == "changed"
    assert kinds(field) == [("changed", "a1"), ("added", "a2")]
    assert field.changes[1].summary == "added: AI: 2 tool calls: bash, present_files"
    assert "content" in field.changes[0].summary


def test_remove_message_write_is_named():
    before = {"messages": [msg("human", "h1", "hi"), msg("ai", "a1", "old answer")]}
    after = {"messages": [msg("human", "h1", "hi")]}
    removal = write("messages", [msg("remove", "a1")])
    field = diff(before, after, writes=[removal]).field("messages")
    assert kinds(field) == [("removed", "a1")]
    assert field.changes[0].summary.startswith("removed by RemoveMessage: AI:")
    # the same change without the write is still a removal, but not attributed
    assert not diff(before, after).field("messages").changes[0].summary.startswith("removed by")


def test_remove_all_messages():
    before = {"messages": [msg("human", "h1", "a"), msg("ai", "a1", "b")]}
    after = {"messages": [msg("human", "h2", "fresh start")]}
    writes = [write("messages", [msg("remove", "__remove_all__"), msg("human", "h2", "fresh start")])]
    field = diff(before, after, writes=writes).field("messages")
    assert sorted(k for k, _ in kinds(field)) == ["added", "removed", "removed"]
    assert "all 2 earlier message(s) removed" in field.note


# -- artifacts -----------------------------------------------------------------


def test_artifacts_added_in_order_and_duplicates_dropped():
    before = {"artifacts": ["/o/report.md"]}
    after = {"artifacts": ["/o/report.md", "/o/chart.png", "/o/data.csv"]}
    writes = [write("artifacts", ["/o/report.md", "/o/chart.png", "/o/chart.png"], "tools"),
              write("artifacts", ["/o/data.csv"], "tools")]
    field = diff(before, after, writes=writes).field("artifacts")
    assert [c.key for c in field.changes if c.kind == "added"] == ["/o/chart.png", "/o/data.csv"]
    assert [c.key for c in field.changes if c.kind == "dropped"] == ["/o/report.md", "/o/chart.png"]
    assert "2 duplicate path(s) dropped" in field.note


def test_write_of_only_duplicates_shows_as_written_not_hidden():
    state = {"artifacts": ["/o/a.md"]}
    field = diff(state, dict(state), writes=[write("artifacts", ["/o/a.md"])]).field("artifacts")
    assert field.status == "written" and field.changed
    assert kinds(field) == [("dropped", "/o/a.md")]


# -- viewed_images ---------------------------------------------------------------


def image(seed: int, size: int = 64) -> dict:
    return {"base64": base64.b64encode(os.urandom(size) + bytes([seed])).decode(), "mime_type": "image/png"}


def test_empty_dict_clears_but_none_keeps():
    before = {"viewed_images": {"/u/a.png": image(1), "/u/b.png": image(2)}}
    cleared = merge_viewed_images(before["viewed_images"], {})
    kept = merge_viewed_images(before["viewed_images"], None)
    clear_diff = diff(before, {"viewed_images": cleared}, writes=[write("viewed_images", {})]).field("viewed_images")
    keep_diff = diff(before, {"viewed_images": kept}, writes=[write("viewed_images", None)]).field("viewed_images")
    assert clear_diff.note == CLEARED_NOTE
    assert kinds(clear_diff) == [("removed", "/u/a.png"), ("removed", "/u/b.png")]
    assert keep_diff.changes == [] and keep_diff.status == "written"
    assert "None rule keeps" in keep_diff.note


def test_images_added_changed_removed_by_hash_without_base64():
    a, b, b2, c = image(1), image(2), image(3), image(4)
    before = {"viewed_images": {"/u/a.png": a, "/u/b.png": b}}
    after = {"viewed_images": {"/u/b.png": b2, "/u/c.png": c}}
    field = diff(before, after).field("viewed_images")
    assert kinds(field) == [("removed", "/u/a.png"), ("changed", "/u/b.png"), ("added", "/u/c.png")]
    changed = field.changes[1]
    assert changed.before["sha256"] != changed.after["sha256"]
    text = dumps(diff(before, after))
    assert b["base64"] not in text and c["base64"] not in text


def test_clear_then_new_image_in_one_step():
    before = {"viewed_images": {"/u/a.png": image(1)}}
    new = {"/u/z.png": image(9)}
    writes = [write("viewed_images", {}, "clear"), write("viewed_images", new, "view")]
    field = diff(before, {"viewed_images": new}, writes=writes).field("viewed_images")
    assert field.note == CLEARED_NOTE + ", then 1 image(s) added"


def test_current_deerflow_image_shape():
    before = {"viewed_images": {}}
    after = {"viewed_images": {"/u/c.png": {"mime_type": "image/png", "size": 1234, "actual_path": "/x/c.png"}}}
    change = diff(before, after).field("viewed_images").changes[0]
    assert change.kind == "added" and "1234 bytes on disk" in change.summary


# -- todos -----------------------------------------------------------------------


def test_todo_status_transitions_for_both_shapes():
    old_shape = [{"id": "t1", "title": "Read", "status": "pending"}, {"id": "t2", "title": "Write", "status": "pending"}]
    new_shape = [{"content": "Plan", "status": "in_progress"}]
    before = {"todos": old_shape}
    after = {"todos": [{"id": "t1", "title": "Read", "status": "in_progress"},
                       {"id": "t2", "title": "Write", "status": "pending"}]}
    field = diff(before, after).field("todos")
    assert [c.summary for c in field.changes] == ["Read: pending -> in_progress"]
    field = diff({"todos": new_shape}, {"todos": [{"content": "Plan", "status": "completed"},
                                                  {"content": "Ship", "status": "pending"}]}).field("todos")
    assert [c.summary for c in field.changes] == ["Plan: in_progress -> completed", "added: Ship [pending]"]
    removed = diff({"todos": new_shape}, {"todos": []}).field("todos")
    assert kinds(removed) == [("removed", "Plan")]


# -- scalars, nested values, unknown and internal fields ---------------------------


def test_scalars_and_nested_paths():
    before = {"title": "Old", "thread_data": {"workspace_path": "/a/ws", "outputs_path": "/a/out"},
              "uploaded_files": [{"filename": "x.csv", "size": 10}], "goal": {"rounds": 1}}
    after = {"title": "New", "thread_data": {"workspace_path": "/b/ws", "outputs_path": "/a/out"},
             "uploaded_files": [], "summary_text": "short"}
    result = diff(before, after)
    assert result.field("title").changes[0].summary == "title: 'Old' -> 'New'"
    assert [c.key for c in result.field("thread_data").changes] == ["thread_data.workspace_path"]
    assert kinds(result.field("uploaded_files")) == [("removed", "uploaded_files[0]")]
    assert result.field("goal").status == "removed"
    assert result.field("summary_text").status == "added"
    assert result.field("summary_text").reducer == "replace"
    assert result.field("uploaded_files").reducer == "replace"


def test_a_field_that_appears_or_disappears_is_not_shown_as_none():
    result = diff({"goal": {"rounds": 1}}, {"title": "Dead-pixel check"})
    assert [c.summary for c in result.field("title").changes] == ["title set to 'Dead-pixel check'"]
    assert [c.summary for c in result.field("goal").changes] == ["goal removed (was {'rounds': 1})"]
    assert diff({"title": None}, {"title": "T"}).field("title").changes[0].summary == "title: None -> 'T'"


def test_internal_channels_only_on_request():
    before = {"title": "a", "branch:to:agent": None, "__start__": {"x": 1}}
    after = {"title": "a", "branch:to:agent": "go", "__start__": {"x": 2}}
    assert [f.field for f in diff(before, after).fields] == ["title"]
    shown = diff(before, after, internal=True)
    assert {f.field for f in shown.changed_fields} == {"branch:to:agent", "__start__"}
    assert all(f.internal for f in shown.changed_fields)


def test_unchanged_fields_are_collapsed_to_a_status():
    state = {"messages": [msg("human", "h1", "x")], "title": "t"}
    result = diff(state, json.loads(json.dumps(state)))
    assert result.changed_fields == []
    assert all(f.changes == [] and f.before is None for f in result.fields)


# -- large states ------------------------------------------------------------------


def test_two_multi_megabyte_states_diff_to_a_small_result():
    big = lambda seed: image(seed, size=1_500_000)  # noqa: E731 - ~2 MB of base64 each
    history = [msg("human", f"h{i}", "x" * 50_000) for i in range(20)]
    kept = big(1)
    before = {"messages": history, "viewed_images": {"/u/1.png": kept, "/u/2.png": big(2)}}
    after = {"messages": history + [msg("ai", "a-last", "y" * 200_000)],
             "viewed_images": {"/u/1.png": dict(kept), "/u/2.png": big(3), "/u/3.png": big(4)}}
    size_in = len(json.dumps(before)) + len(json.dumps(after))
    assert size_in > 8_000_000
    result = diff(before, after)
    text = dumps(result)
    assert len(text) < 10_000
    assert kinds(result.field("messages")) == [("added", "a-last")]
    assert kinds(result.field("viewed_images")) == [("changed", "/u/2.png"), ("added", "/u/3.png")]


# -- DeerFlow main's ledger reducers ---------------------------------------------------


def _entry(i, status="running"):
    return {"id": i, "description": i, "subagent_type": "general-purpose", "status": status, "created_at": "t0"}


def test_delegations_diff_by_id_with_the_terminal_rule_and_the_cap():
    from inspector.diff.fields import delegation_changes
    from inspector.schema.thread_state import merge_delegations

    before = [_entry(f"d{i:02d}") for i in range(49)] + [_entry("done", "completed")]
    writes = [[_entry("done"), _entry("d05", "failed"), _entry("new")]]
    after = merge_delegations(before, writes[0])
    changes, note = delegation_changes(before, after, writes)
    summaries = [c.summary for c in changes]
    assert "d05: running -> failed" in summaries and "added: new [running]" in summaries
    assert any(c.kind == "kept" and "stays completed" in c.summary for c in changes)
    assert "removed: d00" in summaries and "merge_delegations keeps the newest 50" in note


def test_skill_context_diff_names_rereads_normalisation_and_the_cap():
    from inspector.diff.fields import skill_changes
    from inspector.schema.thread_state import merge_skill_context

    before = [{"name": f"s{i}", "path": f"/s/{i}", "description": "d", "loaded_at": 1} for i in range(7)]
    before[1] = {**before[1], "body": "legacy"}
    writes = [[{"path": "/s/3", "name": "s3"}, {"path": "/s/new1"}, {"path": "/s/new2"}]]
    after = merge_skill_context(before, writes[0])
    changes, note = skill_changes(before, after, writes)
    summaries = [c.summary for c in changes]
    assert "read again, moved to the end: /s/3" in summaries and "added: /s/new1" in summaries
    assert "removed: /s/0" in summaries and any(s.startswith("normalised: /s/1") for s in summaries)
    assert "merge_skill_context keeps the newest 8" in note
    assert not any("/s/2" in s for s in summaries)  # only its position changed


def test_the_remove_all_marker_is_langgraphs():
    from langgraph.graph.message import REMOVE_ALL_MESSAGES

    from inspector.diff import fields

    assert fields.REMOVE_ALL_MESSAGES == REMOVE_ALL_MESSAGES
