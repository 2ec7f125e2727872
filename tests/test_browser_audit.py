"""Exports through the browser leave a line in the audit trail (the download buttons' data runs when clicked)."""

from __future__ import annotations

import json

import pytest

from browser_helpers import wait_for_app

pytestmark = pytest.mark.browser


def test_downloads_are_recorded_as_exports(page, streamlit_app, demo_db, tmp_path):
    log = tmp_path / "audit.log"
    base = streamlit_app(db_url=f"sqlite:///{demo_db}", env={"INSPECTOR_AUDIT_LOG": str(log)})
    page.goto(f"{base}/thread?thread=demo-research")
    wait_for_app(page)
    views = [json.loads(x) for x in log.read_text().splitlines()]
    assert [v["action"] for v in views] == ["thread_view", "checkpoint_view"]
    with page.expect_download() as download:
        page.get_by_role("button", name="Download state as JSON").click()
    saved = json.loads(open(download.value.path()).read())
    assert saved["thread_id"] == "demo-research"
    page.get_by_role("tab", name="Diff vs parent").click()
    wait_for_app(page)
    with page.expect_download():
        page.get_by_role("button", name="Download the diff as JSON").click()
    page.wait_for_timeout(500)
    records = [json.loads(x) for x in log.read_text().splitlines()]
    exports = [r for r in records if r["action"] == "export"]
    assert [r["what"] for r in exports] == ["state json", "diff json"]
    checkpoint = views[1]["checkpoint"]
    assert all(r["thread"] == "demo-research" and r["checkpoint"] == checkpoint and r["user"] == "anonymous"
               for r in exports)
    assert exports[1]["from_checkpoint"]
    assert "EV battery" not in log.read_text()  # identifiers only, never the state
