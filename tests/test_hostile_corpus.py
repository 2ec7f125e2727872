"""The hostile corpus (``hostile_corpus.py``) holds what its cases say: every thread is in the store, the
planted secrets and escapes are really there, and the undecodable ids really are not UTF-8."""

from __future__ import annotations

import sqlite3

import hostile_corpus as corpus
import pytest

from inspector.store.not_utf8 import stored_bytes


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory):
    return corpus.write_corpus(tmp_path_factory.mktemp("corpus"), long_chars=20_000)


def _raw(db, sql):
    conn = sqlite3.connect(db)
    conn.text_factory = bytes
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_every_case_writes_its_threads(corpus_db):
    stored = {row[0] for row in _raw(corpus_db, "SELECT DISTINCT thread_id FROM checkpoints")}
    for thread in corpus.thread_ids():
        assert stored_bytes(thread) in stored, thread  # an id stored as bytes (``not_utf8.from_blob``): its bytes
    undecodable = [t for t in stored if not _decodes(t)]
    assert len(undecodable) == 4 and corpus.BAD_UTF8_THREAD in undecodable and corpus.VICTIM_PLANTED in undecodable
    assert not _decodes(_raw(corpus_db, "SELECT checkpoint_id FROM checkpoints WHERE checkpoint_id LIKE '1f0-bad-%'")[0][0])


def _decodes(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_planted_secrets_and_escapes_are_in_the_store(corpus_db):
    blob = b"".join(row[0] + row[1] for row in _raw(corpus_db, "SELECT checkpoint, metadata FROM checkpoints"))
    blob += b"".join(row[0] for row in _raw(corpus_db, "SELECT value FROM writes"))
    for secret in (corpus.DB_PASSWORD_CAMEL, corpus.PG_ENV, corpus.AWS_NEAR_DATA_URL, corpus.BYTES_KEY_VALUE.decode()):
        assert secret.encode() in blob
    assert b"\x1b]8;;" in blob and b"\x07" in blob
    assert corpus.leaked(f"x {corpus.PWD} y") == [corpus.PWD]
    assert corpus.controls_in("ok\tfine\n") == [] and corpus.controls_in("a\x1b[2J") == ["'\\x1b'"]


def test_a_case_registers_once():
    with pytest.raises(ValueError, match="registered twice"):
        corpus.case("long-text", "again")(lambda p: None)
