"""AppTest: the diff page's deep links and the thread page's "Diff vs parent" panel."""

from __future__ import annotations

import pytest
from ui_app import all_text, open_page

from inspector.diff import CLEARED_NOTE, diff_checkpoints
from inspector.store import open_store

pytestmark = pytest.mark.usefixtures("app_on_demo")


@pytest.fixture(scope="module")
def store(demo_db):
    with open_store(f"sqlite:///{demo_db}") as opened:
        yield opened


def clearing_step(store):
    for row in sorted(store.timeline("demo-vision"), key=lambda r: r.checkpoint_id):
        if row.parent_checkpoint_id and not row.checkpoint_ns:
            field = diff_checkpoints(store, "demo-vision", None, row.checkpoint_id).field("viewed_images")
            if field is not None and field.note == CLEARED_NOTE:
                return row
    pytest.fail("no clearing step")


def test_thread_page_panel_shows_this_checkpoint_against_its_parent(store):
    row = clearing_step(store)
    at = open_page("thread", thread="demo-vision", checkpoint=row.checkpoint_id)
    assert not at.exception, at.exception
    assert "Diff vs parent" in at.segmented_control(key="thread_panel").options
    assert CLEARED_NOTE not in [i.value for i in at.info]  # not computed until the panel is picked
    at.segmented_control(key="thread_panel").set_value("Diff vs parent").run()
    assert CLEARED_NOTE in [i.value for i in at.info]
    assert any(s.value.startswith("**Replay matches** · Replay through the reducers matches the stored state (")
               and "0 unverified, 0 mismatched" in s.value for s in at.success)
    assert "**What the nodes wrote**" in all_text(at)


def test_diff_page_deep_link_across_fork_branches(store):
    rows = [r for r in store.timeline("demo-time-travel") if not r.checkpoint_ns]
    parents = {r.parent_checkpoint_id for r in rows}
    a, b = sorted((r for r in rows if r.checkpoint_id not in parents), key=lambda r: r.checkpoint_id)
    at = open_page("diff", thread="demo-time-travel", **{"from": a.checkpoint_id, "to": b.checkpoint_id})
    assert not at.exception, at.exception
    text = all_text(at)
    assert "not a checkpoint and its parent" in text
    assert "**messages**" in text and "French" in text
    assert not at.success and not at.error  # no replay check between branches
    assert at.query_params["from"] == [a.checkpoint_id] or at.query_params["from"] == a.checkpoint_id


def test_diff_page_defaults_to_newest_against_its_parent(store):
    newest = max((r for r in store.timeline("demo-research") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    at = open_page("diff", thread="demo-research")
    assert not at.exception, at.exception
    picked = {s.label: s.value for s in at.selectbox}  # From sits left of To
    assert [s.label for s in at.selectbox] == ["From (the earlier checkpoint)", "To (the later checkpoint)"]
    assert picked["To (the later checkpoint)"] == newest.checkpoint_id
    assert picked["From (the earlier checkpoint)"] == newest.parent_checkpoint_id
    assert "(parent → child)" in all_text(at)


def test_diff_page_subgraph_namespace(store):
    ns = next(r.checkpoint_ns for r in store.timeline("demo-subgraph") if r.checkpoint_ns)
    at = open_page("diff", thread="demo-subgraph", ns=ns)
    assert not at.exception, at.exception
    assert at.selectbox[0].value == ns
    assert any(s.value.startswith("**Replay matches** · Replay through the reducers matches the stored state (")
               and "0 unverified, 0 mismatched" in s.value for s in at.success)


def test_diff_page_unknown_thread_is_an_error_not_an_exception():
    at = open_page("diff", thread="no-such-thread")
    assert not at.exception
    assert any("no thread 'no-such-thread'" in e.value for e in at.error)


def test_a_written_string_is_shown_as_text_not_parsed_as_json(store):
    newest = max((r for r in store.timeline("demo-bloated") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    at = open_page("diff", thread="demo-bloated", to=newest.checkpoint_id)
    assert not at.exception, at.exception
    assert "Dead-pixel check on five sensor scans" in [t.value for t in at.text]
    assert "title set to 'Dead-pixel check on five sensor scans'" in all_text(at)
    assert "None" not in all_text(at)


def test_unknown_ids_in_a_deep_link_are_named_and_the_newest_step_is_shown(store):
    newest = max((r for r in store.timeline("demo-research") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    at = open_page("diff", thread="demo-research", **{"from": "xx", "to": "yy"})
    assert not at.exception, at.exception
    assert len(at.main.warning) == 1 and "to 'yy', from 'xx'" in at.main.warning[0].value
    assert at.query_params["to"] in (newest.checkpoint_id, [newest.checkpoint_id])
    assert at.query_params["from"] in (newest.parent_checkpoint_id, [newest.parent_checkpoint_id])
