"""A thread holding fake credentials: the files downloaded from its pages in Chromium hold none of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from browser_helpers import choose_panel, wait_for_app
from secret_store import KEPT, THREAD, leaked


@pytest.fixture(scope="module")
def secret_db(secret_folder_db) -> Path:
    return secret_folder_db


def test_downloads_are_masked(secret_db, streamlit_app, page, tmp_path):
    # the secret store's files are DeerFlow's, though nothing in its channels says so: name its profile
    base = streamlit_app(f"sqlite:///{secret_db}", env={"INSPECTOR_PROFILE": "deerflow"})
    page.goto(f"{base}/thread?thread={THREAD}")
    wait_for_app(page)
    texts = []
    for label in ("Download state as JSON", "Download the diff as JSON", "Download"):
        button = page.get_by_role("button", name=label, exact=True).first
        if label == "Download the diff as JSON":
            choose_panel(page, "Diff vs parent")
        with page.expect_download() as info:
            button.click()
        path = tmp_path / info.value.suggested_filename
        info.value.save_as(path)
        texts.append(path.read_text())
        if label == "Download the diff as JSON":
            choose_panel(page, "State")
    state, diff, artifact = texts
    assert leaked(state) == [] and leaked(diff) == [] and leaked(artifact) == []
    assert KEPT[0] in state and "[redacted api-key" in state
    assert "All services are up." in artifact and "[redacted password" in artifact
    assert leaked(page.content()) == []
