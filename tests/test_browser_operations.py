"""What a person sees: the Retention page, two runs compared on the Diff page, and a bundle's thread page."""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from browser_helpers import shot, wait_for_app
from bundle_helpers import CASE, FAKE_KEY, write_support_case
from playwright.sync_api import expect
from rerun_helpers import FIRST, SECOND

from inspector.bundle import write_bundle
from inspector.settings import Settings
from inspector.store import open_store


@pytest.fixture(scope="module")
def two_runs_url(streamlit_app, demo_two_runs_db):
    return streamlit_app(f"sqlite:///{demo_two_runs_db}")


def test_retention_page_shows_the_breaks_the_chart_and_the_statements(page, two_runs_url):
    page.goto(f"{two_runs_url}/retention?keep=2")
    wait_for_app(page, timeout=120_000)
    chart = page.locator("[data-testid='stVegaLiteChart']")
    chart.wait_for(timeout=60_000)
    assert chart.locator("canvas, svg").count() > 0
    broken = page.locator("[data-testid='stAlert']").filter(has_text="demo-delta: `messages` is stored as deltas")
    expect(broken).to_have_count(1, timeout=30_000)
    code = page.locator("[data-testid='stCode']").filter(has_text="BEGIN IMMEDIATE;")
    expect(code).to_have_count(1, timeout=30_000)  # the statements are drawn below the chart, after it
    shot(page, "retention-page")
    code.hover()
    assert code.locator("button").count() >= 1  # the copy button


def test_two_runs_compared_on_the_diff_page(page, two_runs_url):
    page.goto(f"{two_runs_url}/diff?thread={FIRST}&against={SECOND}")
    wait_for_app(page, timeout=120_000)
    page.get_by_text("matched by content although their ids differ").first.wait_for(timeout=60_000)
    assert page.get_by_text("lithium prices", exact=False).count() >= 1
    shot(page, "diff-across-threads")


def test_a_bundle_opened_with_db_shows_its_pictures(page, streamlit_app, tmp_path_factory):
    folder = tmp_path_factory.mktemp("b-bundle")
    write_support_case(folder / "store.db", folder)
    bundle = tmp_path_factory.mktemp("desk") / "case.zip"
    with open_store(str(folder / "store.db")) as store:
        write_bundle(store, CASE, bundle, settings=Settings())
    url = streamlit_app(str(bundle))
    page.goto(f"{url}/thread?thread={CASE}")
    wait_for_app(page, timeout=120_000)
    page.locator("[data-testid='stImage'] img").nth(1).wait_for(timeout=60_000)  # pictures render one by one
    assert page.locator("[data-testid='stImage'] img").count() >= 2
    assert page.get_by_text("A support bundle, read from a private copy.").count() == 1
    shot(page, "bundle-thread-page")


def test_the_export_button_downloads_a_masked_bundle_and_records_it(page, streamlit_app, tmp_path_factory):
    folder = tmp_path_factory.mktemp("b-export")
    write_support_case(folder / "store.db", folder)
    log = folder / "audit.log"
    url = streamlit_app(str(folder / "store.db"), env={"INSPECTOR_AUDIT_LOG": str(log)})
    page.goto(f"{url}/thread?thread={CASE}")
    wait_for_app(page, timeout=120_000)
    page.get_by_role("button", name="Export thread").click()
    dialog = page.locator("[data-testid='stDialog']")
    expect(dialog).to_contain_text("The bundle holds", timeout=120_000)
    with page.expect_download(timeout=120_000) as download:
        dialog.get_by_role("button", name=re.compile("Download the bundle")).click()
    saved = folder / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == f"{CASE}-bundle.zip"
    with zipfile.ZipFile(saved) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    assert "checkpoints.db" in members and len(members) == 5
    assert [name for name, data in members.items() if FAKE_KEY.encode() in data] == []
    manifest = json.loads(members["manifest.json"])
    assert manifest["redaction"]["enabled"] and manifest["created_by"] == "anonymous"
    page.wait_for_timeout(300)
    exports = [json.loads(x) for x in log.read_text().splitlines() if '"export"' in x]
    assert [(e["thread"], e["what"], e["masked"], e["user"]) for e in exports] == [
        (CASE, "support bundle", True, "anonymous")]
