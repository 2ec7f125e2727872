"""A thread holding fake credentials never shows them in any CLI output (table or JSON), nor in the audit
trail; the rest of each message is still shown. The pages and the downloads: test_ui_redaction.py and
test_browser_redaction.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from secret_store import KEPT, SECRETS, THREAD, checkpoint_ids, cli, leaked


@pytest.fixture(scope="module")
def secret_db(secret_folder_db) -> Path:
    return secret_folder_db


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



def test_a_store_url_in_an_error_line_is_masked_once(capsys):
    """The URL an error names is shown with its password as ``***`` (``display_url``), and that ``***`` is not
    masked again as a secret; one given already masked reads the same. A password is never shown."""
    from inspector.cli import main
    from inspector.safety.redaction import Redactor

    for url, shown in (("foo://ro:s3cret-pw@db:5432/app", "'foo://ro:***@db:5432/app'"),
                       ("foo://ro:***@db:5432/app", "'foo://ro:***@db:5432/app'"),
                       ("postgresql://ro:s3cret-pw@[::1/app", "'postgresql://ro:***@[::1/app'")):
        assert main(["threads", "--db", url, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert shown in err and "s3cret" not in err and "[redacted" not in err, err
    redactor = Redactor()
    assert redactor.text("at postgresql://ro:***@db/app") == "at postgresql://ro:***@db/app"
    for text in ("postgresql://ro:****@db/app", "postgresql://ro:***x@db/app", "postgresql://ro:s3cret-pw@db/app"):
        assert "[redacted url-password" in redactor.text(text) and "@db/app" in redactor.text(text), text
