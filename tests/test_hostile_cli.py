"""Every CLI command, as a table and as JSON, over the hostile corpus (``hostile_corpus.py``): no traceback,
no hang, no planted secret (nor its bytes as base64), no control character from the data on the terminal,
and what surrounds a secret still shown. Undecodable ids are listed escaped, and the rest of the store with them."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import hostile_corpus as corpus
import pytest

from inspector.cli import main, progress
from inspector.store.not_utf8 import decode, from_token, shown, token

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def hostile_db(hostile_corpus_db) -> Path:
    return hostile_corpus_db


@pytest.fixture(autouse=True)
def plain_settings(monkeypatch, tmp_path):
    for name in ("INSPECTOR_ALLOW_REVEAL", "INSPECTOR_REDACT_PATTERNS", "INSPECTOR_AUDIT_LOG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.log"))


def run(capsys, *args: str) -> tuple[int, str]:
    code = main([*args, "--quiet"] if args[0] not in ("demo",) else list(args))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def check(code: int, out: str, allowed=(0, 1, 2)) -> None:
    assert code in allowed, out[-2000:]
    if code == 2:  # bad input (a diff of a thread's first checkpoint): one clear line
        assert out.startswith("error: ") and out.count("\n") == 1, out[-2000:]
    assert "Traceback" not in out
    assert corpus.leaked(out) == []
    assert corpus.controls_in(out) == []


@pytest.mark.parametrize("command", ["replay", "sizes", "health"])
def test_progress_on_stderr_names_a_hostile_thread_escaped_and_bounded(hostile_db, capsys, monkeypatch, command):
    """The progress count names the thread: an id's ESC and BEL are shown escaped, never sent to the terminal,
    and a 10,000-character label is cut to one short line that says its length."""
    monkeypatch.setattr(progress, "SHOW_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    monkeypatch.setenv("INSPECTOR_CACHE_MAX_MB", "0")  # every step is counted, none read from the cache
    assert main([command, "--db", str(hostile_db), corpus.ESCAPES_THREAD]) in (0, 1)
    err = capsys.readouterr().err
    assert f"{command} hostile-esc-\\x1b]0;pwned-title\\x07-\\x1b[2J: " in err
    assert corpus.controls_in(err) == []
    stream = io.StringIO()
    progress.StderrProgress("L" * 10_000, stream=stream)(1, 2)
    assert stream.getvalue().endswith("... [10,000 chars]: 1 / 2 checkpoints\n") and len(stream.getvalue()) < 120


def per_thread_commands(db: Path, thread: str, folder: Path) -> list[list[str]]:
    base = ["--db", str(db)]
    return [["timeline", *base, thread], ["state", *base, thread, "--internal"], ["diff", *base, thread],
            ["replay", *base, thread], ["images", *base, thread, "--data-dir", str(folder)],
            ["artifacts", *base, thread, "--data-dir", str(folder)], ["sizes", *base, thread], ["health", *base, thread]]


@pytest.mark.parametrize("thread", corpus.thread_ids())
@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_every_command_over_each_hostile_thread(hostile_db, capsys, thread, as_json):
    for args in per_thread_commands(hostile_db, thread, hostile_db.parent):
        code, out = run(capsys, *args, *(["--json"] if as_json else []))
        check(code, out)
        if as_json and code == 0:
            json.loads(out)


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_store_wide_commands_list_every_thread_and_undecodable_ids_escaped(hostile_db, capsys, as_json):
    flag = ["--json"] if as_json else []
    base = ["--db", str(hostile_db)]
    for args in (["threads", *base], ["threads", *base, "--sort", "stored"], ["threads", *base, "--search", "hostile"],
                 ["sizes", *base], ["health", *base], ["prune-preview", *base, "--keep-latest", "1"]):
        code, out = run(capsys, *args, *flag)
        check(code, out)
    code, out = run(capsys, "threads", *base, *flag)
    for thread in corpus.thread_ids():
        spelled = json.dumps(thread)[1:-1] if as_json else shown(thread).translate(
            {0x1B: "\\x1b", 0x07: "\\x07", 0x9B: "\\x9b", 0x9C: "\\x9c", 0x9D: "\\x9d", 0x202E: "\\u202e"})
        assert spelled in out, thread
    listed = ([shown(t["thread_id"]) for t in json.loads(out)["threads"]] if as_json
              else [line.split("  ")[0].strip() for line in out.splitlines()[1:-1]])
    assert len(listed) == len(corpus.thread_ids()) + 4  # every thread of the store, the 4 undecodable ids too
    assert sorted(t for t in listed if t.startswith("bad-")) == [  # shown escaped and marked, listed with the rest
        "bad-\\xff\\xfe-thread (not UTF-8)", "bad-\\xff\\xfe-thread-cp (not UTF-8)",
        "bad-\\xff\\xfe-thread-ns (not UTF-8)"]
    assert "victim\\xff (not UTF-8)" in listed and corpus.VICTIM_REAL in listed


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_an_id_that_is_not_utf8_is_a_thread_of_its_own(hostile_db, capsys, tmp_path):
    """The planted id victim + 0xFF and the real id victim\\xff: two threads, each opening its own checkpoints
    (by its bytes, or by its token), sizes read, and the prune statements for one touch only that one."""
    before = _sha256(hostile_db)
    base = ["--db", str(hostile_db)]
    planted = decode(corpus.VICTIM_PLANTED)
    code, out = run(capsys, "threads", *base, "--json")
    counts = {t["thread_id"]: t["checkpoints"] for t in json.loads(out)["threads"]}
    assert (counts[corpus.VICTIM_REAL], counts[planted]) == (2, 1)
    for thread, mine, theirs in ((planted, corpus.VICTIM_PLANTED_TEXT, corpus.VICTIM_REAL_TEXT),
                                 (token(planted), corpus.VICTIM_PLANTED_TEXT, corpus.VICTIM_REAL_TEXT),
                                 (corpus.VICTIM_REAL, corpus.VICTIM_REAL_TEXT, corpus.VICTIM_PLANTED_TEXT)):
        code, out = run(capsys, "state", *base, thread, "--json")
        check(code, out, allowed=(0,))
        assert mine in out and theirs not in out
        code, out = run(capsys, "timeline", *base, thread, "--json")
        assert len(json.loads(out)["checkpoints"]) == counts[from_token(thread)]
    for thread in (planted, decode(corpus.BAD_UTF8_THREAD + b"-cp")):  # the second: a checkpoint id not UTF-8
        code, out = run(capsys, "sizes", *base, thread, "--json")
        check(code, out, allowed=(0,))
        assert json.loads(out)["checkpoints"][0]["stored_bytes"] > 0
    code, out = run(capsys, "prune-preview", *base, "--threads", token(planted), "--sql")
    check(code, out, allowed=(0,))
    assert "CAST(X'76696374696DFF' AS TEXT)" in out and "'victim\\xff'" not in out
    copy = tmp_path / "copy.db"
    shutil.copy(hostile_db, copy)
    with sqlite3.connect(copy) as conn:
        conn.executescript(out)
        left = dict(conn.execute("SELECT CAST(thread_id AS BLOB), count(*) FROM checkpoints "
                                 "WHERE thread_id LIKE 'victim%' GROUP BY thread_id").fetchall())
    assert left == {corpus.VICTIM_REAL.encode(): 2}
    assert _sha256(hostile_db) == before


def test_secrets_stay_masked_and_the_words_around_them_stay(hostile_db, capsys):
    base = ["--db", str(hostile_db)]
    for name in ("secret-names", "long-shapes", "bytes"):
        for thread in corpus.CASES[name].threads:
            code, out = run(capsys, "state", *base, thread, "--json")
            check(code, out)
            assert all(words in out for words in corpus.CASES[name].kept), name
            assert "[redacted " in out
    code, out = run(capsys, "state", *base, corpus.NAMES_THREAD, "--json")
    values = json.loads(out)["values"]
    assert values["config"]["max_tokens"] == 4096 and values["config"]["token_usage"]["input_tokens"] == 12


def test_a_bundle_of_each_hostile_thread_holds_no_secret(hostile_db, capsys, tmp_path):
    for i, thread in enumerate(corpus.thread_ids()):
        out_zip = tmp_path / f"bundle-{i}.zip"
        code, out = run(capsys, "bundle", "--db", str(hostile_db), thread, "--out", str(out_zip),
                        "--data-dir", str(hostile_db.parent))
        check(code, out, allowed=(0,))
        with zipfile.ZipFile(out_zip) as bundle:
            for member in bundle.namelist():
                data = bundle.read(member).decode("latin-1")
                assert corpus.leaked(data) == [], (thread, member)
    # the artifact thread's files sit in DeerFlow's folder layout: its bundle holds them when DeerFlow's profile
    # reads it (named here: this mixed store shows no app), still masked
    out_zip = tmp_path / "bundle-artifacts-deerflow.zip"
    code, out = run(capsys, "bundle", "--db", str(hostile_db), corpus.ARTIFACT_THREAD, "--out", str(out_zip),
                    "--data-dir", str(hostile_db.parent), "--profile", "deerflow")
    check(code, out, allowed=(0,))
    with zipfile.ZipFile(out_zip) as bundle:
        assert all(corpus.leaked(bundle.read(m).decode("latin-1")) == [] for m in bundle.namelist())
        texts = [bundle.read(m).decode("utf-8", "replace") for m in bundle.namelist() if m.endswith(".md")]
    assert any("All services are up" in t for t in texts)


def test_errors_naming_hostile_ids_are_escaped(hostile_db, capsys):
    code, out = run(capsys, "state", "--db", str(hostile_db), "no-such\x1b]0;x\x07", "--checkpoint", "\x1b[2J")
    assert code == 2 and out.startswith("error:") and corpus.controls_in(out) == []


def test_prune_statements_name_hostile_ids_without_control_characters(hostile_db, capsys):
    import sqlite3

    from inspector.retention.sql import literal

    code, out = run(capsys, "prune-preview", "--db", str(hostile_db), "--keep-latest", "1", "--sql")
    check(code, out)
    assert "char(27)" in out  # the escapes thread's id, as SQL that still names it exactly
    value = corpus.ESCAPES_THREAD + "'\r\u202e"
    assert sqlite3.connect(":memory:").execute(f"SELECT {literal(value)}").fetchone()[0] == value
    assert corpus.controls_in(literal(value, "postgres")) == [] and "\\u001b" in literal(value, "postgres")


def test_error_lines_name_stored_ids_as_tables_spell_them(hostile_db, capsys):
    """An id the store holds, named in an error line (a first checkpoint has no parent to diff against): its bad
    bytes as ``\\xed`` and the id marked ``(not UTF-8)``, its control characters escaped; never ``'\\udced'``."""
    base = ["--db", str(hostile_db)]
    cases = [([token(decode(corpus.BAD_UTF8_THREAD + b"-cp"))], "checkpoint '1f0-bad-\\xed\\xa0\\x80-id' (not UTF-8)"),
             ([token(decode(corpus.BAD_UTF8_THREAD + b"-ns")), "--ns", token(decode(corpus.BAD_UTF8_NS))],
              "has no parent"),
             ([token(decode(corpus.BAD_UTF8_THREAD + b"-ns"))], "for thread 'bad-\\xff\\xfe-thread-ns' (not UTF-8)"),
             ([corpus.ESCAPES_THREAD, "--ns", "sub\x1b[2J:task"], "checkpoint '1f0-esc-ns-\\x07' has no parent")]
    for args, expected in cases:
        code, out = run(capsys, "diff", *base, *args)
        check(code, out, allowed=(2,))
        assert expected in out and "\\udc" not in out, out
