"""A thread holding fake credentials never shows them in the pages (AppTest) nor in the page caches; the
rest of each message is still shown."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from secret_store import KEPT, SECRETS, THREAD, checkpoint_ids, leaked
from ui_app import open_page


@pytest.fixture(scope="module")
def secret_db(secret_folder_db) -> Path:
    return secret_folder_db


def rendered(at) -> str:
    """Everything the page sends to the browser: every element's message, dataframes included."""
    parts: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        children = getattr(node, "children", None) or {}
        for child in (children.values() if isinstance(children, dict) else children):
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


@pytest.fixture
def app_on_secrets(secret_db, monkeypatch):
    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{secret_db}")
    for name in [k for k in os.environ if k.startswith("INSPECTOR_") and k != "INSPECTOR_DB"]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("INSPECTOR_PROFILE", "deerflow")  # its files are DeerFlow's; nothing else in it says so
    connection.settings.clear()
    yield secret_db
    connection.settings.clear()


def test_thread_page_masks_secrets_on_every_checkpoint_with_every_toggle_on(app_on_secrets):
    pages = []
    for checkpoint in checkpoint_ids(app_on_secrets):  # newest first
        at = open_page("thread", thread=THREAD, checkpoint=checkpoint)
        for key in ("show_internal", "show_metadata", "show_writes", "show_raw"):
            at.toggle(key=key).set_value(True)
        at.run()
        assert not at.exception, at.exception
        page = rendered(at)
        assert leaked(page) == [], checkpoint
        assert "[redacted " in page
        pages.append(page)
    assert KEPT[0] in pages[0] and KEPT[2] in pages[0]  # the newest checkpoint shows the conversation
    assert all(t.label != "Reveal secrets" for t in at.toggle)


def test_thread_list_diff_page_and_health_mask_secrets(app_on_secrets):
    threads = open_page("threads")
    assert not threads.exception and leaked(rendered(threads)) == []
    assert "Deploy with [redacted api-key" in rendered(threads)
    diff = open_page("diff", thread=THREAD, replay="1")
    assert not diff.exception and leaked(rendered(diff)) == []
    assert "deployed; ANTHROPIC_API_KEY=[redacted api-key" in rendered(diff)
    health = open_page("health")
    assert not health.exception and leaked(rendered(health)) == []


def test_artifact_preview_masks_the_file(app_on_secrets):
    at = open_page("thread", thread=THREAD)
    page = rendered(at)
    assert "All services are up." in page and "redacted password · ~20 chars" in page  # "[" is escaped as Markdown
    assert leaked(page) == []


def test_page_caches_hold_masked_values(app_on_secrets):
    from inspector.store import open_store
    from inspector.ui import data, diff_view

    at = open_page("thread", thread=THREAD)
    assert not at.exception
    with open_store(f"sqlite:///{app_on_secrets}") as store:
        rows = store.timeline(THREAD)
        masked_rows = data._timeline(store.url, THREAD, 0, store)
        shown = [data._state(store.url, THREAD, "", r.checkpoint_id, 0, store) for r in rows]
        steps = diff_view.cached_thread_replay(store, THREAD, "")
    assert leaked(repr(masked_rows)) == [] and leaked(repr(shown)) == [] and leaked(repr(steps)) == []
    assert any("[redacted" in repr(s.values) for s in shown)


def test_reveal_is_offered_only_when_the_operator_allows_it_and_is_audited(app_on_secrets, monkeypatch, tmp_path):
    from inspector.ui import connection

    log = tmp_path / "audit.jsonl"
    monkeypatch.setenv("INSPECTOR_ALLOW_REVEAL", "true")
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    connection.settings.clear()
    at = open_page("thread", thread=THREAD)
    toggle = next(t for t in at.toggle if t.label == "Reveal secrets")
    assert leaked(rendered(at)) == []
    toggle.set_value(True)
    at.run()
    assert not at.exception
    assert SECRETS[0] in rendered(at)
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    reveals = [line for line in lines if line["action"] == "reveal"]
    assert len(reveals) == 1 and reveals[0]["thread"] == THREAD
    assert leaked(log.read_text()) == []  # the trail names what was revealed, never the values

