"""The hostile corpus's encrypted thread (``corpus/hostile_formats.py``) read with its key: a blob too short to be
ciphertext and a write the key does not authenticate are each one clear line; every other checkpoint decrypts,
masked; the CLI and the thread page go on and show no secret."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus.hostile_formats import ENCRYPTED, ENCRYPTED_KEY, ENCRYPTED_SECRET
from test_retention_sqlite import cli

from inspector.state.encryption import encryption_line
from inspector.store import encryption, open_store

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def encrypted_db(tmp_path_factory) -> Path:
    return corpus.write_corpus(tmp_path_factory.mktemp("formats"), cases=["encrypted-damage"])


@pytest.fixture
def keyed(monkeypatch):
    for name in [k for k in os.environ if k.startswith("INSPECTOR_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv(encryption.KEY_ENV, ENCRYPTED_KEY)
    encryption.reset()
    yield
    encryption.reset()


def test_each_damaged_value_is_one_line_and_the_rest_decrypts(encrypted_db, keyed):
    with open_store(str(encrypted_db)) as store:
        rows = store.timeline(ENCRYPTED)
        newest = store.state(ENCRYPTED)
        states = list(store.iter_states(ENCRYPTED))
    [short] = newest.problems_for(None)
    assert "not valid ciphertext: 20 bytes, shorter than the 32 bytes of nonce and tag" in short.message
    assert newest.values == {} and "\n" not in encryption_line(newest)
    readable = [s for s in states if not s.problems_for(None)]  # the input checkpoint (step -1) holds no field yet
    assert len(readable) == len(rows) - 1 and any("messages" in s.values for s in readable)
    damaged = [p for s in states for p in s.problems if "does not decrypt with the AES key given" in p.message]
    assert len(damaged) == 1 and damaged[0].message.startswith("pending write: encrypted value (msgpack+aes)")


@pytest.mark.parametrize("command", ["state", "timeline", "sizes", "replay", "health", "delta-chains"])
def test_the_cli_goes_on_with_the_key_and_shows_no_secret(encrypted_db, keyed, command):
    argv = [command, "--db", str(encrypted_db)] + ([] if command == "health" else [ENCRYPTED])
    done = cli(*argv)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stderr and ENCRYPTED_SECRET not in done.stdout + done.stderr
    if command == "state":
        assert [line for line in done.stdout.splitlines() if line.startswith("encrypted:")] == [
            "encrypted: The whole checkpoint is one encrypted value that stays opaque: not valid ciphertext: 20 bytes, "
            "shorter than the 32 bytes of nonce and tag."]


def test_an_older_checkpoint_shows_its_decrypted_message_masked(encrypted_db, keyed):
    with open_store(str(encrypted_db)) as store:
        with_message = next(s for s in store.iter_states(ENCRYPTED) if s.values.get("messages"))
    done = cli("state", "--db", str(encrypted_db), ENCRYPTED, "--checkpoint", with_message.checkpoint_id)
    assert done.returncode == 0 and "deploy with api_key=" in done.stdout and ENCRYPTED_SECRET not in done.stdout


def test_the_bundle_keeps_the_damaged_rows_as_stored(encrypted_db, keyed, tmp_path):
    out = tmp_path / "encrypted.zip"
    done = cli("bundle", ENCRYPTED, "--db", str(encrypted_db), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(out) as archive:
        assert all(ENCRYPTED_SECRET.encode() not in archive.read(n) for n in archive.namelist())


def test_the_thread_page_goes_on_with_the_key(encrypted_db, keyed, monkeypatch):
    from test_ui_redaction import rendered
    from ui_app import open_page

    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{encrypted_db}")
    connection.settings.clear()
    try:
        at = open_page("thread", thread=ENCRYPTED)
    finally:
        connection.settings.clear()
    assert not at.exception, at.exception
    page = rendered(at)
    assert ENCRYPTED_SECRET not in page and "not valid ciphertext" in page
