"""A thread holding fake credentials never shows them: not in the pages, the downloads, the page caches,
nor any CLI output (table or JSON); the rest of each message is still shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from secret_store import KEPT, SECRETS, THREAD, write_secret_store
from ui_app import open_page

REPO_ROOT = Path(__file__).resolve().parent.parent
ARTIFACT_TEXT = "# Deploy log\n\nDB_PASSWORD={pw}\nAll services are up.\n"


@pytest.fixture(scope="module")
def secret_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("secrets")
    db = write_secret_store(folder / "secrets.db")
    outputs = folder / "threads" / THREAD / "user-data" / "outputs"
    outputs.mkdir(parents=True)
    (outputs / "deploy-log.md").write_text(ARTIFACT_TEXT.format(pw=SECRETS[-2]))
    return db


def leaked(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("INSPECTOR_")}
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, cwd=REPO_ROOT,
                          env={**environ, **env}, timeout=120)


def checkpoint_ids(db: Path) -> list[str]:
    out = cli("timeline", "--db", str(db), THREAD, "--json")
    return [c["checkpoint_id"] for c in json.loads(out.stdout)["checkpoints"]]


# -- CLI ------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["threads", "timeline", "state", "diff", "replay", "sizes", "health", "artifacts",
                                     "images"])
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_cli_output_masks_every_secret(secret_db, command, as_json):
    args = [command, "--db", str(secret_db)] + ([] if command == "threads" else [THREAD])
    out = cli(*args, *(["--json"] if as_json else []))
    assert out.returncode in (0, 1), out.stderr  # health exits 1 when it raises a flag
    assert leaked(out.stdout + out.stderr) == []
    if as_json:
        json.loads(out.stdout)


def test_cli_state_keeps_the_rest_of_each_message(secret_db):
    table = cli("state", "--db", str(secret_db), THREAD)
    assert table.returncode == 0 and "Deploy with [redacted api-key" in table.stdout  # the title row
    out = cli("state", "--db", str(secret_db), THREAD, "--json")
    assert out.returncode == 0 and all(words in out.stdout for words in KEPT)
    state = json.loads(out.stdout)
    assert "eu-west-1" in json.dumps(state["values"]["messages"])  # a tool call's other arguments


def test_cli_masks_pending_writes_and_metadata_on_every_checkpoint(secret_db):
    ids = checkpoint_ids(secret_db)  # newest first
    for checkpoint in ids:
        out = cli("state", "--db", str(secret_db), THREAD, "--checkpoint", checkpoint, "--json", "--internal")
        assert out.returncode == 0 and leaked(out.stdout) == []
    for checkpoint in ids[:-1]:
        out = cli("diff", "--db", str(secret_db), THREAD, "--to", checkpoint, "--json")
        assert out.returncode == 0 and leaked(out.stdout) == []


def test_cli_reveal_needs_the_operators_permission(secret_db):
    refused = cli("state", "--db", str(secret_db), THREAD, "--reveal")
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.strip().splitlines() == ["error: revealing secrets is turned off (set allow_reveal to allow it)"]
    allowed = cli("state", "--db", str(secret_db), THREAD, "--reveal", "--json", INSPECTOR_ALLOW_REVEAL="true")
    assert allowed.returncode == 0 and SECRETS[0] in allowed.stdout


def test_cli_operator_patterns_apply(secret_db):
    out = cli("state", "--db", str(secret_db), THREAD, "--json", INSPECTOR_REDACT_PATTERNS="eu-west-[0-9]")
    assert out.returncode == 0 and "eu-west-1" not in out.stdout and "[redacted pattern" in out.stdout


# -- the dashboard (AppTest) ------------------------------------------------------------


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
    connection.settings.clear()
    yield secret_db
    connection.settings.clear()


def test_thread_page_masks_secrets_on_every_checkpoint_with_every_toggle_on(app_on_secrets):
    pages = []
    for checkpoint in checkpoint_ids(app_on_secrets):  # newest first
        at = open_page("thread", thread=THREAD, checkpoint=checkpoint)
        for key in ("show_internal", "show_writes", "show_raw"):
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


def test_audit_log_never_holds_a_secret(secret_db, tmp_path):
    log = tmp_path / "audit.jsonl"
    env = {"INSPECTOR_AUDIT_LOG": str(log), "INSPECTOR_ALLOW_REVEAL": "true"}
    for args in (("state", THREAD), ("state", THREAD, "--reveal"), ("diff", THREAD), ("replay", THREAD),
                 ("artifacts", THREAD)):
        out = cli(args[0], "--db", str(secret_db), *args[1:], "--json", **env)
        assert out.returncode in (0, 1), out.stderr
    text = log.read_text()
    assert len(text.splitlines()) == 6 and '"action": "reveal"' in text.replace('":"', '": "')
    assert leaked(text) == []


# -- downloads (a real browser) ------------------------------------------------------------


@pytest.mark.browser
def test_downloads_are_masked(secret_db, streamlit_app, page, tmp_path):
    from browser_helpers import choose_panel, wait_for_app

    base = streamlit_app(f"sqlite:///{secret_db}")
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
