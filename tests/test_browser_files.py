"""Files a support person opens, in Chromium at 1440x900 and 1024x768: an uploaded file previews and downloads
like an artifact, a message's attachment opens the same way, and Export thread says what the bundle holds."""

from __future__ import annotations

import json
import re
import zipfile

import pytest
from browser_helpers import layout_shot, wait_for_app
from playwright.sync_api import expect

from inspector.store import open_store

VIEWPORTS = {"1440": {"width": 1440, "height": 900}, "1024": {"width": 1024, "height": 768}}
expect.set_options(timeout=30_000)  # a busy machine: other suites run beside this one


@pytest.fixture(scope="module")
def base_url(demo_db, streamlit_app):
    return streamlit_app(db_url=f"sqlite:///{demo_db}")  # the server the other usability tests use


@pytest.fixture(scope="module")
def with_uploads(demo_db) -> str:
    """demo-research's newest root checkpoint whose ``uploaded_files`` is not empty (a later turn clears it)."""
    with open_store(str(demo_db)) as store:
        rows = [r for r in store.timeline("demo-research") if not r.checkpoint_ns]
        return max((r for r in rows if store.state("demo-research", r.checkpoint_id).values.get("uploaded_files")),
                   key=lambda r: r.step).checkpoint_id


@pytest.fixture(params=list(VIEWPORTS))
def sized(page, request):
    page.set_viewport_size(VIEWPORTS[request.param])
    page.width = VIEWPORTS[request.param]["width"]
    return page


def test_uploads_preview_and_download_and_the_export_says_what_it_holds(sized, base_url, with_uploads, demo_db,
                                                                         tmp_path):
    page, uploads = sized, demo_db.parent / "threads" / "demo-research" / "user-data" / "uploads"
    page.goto(f"{base_url}/thread?thread=demo-research&checkpoint={with_uploads}")
    wait_for_app(page, timeout=120_000)
    # uploaded_files: a table of the files on disk, the first one previewed (a CSV, as a table) with a download
    preview = page.locator(".st-key-upload-preview")
    expect(preview.locator("[data-testid='stDataFrame']")).to_be_visible(timeout=120_000)
    preview.scroll_into_view_if_needed()
    with page.expect_download(timeout=60_000) as download:
        preview.get_by_role("button", name="Download", exact=True).click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == "cell_prices.csv" and saved.read_bytes() == (uploads / "cell_prices.csv").read_bytes()
    if page.width == 1024:
        page.set_viewport_size({"width": 1024, "height": 1400})  # the whole field in one picture, at 1024 px
        wait_for_app(page)
        layout_shot(page, ".st-key-field-uploaded_files", "upload-preview-1024", tmp_path)
        page.set_viewport_size(VIEWPORTS["1024"])
    # the user's message names the same files: one opens on request, its Markdown as text with a download
    page.get_by_text("Open field_notes.md", exact=True).first.click()
    wait_for_app(page, timeout=60_000)
    opened = page.locator("[class*='st-key-attachment-']").first
    first_line = (uploads / "field_notes.md").read_text().splitlines()[0].lstrip("# ")
    expect(opened).to_contain_text(first_line)
    expect(opened.get_by_role("button", name="Download", exact=True)).to_be_visible()
    # Export thread: what the bundle holds, then that same zip
    page.get_by_role("button", name="Export thread").click()
    dialog = page.locator("[data-testid='stDialog']")
    summary = dialog.locator(".st-key-bundle-summary")
    expect(summary).to_contain_text("The bundle holds", timeout=120_000)
    expect(summary).to_contain_text("Values masked by the redaction rules")
    said = summary.inner_text()
    with page.expect_download(timeout=60_000) as download:
        dialog.get_by_role("button", name=re.compile("Download the bundle")).click()
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    with zipfile.ZipFile(saved) as archive:
        manifest = json.loads(archive.read("manifest.json"))
    assert f"{manifest['checkpoints']:,} checkpoint(s) and {manifest['writes']:,} write(s)" in said
    assert f"{len(manifest['user_data']['files'])} file(s)" in said and "cell_prices.csv" in said
    assert ("Nothing left out." in said) == (not manifest["left_out"])
    if page.width == 1024:
        layout_shot(page, "[data-testid='stDialog'] [role='dialog']", "export-summary-1024", tmp_path)
