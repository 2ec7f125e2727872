"""The access gate with Streamlit's real login machinery, and exports recorded in the audit trail."""

from __future__ import annotations

import json
from pathlib import Path

from browser_helpers import choose_panel, wait_for_app
from corpus.hostile_content import is_offsite
from playwright.sync_api import expect


def test_downloads_are_recorded_as_exports(page, streamlit_app, demo_db, tmp_path):
    log = tmp_path / "audit.log"
    base = streamlit_app(db_url=f"sqlite:///{demo_db}", env={"INSPECTOR_AUDIT_LOG": str(log)})
    page.goto(f"{base}/thread?thread=demo-research")
    wait_for_app(page)
    views = [json.loads(x) for x in log.read_text().splitlines()]
    assert [v["action"] for v in views] == ["thread_view", "checkpoint_view"]
    with page.expect_download() as download:
        page.get_by_role("button", name="Download state as JSON").click()
    saved = json.loads(Path(download.value.path()).read_text())
    assert saved["thread_id"] == "demo-research"
    choose_panel(page, "Diff vs parent")
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


def test_with_a_login_configured_the_browser_gets_only_the_login_prompt(page, streamlit_app, demo_db, tmp_path):
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(
        '[auth]\nredirect_uri = "http://127.0.0.1:1/oauth2callback"\ncookie_secret = "test-only"\n'
        'client_id = "inspector"\nclient_secret = "test-only"\n'
        'server_metadata_url = "http://127.0.0.1:1/.well-known/openid-configuration"\n'
        '[inspector]\nallowed_users = ["corp.org"]\n')
    base = streamlit_app(db_url=f"sqlite:///{demo_db}", env={"STREAMLIT_SECRETS_FILES": str(secrets)})
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    for path in ("/", "/thread?thread=demo-research", "/health"):
        page.goto(base + path)
        wait_for_app(page)
        expect(page.get_by_role("button", name="Log in")).to_have_count(1)
        main = page.locator("[data-testid='stMain']").inner_text()
        assert "Log in to open this dashboard." in main
        assert "demo-research" not in main and page.locator("[data-testid='stDataFrame']").count() == 0
        sidebar = page.locator("[data-testid='stSidebar']")
        assert not sidebar.count() or "Store (" not in sidebar.inner_text()  # not even the store
    assert [u for u in seen if is_offsite(u, base)] == []
