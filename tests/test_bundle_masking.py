"""A bundle is masked with the views' own rules, inside the stored bytes, wherever a value can sit.

Two stores: the thread with fake credentials everywhere that the redaction tests
use (written by a real LangGraph graph), and a checkpoint put through
SqliteSaver with secrets where no message would hold them: a channel named
like a secret, raw bytes, a checkpoint header, a write stored as bytes, run
metadata, and a binary file.
"""

from __future__ import annotations

import sqlite3
import zipfile
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite import SqliteSaver
from secret_store import KEPT, SECRETS, THREAD, write_secret_store

from inspector.bundle import write_bundle
from inspector.bundle.writer import BINARY_SECRET
from inspector.profiles.media_report import media_report
from inspector.safety.redaction import redactor_for
from inspector.settings import Settings
from inspector.store import open_store

SETTINGS = Settings(redact_hash_key="bundle-test")  # the same marks in the views and in the bundle
KEY = "sk-proj-Bq7Xv2Lm9Tr4Hs8Kd1Pw6Yb3Nc5Gf0Ju"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJidW5kbGUifQ.c2lnbmF0dXJlLWJ1bmRsZS0wMTIzNDU2"
PASSWORD = "Hunter2-bundle-pw"
PLAIN = "opensesame-bundle-91"  # shaped like nothing: a secret only by the name it is stored under
CRAFTED = (KEY, JWT, PASSWORD, PLAIN)


def members(zip_path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(zip_path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def leaks(zip_path: Path, secrets: tuple[str, ...]) -> list[tuple[str, str]]:
    return [(name, secret) for name, data in members(zip_path).items() for secret in secrets
            if secret.encode() in data]


@pytest.fixture(scope="module")
def secret_db(tmp_path_factory) -> Path:
    return write_secret_store(tmp_path_factory.mktemp("bundle-secrets") / "secrets.db")


def test_a_bundle_holds_what_the_views_show_and_no_secret(secret_db, tmp_path):
    out = tmp_path / "secrets.zip"
    with open_store(str(secret_db)) as store:
        assert [s for s in SECRETS if s.encode() in secret_db.read_bytes()] == list(SECRETS)
        write_bundle(store, THREAD, out, settings=SETTINGS)
        rows = store.timeline(THREAD)
        shown = [redactor_for(SETTINGS)(store.state(THREAD, r.checkpoint_id, r.checkpoint_ns)) for r in rows]
    assert leaks(out, SECRETS) == []
    with open_store(str(out)) as bundle:
        assert [r.checkpoint_id for r in bundle.timeline(THREAD)] == [r.checkpoint_id for r in rows]
        bundled = [bundle.state(THREAD, r.checkpoint_id, r.checkpoint_ns) for r in rows]
    for view, kept in zip(shown, bundled):
        assert kept.values == view.values, kept.checkpoint_id  # masked by the same rules, mark for mark
        assert kept.metadata == view.metadata
        assert [(w.channel, w.value) for w in kept.writes] == [(w.channel, w.value) for w in view.writes]
    newest = repr(bundled[0].values)
    assert all(words in newest for words in KEPT) and "[redacted api-key" in newest


@pytest.fixture(scope="module")
def crafted(tmp_path_factory) -> Path:
    """One checkpoint with secrets where no message would hold them, and a binary file holding a key."""
    folder = tmp_path_factory.mktemp("bundle-crafted")
    outputs = folder / "threads" / "crafted" / "user-data" / "outputs"
    outputs.mkdir(parents=True)
    (outputs / "chart.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00tEXtComment\x00api key " + KEY.encode() + b"\x00")
    (outputs / "plain.bin").write_bytes(b"\x00\x01\x02 nothing to hide \xff")
    db = folder / "store.db"
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {
            "api_key": PLAIN,
            "raw": f"Authorization: Bearer {JWT}".encode(),
            "settings": {"db": {"password": PASSWORD}, "note": f"use {KEY}", "region": "crafted-region-7"},
            "artifacts": ["/mnt/user-data/outputs/chart.bin", "/mnt/user-data/outputs/plain.bin"],
        }
        checkpoint["channel_versions"] = {name: 1 for name in checkpoint["channel_values"]}
        checkpoint["pending_sends"] = [f"send with {KEY}"]
        config = saver.put({"configurable": {"thread_id": "crafted", "checkpoint_ns": ""}}, checkpoint,
                           {"source": "input", "step": -1, "parents": {}, "customer_password": PASSWORD}, {})
        saver.put_writes(config, [("raw", f"token={PLAIN}".encode()), ("settings", {"secret": PLAIN}),
                                  # DeerFlow's channels: its profile, which knows the thread's files, reads it
                                  ("sandbox", {"sandbox_id": "local"}), ("uploaded_files", [])], "task-1")
        conn.commit()
    return db


def test_secrets_outside_messages_are_masked_in_the_stored_bytes(crafted, tmp_path):
    out = tmp_path / "crafted.zip"
    assert all(s.encode() in crafted.read_bytes() for s in CRAFTED)
    with open_store(str(crafted)) as store:
        manifest = write_bundle(store, "crafted", out, settings=SETTINGS)
    assert leaks(out, CRAFTED) == []
    left_out = {item["what"]: item["reason"] for item in manifest["left_out"]}
    assert left_out == {"/mnt/user-data/outputs/chart.bin": BINARY_SECRET}
    assert [f["path"] for f in manifest["user_data"]["files"]] == ["/mnt/user-data/outputs/plain.bin"]
    assert {"api_key", "raw", "settings", "checkpoint headers", "metadata"} <= set(manifest["redaction"]["values_masked"])
    with open_store(str(out)) as bundle:
        state = bundle.state("crafted")
        values = state.values
        assert values["api_key"].startswith("[redacted api-key")
        assert values["raw"].startswith(b"Authorization: Bearer [redacted bearer-token")
        assert values["settings"]["db"]["password"].startswith("[redacted password")
        assert values["settings"]["note"].startswith("use [redacted api-key")
        assert state.metadata["customer_password"].startswith("[redacted password")
        assert {w.channel: w.value for w in state.writes}["raw"].startswith(b"token=[redacted token")
        (kept,) = [a for a in media_report(bundle, "crafted").artifacts if a.exists]
        assert kept.path == "/mnt/user-data/outputs/plain.bin"


def test_operator_patterns_apply_to_bundles_too(crafted, tmp_path):
    out = tmp_path / "patterns.zip"
    patterns = ("crafted-region-[0-9]", "nothing to hide")
    with open_store(str(crafted)) as store:
        manifest = write_bundle(store, "crafted", out, settings=replace(SETTINGS, redact_patterns=patterns))
    assert manifest["redaction"]["operator_patterns"] == 2 and manifest["redaction"]["marks"]["pattern"] == 1
    assert manifest["user_data"]["files"] == []  # plain.bin now holds a pattern: a binary file is left out
    assert leaks(out, ("crafted-region-7", "nothing to hide", *CRAFTED)) == []
