"""One hostile row breaks nothing but itself (``corpus/hostile_rows.py``): ids stored as BLOBs are threads,
checkpoints and namespaces of their own, listed marked ``(stored as bytes)`` and opened by their bytes; a metadata
step no integer column holds is a problem on its row; a channel named like a secret keeps its size."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import hostile_corpus as corpus
import pytest
from conftest import fresh_database, grant_readonly_role
from corpus.hostile_rows import (
    API_KEY_VALUE,
    BLOB_CHECKPOINT,
    BLOB_IDS,
    BLOB_IDS_TEXT,
    BLOB_NS,
    BLOB_THREAD,
    BLOB_THREAD_TEXT,
    DB_PASSWORD_VALUE,
    HUGE_STEP,
    ROWS_CASES,
    SECRET_CHANNELS,
)
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.graph import START, StateGraph
from test_hostile_cli import check, run

from inspector.fact_cache import pack, unpack
from inspector.retention.sql import literal
from inspector.safety.redaction import Redactor
from inspector.schema.thread_state import ThreadState
from inspector.store import open_store
from inspector.store.not_utf8 import (
    decode,
    from_blob,
    from_token,
    is_blob,
    order_key,
    quoted,
    shown,
    spelled,
    stored_bytes,
    token,
)
from inspector.store.records import is_step, step_problem
from inspector.store.sqlite.connect import bound, ids_among, read_ids, read_text

pytestmark = pytest.mark.timeout(240)

BLOB_CHECKPOINT_ID = from_blob(BLOB_CHECKPOINT.encode())
BLOB_NS_ID = from_blob(BLOB_NS.encode())


@pytest.fixture(scope="module")
def rows_db(tmp_path_factory) -> Path:
    return corpus.write_corpus(tmp_path_factory.mktemp("hostile-rows"), cases=ROWS_CASES)


@pytest.fixture(autouse=True)
def plain_settings(monkeypatch, tmp_path):
    for name in ("INSPECTOR_ALLOW_REVEAL", "INSPECTOR_REDACT_PATTERNS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.log"))


# -- ids stored as bytes ------------------------------------------------------------------------------------


def test_an_id_stored_as_bytes_is_spelled_marked_and_bound_as_a_blob():
    blob, bad_blob, text = from_blob(b"abc"), from_blob(b"a\xffc"), "abc"
    ids = [blob, bad_blob, text, decode(b"a\xffc"), "~blob:616263", "~bytes:616263", "~blob:zz"]
    assert len({token(i) for i in ids}) == len(ids) and all(from_token(token(i)) == i for i in ids)
    assert token(blob) == "~blob:616263" and is_blob(blob) and not is_blob(text) and blob != text
    assert shown(blob) == "abc (stored as bytes)" and shown(bad_blob) == "a\\xffc (not UTF-8, stored as bytes)"
    assert quoted(blob) == "'abc' (stored as bytes)" and spelled(bad_blob) == "a\\xffc (not UTF-8, stored as bytes)"
    assert stored_bytes(blob) == b"abc" and sorted([blob, "zzz", "a"], key=order_key) == ["a", "zzz", blob]
    conn = sqlite3.connect(":memory:")
    conn.text_factory = read_text
    conn.execute("CREATE TABLE t (thread_id, n INTEGER)")
    conn.execute("INSERT INTO t VALUES (?, 1), (?, 2), (CAST(? AS TEXT), 3)", [b"abc", "abc", b"a\xffc"])
    assert read_ids(conn.execute("SELECT thread_id, n FROM t ORDER BY n")) == [(blob, 1), (text, 2), (decode(b"a\xffc"), 3)]
    assert read_ids(conn.execute("SELECT max(thread_id) FROM t")) == [(blob,)]  # a BLOB sorts after every text
    assert read_ids(conn.execute("SELECT CAST(thread_id AS BLOB) AS raw FROM t WHERE n = 2")) == [(b"abc",)]
    assert bound("SELECT n FROM t WHERE thread_id = ?", [blob]) == ("SELECT n FROM t WHERE thread_id = ?", (b"abc",))
    for wanted, n in ((blob, 1), (text, 2)):
        assert conn.execute(*bound("SELECT n FROM t WHERE thread_id = ?", [wanted])).fetchall() == [(n,)]
        assert conn.execute(f"SELECT n FROM t WHERE thread_id = {literal(wanted)}").fetchall() == [(n,)]
    among, params = ids_among("thread_id", [blob, decode(b"a\xffc")])
    assert sorted(conn.execute(*bound(f"SELECT n FROM t WHERE {among}", params)).fetchall()) == [(1,), (3,)]
    assert unpack(pack([blob, decode(b"a\xffc")])) == [blob, decode(b"a\xffc")]  # an analysis cache fact holds them
    with pytest.raises(ValueError, match="stored as bytes"):
        literal(blob, "postgres")


def test_a_thread_id_stored_as_bytes_is_a_thread_of_its_own(rows_db, capsys):
    base = ["--db", str(rows_db)]
    code, out = run(capsys, "threads", *base, "--json")
    check(code, out, allowed=(0,))
    counts = {t["thread_id"]: (t["checkpoints"], t["namespaces"]) for t in json.loads(out)["threads"]}
    assert counts[BLOB_THREAD] == (2, 1) and counts[BLOB_IDS] == (4, 2)
    code, out = run(capsys, "threads", *base)
    assert f"{BLOB_IDS} (stored as bytes)" in out and "b'" not in out
    for thread, mine, theirs in ((token(BLOB_THREAD), BLOB_THREAD_TEXT, BLOB_IDS_TEXT), (BLOB_THREAD, BLOB_THREAD_TEXT,
                                 BLOB_IDS_TEXT), (BLOB_IDS, BLOB_IDS_TEXT, BLOB_THREAD_TEXT)):
        code, out = run(capsys, "state", *base, thread, "--json")
        check(code, out, allowed=(0,))
        assert mine in out and theirs not in out
    code, out = run(capsys, "state", *base, token(BLOB_THREAD))
    assert out.startswith(f"thread {BLOB_IDS} (stored as bytes)  checkpoint ")


def test_a_checkpoint_and_a_namespace_stored_as_bytes_open_in_their_thread(rows_db, capsys):
    base = ["--db", str(rows_db), BLOB_IDS]
    code, out = run(capsys, "timeline", *base, "--json")
    check(code, out, allowed=(0,))
    timeline = json.loads(out)
    keys = {(row["checkpoint_ns"], row["checkpoint_id"]) for row in timeline["checkpoints"]}
    assert ("", BLOB_CHECKPOINT_ID) in keys and any(ns == BLOB_NS_ID for ns, _ in keys)
    assert timeline["problems"] == []  # the child names its BLOB parent, which is found
    (child,) = [r for r in timeline["checkpoints"] if r["parent_checkpoint_id"] == BLOB_CHECKPOINT_ID]
    assert child["checkpoint_ns"] == "" and child["checkpoint_id"] != BLOB_CHECKPOINT
    code, out = run(capsys, "timeline", *base)
    assert f"{BLOB_CHECKPOINT} (stored as bytes)" in out and f"{BLOB_NS} (stored as bytes)" in out
    code, out = run(capsys, "state", *base, "--checkpoint", token(BLOB_CHECKPOINT_ID), "--json")
    check(code, out, allowed=(0,))
    state = json.loads(out)
    assert state["checkpoint_id"] == BLOB_CHECKPOINT_ID and state["values"]["title"] == "blob checkpoint"
    assert [w["channel"] for w in state["writes"]] == ["title"]  # the writes stored against it by its bytes
    code, out = run(capsys, "state", *base, "--ns", token(BLOB_NS_ID), "--json")
    check(code, out, allowed=(0,))
    assert json.loads(out)["values"]["title"] == "inside a blob namespace"
    code, out = run(capsys, "diff", *base, "--json")  # the newest checkpoint: the BLOB one, against its parent
    check(code, out, allowed=(0,))


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("as_json", [False, True], ids=["table", "json"])
def test_store_wide_commands_go_on_past_ids_stored_as_bytes(rows_db, capsys, as_json):
    base = ["--db", str(rows_db), *(["--json"] if as_json else [])]
    for args in (["sizes", *base], ["health", *base], ["prune-preview", *base, "--keep-latest", "1"],
                 ["growth", *base, "--by", "thread"], ["health", *base, "--store"]):
        code, out = run(capsys, *args)
        check(code, out, allowed=(0, 1))
        assert "Error" not in out and "b'" not in out, args
        if as_json:
            assert json.loads(out)
        elif args[0] in ("sizes", "growth"):
            assert f"{BLOB_IDS} (stored as bytes)" in out, args


def test_the_prune_statements_name_a_blob_thread_by_its_bytes_and_delete_it_alone(rows_db, capsys, tmp_path):
    before = _sha256(rows_db)
    code, out = run(capsys, "prune-preview", "--db", str(rows_db), "--threads", token(BLOB_THREAD), "--sql")
    check(code, out, allowed=(0,))
    hexed = BLOB_IDS.encode().hex().upper()
    assert f"thread_id COLLATE BINARY = X'{hexed}';" in out and f"'{BLOB_IDS}'" not in out
    copy = tmp_path / "copy.db"
    shutil.copy(rows_db, copy)
    with sqlite3.connect(copy) as conn:
        conn.executescript(out)
        left = conn.execute("SELECT typeof(thread_id), count(*) FROM checkpoints WHERE thread_id IN (?, ?) "
                            "GROUP BY typeof(thread_id)", [BLOB_IDS, BLOB_IDS.encode()]).fetchall()
    assert left == [("text", 4)]
    assert _sha256(rows_db) == before


def test_a_bundle_keeps_ids_stored_as_bytes_and_their_writes(rows_db, capsys, tmp_path):
    for thread in (BLOB_IDS, BLOB_THREAD):
        out_zip = tmp_path / f"{token(thread)}.zip"
        code, out = run(capsys, "bundle", "--db", str(rows_db), token(thread), "--out", str(out_zip))
        check(code, out, allowed=(0,))
        assert "does not hold" not in out  # every write found its checkpoint
        code, out = run(capsys, "state", "--db", str(out_zip), token(thread), "--json")
        check(code, out, allowed=(0,))
        assert json.loads(out)["thread_id"] == thread
    code, out = run(capsys, "state", "--db", str(tmp_path / f"{BLOB_IDS}.zip"), BLOB_IDS, "--checkpoint",
                    token(BLOB_CHECKPOINT_ID), "--json")
    check(code, out, allowed=(0,))
    assert [w["channel"] for w in json.loads(out)["writes"]] == ["title"]


# -- steps no integer column holds ----------------------------------------------------------------------------


def test_a_step_is_an_integer_of_64_bits():
    for step in (0, -1, 2**63 - 1, -(2**63)):
        assert is_step(step) and step_problem({"step": step}) is None
    assert step_problem({}) is None and step_problem({"step": None}) is None
    for step, why in ((2**63, "past 64 bits"), (-(2**70), "22 digits"), (float("nan"), "not finite"),
                      (float("inf"), "not finite"), (1.5, "a fraction"), (True, "a bool"), ("5", "a str")):
        assert not is_step(step)
        assert why in step_problem({"step": step}) and "the step is left blank" in step_problem({"step": step})


def test_a_huge_step_is_a_problem_on_its_own_row(rows_db, capsys, monkeypatch, tmp_path):
    base = ["--db", str(rows_db), HUGE_STEP]
    code, out = run(capsys, "timeline", *base, "--json")
    check(code, out, allowed=(0,))
    rows = json.loads(out)["checkpoints"]
    assert [r["step"] for r in rows] == [None] * 4
    assert sorted(p for r in rows for p in r["problems"]) == sorted([
        "metadata step 18446744073709551616 is no step number (an integer of 20 digits, past 64 bits); the step is "
        "left blank",
        "metadata step -1180591620717411303424 is no step number (an integer of 22 digits, past 64 bits); the step is "
        "left blank",
        "metadata step inf is no step number (a number that is not finite); the step is left blank",
        "metadata step nan is no step number (a number that is not finite); the step is left blank"])
    code, out = run(capsys, "timeline", *base)
    assert out.count("problem: checkpoint ") == 4 and "18446744073709551616 is no step number" in out
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))  # measured, then read from the cache
    for _ in range(2):
        for command in ("sizes", "health", "replay"):
            code, out = run(capsys, command, *base, "--json")
            check(code, out, allowed=(0,))
            json.loads(out)
    code, out = run(capsys, "sizes", *base, "--json")
    assert [c["step"] for c in json.loads(out)["checkpoints"]] == [None] * 4


# -- channels named like secrets --------------------------------------------------------------------------------


def test_a_channel_named_like_a_secret_is_listed_masked_with_its_size(rows_db, capsys):
    base = ["--db", str(rows_db), SECRET_CHANNELS]
    code, out = run(capsys, "state", *base)
    check(code, out, allowed=(0,))
    lines = {line.split()[0]: line for line in out.splitlines() if line.split()}
    assert "22 B" in lines["api_key"] and "[redacted api-key" in lines["api_key"]
    assert "5 B" in lines["db_password"] and "[redacted password" in lines["db_password"]
    code, out = run(capsys, "state", *base, "--json")
    check(code, out, allowed=(0,))
    state = json.loads(out)
    assert state["channel_bytes"]["api_key"] == 22 and state["channel_bytes"]["db_password"] == 5
    assert state["values"]["db_password"].startswith("[redacted password")
    assert API_KEY_VALUE not in out and str(DB_PASSWORD_VALUE) not in out
    with open_store(f"sqlite:///{rows_db}") as store:
        masked = Redactor()(store.state(SECRET_CHANNELS))
    assert masked.channel_bytes == {"api_key": 22, "db_password": 5, "messages": masked.channel_bytes["messages"],
                                    "title": 15}
    assert masked.values["api_key"] != API_KEY_VALUE and masked.values["title"] == "ordinary title"


# -- PostgreSQL: its id columns are text; its JSONB metadata holds any integer ----------------------------------


@pytest.fixture(scope="module")
def huge_step_pg(postgres_dsn) -> str:
    database = "inspector_hostile_rows"
    admin_dsn = fresh_database(postgres_dsn.admin_dsn, database)
    graph = StateGraph(ThreadState)
    graph.add_node("say", lambda state: {"title": "a title"})
    graph.add_edge(START, "say")
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        saver.setup()
        graph.compile(checkpointer=saver).invoke({"messages": []}, {"configurable": {"thread_id": HUGE_STEP}})
        saver.conn.execute("UPDATE checkpoints SET metadata = jsonb_set(metadata, '{step}', %s::jsonb) "
                           "WHERE thread_id = %s", [str(2**64), HUGE_STEP])
    grant_readonly_role(admin_dsn)
    return f"{postgres_dsn.readonly_dsn.rsplit('/', 1)[0]}/{database}"


@pytest.mark.postgres
def test_postgres_goes_on_past_a_huge_step_and_names_no_blob_id(huge_step_pg, capsys):
    base = ["--db", huge_step_pg]
    code, out = run(capsys, "timeline", *base, HUGE_STEP, "--json")
    check(code, out, allowed=(0,))
    rows = json.loads(out)["checkpoints"]
    assert rows and all(r["step"] is None for r in rows)
    assert all("18446744073709551616 is no step number" in r["problems"][0] for r in rows)
    for args in (["threads"], ["sizes"], ["health"], ["prune-preview", "--keep-latest", "1"], ["sizes", HUGE_STEP],
                 ["health", HUGE_STEP], ["replay", HUGE_STEP], ["state", HUGE_STEP]):
        code, out = run(capsys, *args, *base, "--json")
        check(code, out, allowed=(0,))
        json.loads(out)
    code, out = run(capsys, "state", *base, token(from_blob(HUGE_STEP.encode())))
    check(code, out, allowed=(2,))
    assert "(stored as bytes)" in out and "never bytes" in out
