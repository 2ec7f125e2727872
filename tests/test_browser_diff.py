"""The diff page in a real Chromium against the real demo store."""

from __future__ import annotations

import pytest
from browser_helpers import shot, wait_for_app

from inspector.diff import CLEARED_NOTE, diff_checkpoints
from inspector.store import open_store


def step_where(demo_db, thread_id, predicate):
    """The checkpoint whose diff against its parent satisfies ``predicate``."""
    with open_store(str(demo_db)) as store:
        for row in sorted(store.timeline(thread_id), key=lambda r: r.checkpoint_id):
            if row.checkpoint_ns == "" and row.parent_checkpoint_id and predicate(
                    diff_checkpoints(store, thread_id, None, row.checkpoint_id)):
                return row
    pytest.fail(f"no such step in {thread_id}")


def open_diff(page, base_url, thread_id, to_id):
    page.goto(f"{base_url}/diff?thread={thread_id}&to={to_id}")
    wait_for_app(page)
    page.get_by_role("button", name="Download the diff as JSON").wait_for()  # the last element of the diff


def test_vision_step_reads_cleared_by_the_empty_dict_rule(page, streamlit_app, demo_db):
    row = step_where(demo_db, "demo-vision",
                     lambda d: d.field("viewed_images") is not None and d.field("viewed_images").note == CLEARED_NOTE)
    open_diff(page, streamlit_app(f"sqlite:///{demo_db}"), "demo-vision", row.checkpoint_id)
    alerts = page.locator("[data-testid='stAlert']")
    assert any(CLEARED_NOTE in text for text in alerts.all_inner_texts())
    body = page.locator("[data-testid='stMainBlockContainer']").inner_text()
    assert "viewed_images" in body and "merge_viewed_images" in body
    assert "removed: /mnt/user-data/uploads/architecture.png" in body
    assert "Replay through the reducers matches the stored state (" in body and "0 mismatched)" in body
    assert f"…{row.checkpoint_id[-12:]}" in body
    shot(page, "diff-vision-cleared")


def test_research_step_shows_duplicate_artifact_dropped(page, streamlit_app, demo_db):
    row = step_where(demo_db, "demo-research",
                     lambda d: d.field("artifacts") is not None
                     and any(c.kind == "dropped" for c in d.field("artifacts").changes))
    open_diff(page, streamlit_app(f"sqlite:///{demo_db}"), "demo-research", row.checkpoint_id)
    body = page.locator("[data-testid='stMainBlockContainer']").inner_text()
    assert "dropped as a duplicate: /mnt/user-data/outputs/report.md" in body
    assert "added: /mnt/user-data/outputs/price_trend.png" in body
    assert "1 duplicate path(s) dropped by merge_artifacts" in body
    assert "What the nodes wrote" in body and "artifacts" in body
    shot(page, "diff-research-dropped")


def test_unknown_thread_is_a_clear_message(page, streamlit_app, demo_db):
    base = streamlit_app(f"sqlite:///{demo_db}")
    page.goto(f"{base}/diff?thread=no-such-thread")
    wait_for_app(page)
    alerts = page.locator("[data-testid='stAlert']")
    alerts.first.wait_for()
    assert any("no thread 'no-such-thread'" in text for text in alerts.all_inner_texts())


def test_altered_step_carries_the_mismatch_mark(page, streamlit_app, demo_db, tmp_path_factory):
    import shutil

    from test_replay import alter_todos

    with open_store(str(demo_db)) as store:
        rows = sorted((r for r in store.timeline("demo-research") if not r.checkpoint_ns), key=lambda r: r.checkpoint_id)
    target = [r for r in rows if "todos" in r.write_channels][1]
    copy = tmp_path_factory.mktemp("altered-ui") / "altered.db"
    shutil.copyfile(demo_db, copy)
    alter_todos(copy, "demo-research", target.checkpoint_id)

    page.goto(f"{streamlit_app(str(copy))}/diff?thread=demo-research&to={target.checkpoint_id}&replay=1")
    wait_for_app(page)
    page.locator("[data-testid='stDataFrame']").wait_for()
    alerts = " ".join(page.locator("[data-testid='stAlert']").all_inner_texts())
    assert "replay does not match" in alerts and "todos[0].status" in alerts
    assert f"1 of {len(rows)} step(s): replay does not match" in alerts
    shot(page, "diff-replay-mismatch")
