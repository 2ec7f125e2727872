"""Nothing in the analysis cache helps another user guess a secret: its folder and files are private to the user
who runs the inspector (checked as another local user, ``nobody``), its fingerprints are sealed under a key of
its own (no stored byte is the hash of a guess), and a value the mask touches has no fingerprint at all; the
sizes read through it are the sizes read without it."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import tempfile
from pathlib import Path

import msgpack
import psycopg
import pytest
from corpus.hostile_cache import API_KEY, CACHE_THREAD, CHECKPOINTS, DB_PASSWORD, KEPT, SMALL_BLOB
from fixtures.postgres import written_database
from hostile_corpus import Planting, write_corpus
from langgraph.checkpoint.sqlite import SqliteSaver
from test_retention_postgres import with_database

from inspector.cache import FILE_NAME, AnalysisCache, default_cache_dir
from inspector.cache.fingerprints import FactSealer, Fingerprint, WrongShape, new_key
from inspector.cache.postgres import PostgresAnalysisCache
from inspector.cli import main
from inspector.diff import replay_thread
from inspector.sizes.accounting import measure_thread
from inspector.sizes.cached import KIND, sizes_stream
from inspector.sizes.health import thread_health
from inspector.store import open_store

NOBODY = 65534
GUESSES = ("password", "hunter2", "letmein", DB_PASSWORD, API_KEY)  # the list of five words
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="switching to another local user needs root (the CI runs the tests as root)")


def as_nobody(*command: str) -> subprocess.CompletedProcess:
    """``command`` run as the local user ``nobody`` (no supplementary group)."""
    def drop() -> None:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)

    return subprocess.run(command, preexec_fn=drop, capture_output=True, text=True, timeout=60)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(scope="module")
def corpus_db(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("cache-corpus"), cases=["cache"])


@pytest.fixture
def open_to_all(tmp_path):
    """A folder under /tmp every user may enter and list (pytest's own are private: they would hide the answer)."""
    base = Path(tempfile.mkdtemp(prefix="inspector-cache-privacy-", dir="/tmp"))
    base.chmod(0o755)
    yield base
    subprocess.run(["rm", "-rf", str(base)], check=False)


def fill(corpus_db: Path, capsys) -> None:
    for command in ("sizes", "health", "replay", "images"):
        assert main([command, "--db", str(corpus_db), CACHE_THREAD, "--quiet"]) in (0, 1)
    capsys.readouterr()


@as_root
def test_the_default_cache_folder_and_files_are_private_to_their_user(corpus_db, open_to_all, monkeypatch, capsys):
    home_cache = open_to_all / "home-cache"  # ~/.cache as many systems make it: 0755
    home_cache.mkdir(mode=0o755)
    home_cache.chmod(0o755)
    monkeypatch.setenv("XDG_CACHE_HOME", str(home_cache))
    monkeypatch.delenv("INSPECTOR_CACHE_DIR", raising=False)
    fill(corpus_db, capsys)
    folder = default_cache_dir()
    assert folder.parent == home_cache and (folder / FILE_NAME).is_file()
    with AnalysisCache(folder) as cache:  # held open: SQLite's -wal and -shm files exist meanwhile
        cache.put("s", "t", "k", {("", "c"): [1]})
        files = [p for p in folder.iterdir()]
        assert {p.name for p in files} >= {FILE_NAME, f"{FILE_NAME}-wal", f"{FILE_NAME}-shm"}
        assert mode(folder) == 0o700 and all(mode(p) == 0o600 for p in files)
        seen = as_nobody("ls", str(home_cache))
        assert seen.returncode == 0 and "state-inspector" in seen.stdout  # nobody reaches the folder's parent
        listed = as_nobody("ls", str(folder))
        assert listed.returncode != 0 and "Permission denied" in listed.stderr
        for path in files:
            read = as_nobody("head", "-c", "1", str(path))
            assert read.returncode != 0 and "Permission denied" in read.stderr


@as_root
def test_a_folder_the_operator_made_is_left_as_set_and_the_files_in_it_stay_private(corpus_db, open_to_all,
                                                                                   monkeypatch, capsys):
    shared = open_to_all / "team-cache"  # the operator's, holding other things: left 0755
    shared.mkdir(mode=0o755)
    shared.chmod(0o755)
    (shared / "README.txt").write_text("cache of the support dashboards\n")
    (shared / "README.txt").chmod(0o644)
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(shared))
    fill(corpus_db, capsys)
    with AnalysisCache(shared) as cache:
        cache.put("s", "t", "k", {("", "c"): [1]})
        cache_files = [p for p in shared.iterdir() if p.name.startswith(FILE_NAME)]
        assert len(cache_files) >= 3 and all(mode(p) == 0o600 for p in cache_files)
        assert mode(shared) == 0o755
        listed = as_nobody("ls", str(shared))
        assert listed.returncode == 0 and FILE_NAME in listed.stdout  # the folder is the operator's to open
        assert as_nobody("head", "-c", "1", str(shared / "README.txt")).returncode == 0
        for path in cache_files:
            read = as_nobody("head", "-c", "1", str(path))
            assert read.returncode != 0 and "Permission denied" in read.stderr


def test_folders_the_inspector_creates_are_private_whatever_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        with AnalysisCache(tmp_path / "made" / "by" / "the-inspector") as cache:
            cache.put("s", "t", "k", {("", "c"): [1]})
    finally:
        os.umask(old)
    assert [mode(tmp_path / "made"), mode(tmp_path / "made" / "by"), mode(tmp_path / "made" / "by" / "the-inspector")] \
        == [0o700] * 3
    assert mode(tmp_path / "made" / "by" / "the-inspector" / FILE_NAME) == 0o600


def test_a_cache_an_older_version_left_readable_is_made_private_and_emptied(tmp_path, monkeypatch):
    """The default folder and a cache file an older version made 0755 and 0644, holding bare hashes (schema 1):
    tightened, and the file deleted and started anew."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    folder = default_cache_dir()
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    bare = hashlib.sha256(msgpack.packb(DB_PASSWORD)).hexdigest()[:32]
    with sqlite3.connect(folder / FILE_NAME) as conn:
        conn.execute("CREATE TABLE about (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO about VALUES ('schema', '1')")
        conn.execute("CREATE TABLE facts (value BLOB)")
        conn.execute("INSERT INTO facts VALUES (?)", [msgpack.packb([bare])])
    (folder / FILE_NAME).chmod(0o644)
    with AnalysisCache(folder) as cache:
        assert cache.notice and "deleted" in cache.notice
        assert mode(folder) == 0o700 and mode(folder / FILE_NAME) == 0o600
        assert cache.stats()["facts"] == 0
    assert bare.encode() not in (folder / FILE_NAME).read_bytes()


# -- fingerprints -------------------------------------------------------------------------------------------------

def guessed_digests(words=GUESSES) -> set[str]:
    """Every hash of a guess the cache could have kept: of its text, of it as stored (msgpack, JSON), and of a map
    entry holding it under each name the corpus uses (sha256 whole and cut as the sizes keep it, and md5)."""
    found = set()
    for word in words:
        forms = [word.encode(), msgpack.packb(word), json.dumps(word).encode()]
        for name in ("db_password", "memo", "password"):
            forms += [msgpack.packb(name) + msgpack.packb(word), msgpack.packb({name: word}),
                      json.dumps({name: word}).encode()]
        for form in forms:
            digest = hashlib.sha256(form).hexdigest()
            found |= {digest, digest[:32], hashlib.md5(form).hexdigest()}
    return found


def file_bytes(path: Path) -> bytes:
    return b"".join(Path(f"{path}{suffix}").read_bytes() for suffix in ("", "-wal")
                    if Path(f"{path}{suffix}").exists())


def stored_anywhere(raw: bytes, digests: set[str]) -> list[str]:
    return [d for d in digests if d.encode() in raw or bytes.fromhex(d) in raw]


def test_no_stored_byte_is_the_hash_of_a_guess_and_masked_values_keep_no_fingerprint(corpus_db, tmp_path):
    with AnalysisCache(tmp_path / "cache") as cache, open_store(f"sqlite:///{corpus_db}") as store:
        measured = measure_thread(store, CACHE_THREAD, cache=cache)
        thread_health(store, CACHE_THREAD, cache=cache)
        replay_thread(store, CACHE_THREAD, cache=cache)
        raw = file_bytes(cache.path)
        assert DB_PASSWORD.encode() not in raw and API_KEY.encode() not in raw and KEPT.encode() not in raw
        assert stored_anywhere(raw, guessed_digests()) == []
        facts = cache.get(store.fact_identity(), CACHE_THREAD, KIND, [("", c) for c in CHECKPOINTS])
        assert len(facts) == 2
        second = facts[("", CHECKPOINTS[1])][5]
        # a plain value keeps its fingerprint, read back as the store gives it, and sealed in the file
        blob = next(item for item in second["notes"][4] if item[0] == "blob")
        plain = hashlib.sha256(msgpack.packb("blob") + msgpack.packb(SMALL_BLOB)).hexdigest()[:32]
        assert blob[2] == plain and stored_anywhere(raw, {plain}) == []
        # the password under its secret name and the key (a whole value the mask replaces): no fingerprint, nor
        # of the fields holding them
        first = facts[("", CHECKPOINTS[0])][5]
        password = next(item for item in first["config"][4] if item[0] == "db_password")
        memo = next(item for item in first["notes"][4] if item[0] == "memo")
        assert password[2] is None and memo[2] is None
        assert first["config"][1] is None and first["notes"][1] is None
        assert second["config"][1] is None and second["notes"][1] is None  # both changed since the first
        assert isinstance(first["messages"][1], str)  # a field the mask leaves alone keeps its fingerprint
        # the features reading fingerprints (repeats, unchanged fields) answer as without the cache
        assert measure_thread(store, CACHE_THREAD, cache=cache) == measured == measure_thread(store, CACHE_THREAD)


def put_named(db: Path, steps: range, parent: str | None = None) -> str | None:
    """Checkpoints of a thread holding a field named like a secret, and a map with an entry under such a name."""
    with sqlite3.connect(db, check_same_thread=False) as conn:
        saver = SqliteSaver(conn)
        saver.setup()
        planting = Planting(db.parent, conn, saver)
        for step in steps:
            parent = planting.put("named", {"db_password": DB_PASSWORD, "title": f"step {step}",
                                            "config": {"region": "eu", "api_key": API_KEY}}, {"step": step}, parent=parent)
    return parent


def test_a_field_named_like_a_secret_keeps_no_fingerprint_and_its_repeats_are_still_counted(tmp_path):
    """Its repeats are counted from the mark the cache shows instead (field and length), in the rows measured
    and in those read back alike, so a look after new checkpoints adds up as a look from scratch."""
    db = tmp_path / "named.db"
    parent = put_named(db, range(3))
    with AnalysisCache(tmp_path / "cache") as cache, open_store(f"sqlite:///{db}") as store:
        plain = measure_thread(store, "named")
        assert measure_thread(store, "named", cache=cache) == plain
        assert measure_thread(store, "named", cache=cache) == plain  # read back from the cache
        assert plain.field("db_password").repeated_bytes > 0
        keys = [(r.checkpoint_ns, r.checkpoint_id) for r in store.timeline_keys("named")]
        facts = cache.get(store.fact_identity(), "named", KIND, keys)
        assert [fact[5]["db_password"][1] for fact in facts.values()] == [None] * 3  # none kept
        assert stored_anywhere(file_bytes(cache.path), guessed_digests()) == []
        rows = list(sizes_stream(store, "named", cache))
        assert len({row.channels["db_password"].digest for row in rows}) == 1  # still one payload, stored thrice
        put_named(db, range(3, 6), parent)  # three more: read after the three the cache holds
        assert measure_thread(store, "named", cache=cache) == measure_thread(store, "named")


def test_fingerprints_are_sealed_under_the_cache_key_and_read_back_as_they_were(tmp_path):
    with AnalysisCache(tmp_path / "a") as one, AnalysisCache(tmp_path / "b") as other:
        digest = hashlib.sha256(msgpack.packb(DB_PASSWORD)).hexdigest()[:32]
        for cache in (one, other):
            cache.put("s", "t", "k", {("", "c1"): [Fingerprint(digest), 7], ("", "c2"): [Fingerprint(digest), 7]})
            assert cache.get("s", "t", "k", [("", "c1"), ("", "c2")]) == {("", "c1"): [digest, 7], ("", "c2"): [digest, 7]}
        sealed = [set(sqlite3.connect(c.path).execute("SELECT value FROM facts")) for c in (one, other)]
        assert len(sealed[0]) == 2 and not sealed[0] & sealed[1]  # per place, per cache: equal values look unequal
        key = sqlite3.connect(one.path).execute("SELECT value FROM about WHERE key = 'key'").fetchone()[0]
        with sqlite3.connect(other.path) as conn:  # another cache's key cannot read them: a miss, dropped
            conn.execute("UPDATE facts SET value = ? WHERE checkpoint = 'c1'",
                         [next(v for (v,) in sealed[0])])
        assert other.get("s", "t", "k", [("", "c1")]) == {} and other.unreadable == 1
        assert len(key) == 64 and stored_anywhere(file_bytes(one.path), {digest}) == []


def test_a_fingerprint_sealed_under_another_key_or_place_never_reads_back():
    """Every sealed fingerprint carries a check: read under any other key, or for another place, it is a miss
    (``WrongShape``), never a wrong fingerprint taken for the stored one."""
    place = ("s", "t", "k", "", "c1")
    sealed = FactSealer(b"k" * 32, place).pack([Fingerprint("d83c28aea23ea6ddfa08cf34db5abfc6"), 7])
    assert FactSealer(b"k" * 32, place).unpack(sealed) == ["d83c28aea23ea6ddfa08cf34db5abfc6", 7]
    two = FactSealer(b"k" * 32, place).pack([Fingerprint("plain text"), Fingerprint("ab")])
    assert FactSealer(b"k" * 32, place).unpack(two) == ["plain text", "ab"]
    read_back = 0
    for n in range(3000):  # without the check about 1 in 128 would read back as some other text
        for key, where in ((new_key(), place), (b"k" * 32, (*place[:4], f"c{n + 2}"))):
            try:
                FactSealer(key, where).unpack(sealed)
                read_back += 1
            except WrongShape:
                pass
    assert read_back == 0


@pytest.mark.postgres
def test_replicas_share_the_key_kept_in_the_postgresql_cache(postgres_dsn):
    name = "inspector_cache_key"
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    url = with_database(postgres_dsn.admin_dsn, name)
    digest = hashlib.sha256(msgpack.packb(DB_PASSWORD)).hexdigest()[:32]
    with PostgresAnalysisCache(url) as first, PostgresAnalysisCache(url) as second:
        first.put("s", "t", "k", {("", "c"): [Fingerprint(digest)]})
        assert second.get("s", "t", "k", [("", "c")]) == {("", "c"): [digest]}
    with psycopg.connect(url) as conn:
        keys = conn.execute("SELECT value FROM inspector_cache_about WHERE key = 'key'").fetchall()
        stored = b"".join(bytes(v) for (v,) in conn.execute("SELECT value FROM inspector_cache_facts"))
    assert len(keys) == 1 and len(keys[0][0]) == 64
    assert stored_anywhere(stored, {digest}) == []


@pytest.mark.postgres
def test_small_postgresql_blobs_keep_no_fingerprint(postgres_dsn, tmp_path):
    """PostgreSQL keeps non-scalar values in blobs whose contents stay on the server: a blob of up to 1 KiB (the
    map holding ``db_password``) keeps no md5 in the cache; a longer one keeps its md5, sealed."""
    from test_cache_identity import write_pg

    admin, readonly = written_database(postgres_dsn, "inspector_cache_blobs", lambda url: write_pg(url, "b" * 5000))
    with psycopg.connect(admin) as conn:
        md5 = dict(conn.execute("SELECT channel, md5(blob) FROM checkpoint_blobs WHERE version = '2'").fetchall())
    with AnalysisCache(tmp_path / "cache") as cache, open_store(readonly) as store:
        measured = measure_thread(store, CACHE_THREAD, cache=cache)
        facts = cache.get(store.fact_identity(), CACHE_THREAD, KIND, [("", c) for c in CHECKPOINTS])
        second = facts[("", CHECKPOINTS[1])][5]
        assert second["config"][1] is None and second["notes"][1] == md5["notes"]
        assert stored_anywhere(file_bytes(cache.path), {md5["config"], md5["notes"]}) == []
        assert measure_thread(store, CACHE_THREAD, cache=cache) == measured == measure_thread(store, CACHE_THREAD)
