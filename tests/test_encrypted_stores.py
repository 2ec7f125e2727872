"""Stores written through LangGraph's ``EncryptedSerializer`` (``msgpack+aes``) by SqliteSaver and PostgresSaver,
read without the key, with it, and with a wrong one: the structure and every answer that needs no value work
without the key; with it the values are LangGraph's own, masked as usual; a wrong key is one line; the key and
the decrypted values never reach a cache, a log or a bundle."""

from __future__ import annotations

import json
import sqlite3
import sys
import zipfile

import pytest
from encrypted_store import KEY, PASSWORD, PLAIN_WORD, THREAD, TURNS, WRONG_KEY, serializer, write_postgres, write_sqlite
from secret_store import cli

from inspector.settings import Settings, load_settings
from inspector.sizes.accounting import measure_thread as thread_sizes
from inspector.state.encryption import encryption_line
from inspector.store import encryption, open_store
from inspector.store.decode import Opaque


@pytest.fixture
def key(monkeypatch):
    """Sets the key the inspector is given (``LANGGRAPH_AES_KEY``, or None for no key); forgotten afterwards."""

    def use(value: str | None) -> None:
        monkeypatch.delenv("INSPECTOR_AES_KEY", raising=False)
        if value is None:
            monkeypatch.delenv(encryption.KEY_ENV, raising=False)
        else:
            monkeypatch.setenv(encryption.KEY_ENV, value)
        encryption.reset()

    yield use
    encryption.reset()


@pytest.fixture(scope="module")
def sqlite_db(tmp_path_factory):
    return write_sqlite(tmp_path_factory.mktemp("encrypted") / "encrypted.db")


@pytest.fixture(scope="module")
def plain_db(tmp_path_factory):
    return write_sqlite(tmp_path_factory.mktemp("plain") / "plain.db", encrypted=False)


@pytest.fixture(scope="module")
def pg_url(postgres_dsn):
    from conftest import written_database

    return written_database(postgres_dsn, "inspector_encrypted", write_postgres)[1]


def langgraph_messages(db) -> list[str]:
    """The newest checkpoint's messages as LangGraph's own SqliteSaver reads them with the key."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        found = SqliteSaver(conn, serde=serializer()).get_tuple({"configurable": {"thread_id": THREAD}})
    finally:
        conn.close()
    return [m.content for m in found.checkpoint["channel_values"]["messages"]]


def test_the_store_is_really_encrypted(sqlite_db):
    conn = sqlite3.connect(sqlite_db)
    types = {t for (t,) in conn.execute("SELECT type FROM checkpoints UNION SELECT type FROM writes")}
    raw = b"".join(b for (b,) in conn.execute("SELECT checkpoint FROM checkpoints"))
    conn.close()
    assert types <= {"msgpack+aes", "null+aes"} and "msgpack+aes" in types
    assert PLAIN_WORD.encode() not in raw and PASSWORD.encode() not in raw


def test_without_the_key_sqlite_shows_its_structure_and_what_a_key_adds(sqlite_db, key):
    key(None)
    with open_store(str(sqlite_db)) as store:
        state = store.state(THREAD)
        rows = store.timeline(THREAD)
        sizes = thread_sizes(store, THREAD)
    assert state.values == {}
    [problem] = state.problems_for(None)
    assert problem.kind == encryption.ENCRYPTED and "the whole checkpoint is one encrypted value (msgpack+aes" in problem.message
    line = encryption_line(state)
    assert "msgpack+aes" in line and "aes_key" in line and "LANGGRAPH_AES_KEY" in line and "need no key" in line
    # the timeline and the sizes need no key: steps, stored bytes, the state's growth, each field's writes
    assert sorted(r.step for r in rows) == list(range(-1, 5 * TURNS - 1)) and all(r.stored_bytes > 32 for r in rows)
    assert sizes.last_total_bytes > sizes.first_total_bytes > 0 and sizes.growth_bytes > 0
    assert sizes.field("messages").written_bytes > 0 and not sizes.field("messages").rebuilt


def test_with_the_key_sqlite_reads_what_langgraph_reads(sqlite_db, key):
    key(KEY)
    with open_store(str(sqlite_db)) as store:
        state = store.state(THREAD)
        first = store.state(THREAD, store.timeline(THREAD)[-1].checkpoint_id)
    assert [m["content"] for m in state.values["messages"]] == langgraph_messages(sqlite_db)
    assert state.values["title"].startswith("after") and state.channel_bytes["messages"] > 0
    assert encryption_line(state) is None and state.problems == []
    assert [w.channel for w in first.writes] == ["messages", "branch:to:agent"]  # the input, decrypted


def test_sizes_are_the_same_with_and_without_the_key(sqlite_db, key):
    """Sizes are measured from stored bytes, never decrypted: cached facts never depend on the key."""
    results = []
    for given in (None, KEY):
        key(given)
        with open_store(str(sqlite_db)) as store:
            sized = thread_sizes(store, THREAD)
        results.append((sized.stored_bytes, sized.last_total_bytes, [(f.field, f.written_bytes) for f in sized.fields]))
    assert results[0] == results[1]


def test_a_wrong_key_says_so_in_one_line(sqlite_db, pg_url, key):
    key(WRONG_KEY)
    for url in (str(sqlite_db), pg_url):
        with open_store(url) as store:
            state = store.state(THREAD)
        line = encryption_line(state)
        assert line.startswith("The AES key given does not decrypt") and "a wrong key" in line and "\n" not in line
        assert PLAIN_WORD not in json.dumps(state.values, default=str)


@pytest.mark.parametrize("given, says", [("short", "is 5 bytes long"), (None, "give the store's AES key")])
def test_a_key_of_the_wrong_length_or_none_is_named(sqlite_db, key, given, says):
    key(given)
    with open_store(str(sqlite_db)) as store:
        state = store.state(THREAD)
    assert says in state.problems[0].message and "short" not in state.problems[0].message.split("is 5")[0]


def test_without_pycryptodome_the_values_stay_encrypted_and_say_why(sqlite_db, key, monkeypatch):
    key(KEY)
    monkeypatch.setitem(sys.modules, "Crypto", None)
    monkeypatch.setitem(sys.modules, "Crypto.Cipher", None)
    with open_store(str(sqlite_db)) as store:
        state = store.state(THREAD)
    assert "needs pycryptodome" in encryption_line(state)


@pytest.mark.postgres
def test_postgres_without_the_key_lists_every_field_its_size_and_cipher(pg_url, key):
    key(None)
    with open_store(pg_url) as store:
        state = store.state(THREAD)
        sizes = thread_sizes(store, THREAD)
    opaque = state.values["messages"]
    assert isinstance(opaque, Opaque) and opaque.type == "msgpack+aes" and opaque.size == state.channel_bytes["messages"]
    assert state.values["title"].startswith("after")  # PostgresSaver keeps primitives in the JSONB, unencrypted
    assert [p.field for p in state.problems if p.kind == encryption.ENCRYPTED] == ["messages"]
    assert "1 field value(s) are encrypted (msgpack+aes" in encryption_line(state)
    assert sizes.field("messages").stored_bytes > 0 and sizes.growth_bytes > 0


@pytest.mark.postgres
def test_postgres_with_the_key_reads_every_value(pg_url, key):
    key(KEY)
    with open_store(pg_url) as store:
        state = store.state(THREAD)
        oldest = store.state(THREAD, store.timeline(THREAD)[-1].checkpoint_id)
    contents = [m["content"] for m in state.values["messages"]]
    assert len(contents) == 4 * TURNS and all(PLAIN_WORD in c for c in contents[::4])
    assert state.problems == [] and oldest.values.get("__start__") is None


def test_the_cli_masks_decrypted_values_and_never_prints_the_key(sqlite_db, tmp_path):
    cache = tmp_path / "cache"
    env = {"LANGGRAPH_AES_KEY": KEY, "INSPECTOR_CACHE_DIR": str(cache)}
    shown = cli("state", "--db", str(sqlite_db), THREAD, **env)
    assert shown.returncode == 0 and PLAIN_WORD in shown.stdout and PASSWORD not in shown.stdout
    for command in (("sizes", THREAD), ("health",), ("threads", "--search", PLAIN_WORD), ("replay", THREAD),
                    ("timeline", THREAD)):
        done = cli(command[0], "--db", str(sqlite_db), *command[1:], **env)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr
        assert KEY not in done.stdout + done.stderr
    held = b"".join(p.read_bytes() for p in cache.rglob("*") if p.is_file())
    assert held and KEY.encode() not in held and PLAIN_WORD.encode() not in held and PASSWORD.encode() not in held


def test_answers_that_need_no_value_are_the_same_without_the_key(sqlite_db):
    """Growth, the retention preview and health's size flags read stored lengths only: without the key they say
    what they say with it, and the state's size flag is raised on the encrypted thread as on a plain one."""
    def answers(**env: str) -> tuple:
        env = {"INSPECTOR_OVERSIZE_STATE_BYTES": "2000", **env}
        growth = cli("growth", "--db", str(sqlite_db), "--json", "--quiet", **env)
        preview = cli("prune-preview", "--db", str(sqlite_db), "--keep-latest", "2", "--json", "--quiet", **env)
        health = cli("health", "--db", str(sqlite_db), "--json", "--quiet", **env)
        # health exits 1: a flag is raised
        assert [done.returncode for done in (growth, preview, health)] == [0, 0, 1], health.stderr
        grown, previewed, healthy = (json.loads(done.stdout) for done in (growth, preview, health))
        previewed.pop("generated_at")
        return ((grown["points"], grown["top_threads"], grown["top_channels"]), previewed,
                [(f["code"], f["field"], f["checkpoint_ids"]) for t in healthy["threads"] for f in t["flags"]])

    without, given = answers(), answers(LANGGRAPH_AES_KEY=KEY)
    assert without == given
    (points, threads, channels), preview, flags = without
    assert points[0]["checkpoints"] == 5 * TURNS and threads[0]["key"] == THREAD
    assert "messages" in {c["key"] for c in channels} and preview["checkpoints"] == 5 * TURNS - 2
    assert [code for code, _, _ in flags] == ["oversized-state"] and len(flags[0][2]) > 2


def test_a_wrong_key_on_the_cli_is_one_line(sqlite_db):
    done = cli("state", "--db", str(sqlite_db), THREAD, LANGGRAPH_AES_KEY=WRONG_KEY)
    lines = [line for line in done.stdout.splitlines() if line.startswith("encrypted:")]
    assert done.returncode == 0 and len(lines) == 1 and "does not decrypt" in lines[0] and WRONG_KEY not in done.stdout


def test_the_key_setting_is_read_and_never_shown(sqlite_db, key, monkeypatch):
    key(None)
    monkeypatch.setenv("INSPECTOR_AES_KEY", KEY)
    encryption.reset()
    settings = load_settings(secrets={})
    assert settings.aes_key == KEY and KEY not in repr(settings) and KEY not in str(Settings(aes_key=KEY))
    with open_store(str(sqlite_db)) as store:
        assert PLAIN_WORD in store.state(THREAD).values["messages"][0]["content"]


def test_a_bundle_of_an_encrypted_thread_holds_no_decrypted_value(sqlite_db, key, tmp_path):
    from inspector.bundle import write_bundle

    key(KEY)
    out = tmp_path / "encrypted.zip"
    with open_store(str(sqlite_db)) as store:
        manifest = write_bundle(store, THREAD, out, settings=Settings())
    with zipfile.ZipFile(out) as archive:
        held = b"".join(archive.read(name) for name in archive.namelist())
    assert KEY.encode() not in held and PLAIN_WORD.encode() not in held and PASSWORD.encode() not in held
    assert any("encrypted" in row["what"] and "kept as stored" in row["reason"] for row in manifest["left_out"])
    with open_store(str(out)) as bundle:  # the ciphertext is kept: the key reads the bundle as it reads the store
        assert PLAIN_WORD in bundle.state(THREAD).values["messages"][0]["content"]


def test_a_verdict_read_without_the_key_is_not_kept_for_the_reading_with_it(sqlite_db, tmp_path):
    """Replay without the key verifies nothing it cannot read; its verdicts are not cached, so the same cache read
    with the key replays and verifies as a fresh one does."""
    def summary(cache: str, **env: str) -> str:
        done = cli("replay", "--db", str(sqlite_db), THREAD, "--quiet", INSPECTOR_CACHE_DIR=str(tmp_path / cache), **env)
        assert done.returncode in (0, 1) and "Traceback" not in done.stderr, done.stderr
        return done.stdout.strip().splitlines()[-1]

    locked = summary("shared")
    assert locked.startswith(f"{5 * TURNS - 1} step(s) replayed: 0 field check(s) verified")
    fresh = summary("fresh", LANGGRAPH_AES_KEY=KEY)
    assert "replayed: 0 field check(s) verified" not in fresh
    assert summary("shared", LANGGRAPH_AES_KEY=KEY) == fresh == summary("shared", LANGGRAPH_AES_KEY=KEY)


def test_image_facts_of_an_encrypted_value_wait_for_the_key(tmp_path, key):
    """DeerFlow's image entries read without the key are none; they are not cached, so the key finds the image."""
    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.cache import AnalysisCache
    from inspector.profiles.deerflow.files.image_facts import cached_image_spans

    db = tmp_path / "images.db"
    conn = sqlite3.connect(db, check_same_thread=False)
    saver, parent = SqliteSaver(conn, serde=serializer()), None
    for step, images in enumerate(({}, {"/mnt/user-data/uploads/cat.png": {"base64": "iVBORw0KGgo" * 40,
                                                                             "mime_type": "image/png"}})):
        checkpoint = empty_checkpoint()
        checkpoint["channel_values"] = {"viewed_images": images}
        checkpoint["channel_versions"] = {"viewed_images": step + 1}
        configurable = {"thread_id": "images", "checkpoint_ns": "", **({"checkpoint_id": parent} if parent else {})}
        saved = saver.put({"configurable": configurable}, checkpoint, {"source": "update", "step": step, "parents": {}},
                          checkpoint["channel_versions"])
        parent = saved["configurable"]["checkpoint_id"]
    conn.close()

    def spans() -> list:
        with AnalysisCache(tmp_path / "cache") as cache, open_store(str(db)) as store:
            return [span.path for span in cached_image_spans(store, "images", cache=cache)]

    key(None)
    assert spans() == []
    key(KEY)
    assert spans() == ["/mnt/user-data/uploads/cat.png"] == spans()
