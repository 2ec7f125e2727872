"""Bundles are bounded before they are opened: bytes, members and expansion read from the zip's directory
(nothing extracted past them); clashing names refused; a bundle unpacked once per content and reused;
every malformed bundle one clear line."""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

import hostile_corpus as corpus
import pytest
from bundle_helpers import deflated_zip
from corpus.hostile_structure import PLAIN

from inspector.bundle import write_bundle
from inspector.cli import main
from inspector.settings import Settings
from inspector.store import StoreError, open_store
from inspector.store.bundle import DB_MEMBER, MANIFEST_MEMBER, BundleStore

pytestmark = pytest.mark.timeout(120)
OUTPUTS = f"threads/{PLAIN}/user-data/outputs"


@pytest.fixture(scope="module")
def members(tmp_path_factory) -> dict[str, bytes]:
    """The members of a real bundle of an ordinary thread (written from a SqliteSaver store)."""
    folder = tmp_path_factory.mktemp("bounds")
    db = corpus.write_corpus(folder / "store", cases=["plain"])
    with open_store(str(db)) as store:
        write_bundle(store, PLAIN, folder / "plain.zip", settings=Settings())
    with zipfile.ZipFile(folder / "plain.zip") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def zip_of(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=zipfile.ZIP_DEFLATED)
    return path


def one_line(capsys, path: Path, *extra: str) -> str:
    assert main(["threads", "--db", str(path), *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_a_zip_bomb_is_refused_from_its_directory_before_anything_is_unpacked(members, tmp_path, capsys):
    bomb = zip_of(tmp_path / "bomb.zip", {**members, f"{OUTPUTS}/zeros.txt": bytes(20_000_000)})
    assert bomb.stat().st_size < 200_000
    cache = tmp_path / "cache"
    with pytest.raises(StoreError, match=r"expands [\d,]+ times .* past bundle_open_max_ratio \(200\)"):
        open_store(str(bomb), bundle_cache_dir=cache)
    assert [p for p in cache.rglob("*") if p.is_file()] == []  # nothing was unpacked
    assert "a zip bomb is never unpacked" in one_line(capsys, bomb)
    with open_store(str(bomb), bundle_max_ratio=10_000) as store:  # the operator may allow it
        assert [t.thread_id for t in store.threads()] == [PLAIN]


def test_a_member_flood_is_refused_from_its_directory(members, tmp_path, capsys, monkeypatch):
    flood = zip_of(tmp_path / "flood.zip", {**members, **{f"{OUTPUTS}/f{i}.txt": b"x" for i in range(300)}})
    with pytest.raises(StoreError, match=r"holds 30\d members, more than 100; raise bundle_open_max_members"):
        open_store(str(flood), bundle_max_members=100)
    monkeypatch.setenv("INSPECTOR_BUNDLE_OPEN_MAX_MEMBERS", "100")
    assert "raise bundle_open_max_members" in one_line(capsys, flood)
    monkeypatch.delenv("INSPECTOR_BUNDLE_OPEN_MAX_MEMBERS")
    with open_store(str(flood)) as store:  # within the default
        assert len(list((store.user_data_root / OUTPUTS).iterdir())) == 301


def test_a_file_named_like_a_folder_and_a_name_given_twice_are_refused(members, tmp_path):
    clash = tmp_path / "clash.zip"
    with zipfile.ZipFile(clash, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr(f"{OUTPUTS}/a", b"a file")
        archive.writestr(f"{OUTPUTS}/a/b.md", b"# inside a folder named a")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr(f"{OUTPUTS}/report.md", b"a second report.md")
        archive.writestr(f"{OUTPUTS}/{'d/' * 2000}deep.md", b"a path too long for the file system")
    with open_store(str(clash)) as store:
        assert f"{OUTPUTS}/a" in store.refused and f"{OUTPUTS}/report.md" in store.refused
        assert any(name.endswith("deep.md") for name in store.refused)
        assert (store.user_data_root / OUTPUTS / "a" / "b.md").read_bytes() == b"# inside a folder named a"
        assert [t.thread_id for t in store.threads()] == [PLAIN]


@pytest.mark.parametrize("manifest", [b"[" * 100_000, b"{" * 50_000, b"not json", b'"a string"'])
def test_a_malformed_manifest_opens_with_no_manifest(members, tmp_path, capsys, manifest):
    path = zip_of(tmp_path / "m.zip", {**members, MANIFEST_MEMBER: manifest})
    with open_store(str(path)) as store:
        assert store.manifest == {} and [t.thread_id for t in store.threads()] == [PLAIN]
    assert main(["state", PLAIN, "--db", str(path), "--quiet"]) == 0
    assert "Error" not in capsys.readouterr().err


def test_a_bundle_whose_database_cannot_be_had_is_one_line(members, tmp_path, capsys):
    path = zip_of(tmp_path / "none.zip", {n: d for n, d in members.items() if n != DB_MEMBER})
    assert "has no checkpoints.db" in one_line(capsys, path)
    twice = tmp_path / "twice.zip"
    with zipfile.ZipFile(twice, "w") as archive, pytest.warns(UserWarning, match="Duplicate name"):
        for name, data in members.items():
            archive.writestr(name, data)
        archive.writestr(DB_MEMBER, b"which database is meant?")
    assert "its checkpoints.db member cannot be unpacked (a name clash)" in one_line(capsys, twice)


def test_a_truncated_bundle_is_one_line(members, tmp_path, capsys):
    whole = zip_of(tmp_path / "whole.zip", members)
    cut = tmp_path / "cut.zip"
    cut.write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    assert "not a readable zip" in one_line(capsys, cut)


def test_a_bundle_is_unpacked_once_per_content_and_reused(members, tmp_path):
    path = zip_of(tmp_path / "once.zip", members)
    cache = tmp_path / "cache"
    with open_store(str(path), bundle_cache_dir=cache) as first:
        assert isinstance(first, BundleStore)
        root, inode = first.user_data_root, os.stat(first.path).st_ino
    with open_store(str(path), bundle_cache_dir=cache) as again:  # the same content: the same copy
        assert again.user_data_root == root and os.stat(again.path).st_ino == inode
        assert [t.thread_id for t in again.threads()] == [PLAIN]
    assert root.parent == cache and os.stat(cache).st_mode & 0o077 == 0
    other = zip_of(tmp_path / "other.zip", {**members, f"{OUTPUTS}/extra.md": b"# more"})
    with open_store(str(other), bundle_cache_dir=cache) as changed:  # other content: its own copy
        assert changed.user_data_root != root
    for i in range(6):
        with open_store(str(zip_of(tmp_path / f"n{i}.zip", {**members, f"{OUTPUTS}/n.md": str(i).encode()})),
                        bundle_cache_dir=cache):
            pass
    assert len(kept(cache)) == 4  # the most recently opened, however recently the others were
    assert (cache / hashlib.sha256((tmp_path / "n5.zip").read_bytes()).hexdigest()) in kept(cache)


def kept(cache: Path) -> list[Path]:
    return [p for p in cache.iterdir() if not p.name.startswith(".")]


def test_distinct_bundles_never_fill_the_cache_past_its_count_or_its_bytes(members, tmp_path):
    """Every distinct bundle opened stays within the bounds, oldest out first; a copy a store is reading is
    never removed from under it, and one that does not fit opens from a temporary copy removed when closed."""
    cache = tmp_path / "cache"
    bundles = [zip_of(tmp_path / f"d{i}.zip", {**members, f"{OUTPUTS}/pad.bin": os.urandom(300_000) + bytes([i])})
               for i in range(5)]
    one = sum(len(data) for data in members.values()) + 300_001
    bound = 3 * one + 1000  # room for three copies
    for path in bundles:
        with open_store(str(path), bundle_cache_dir=cache, bundle_cache_max_bytes=bound) as store:
            assert store.user_data_root.parent == cache
        assert len(kept(cache)) <= 3 and sum(f.stat().st_size for f in cache.rglob("*") if f.is_file()) <= bound + 4096
    assert len(kept(cache)) == 3
    held = [open_store(str(path), bundle_cache_dir=cache, bundle_cache_max_bytes=bound) for path in bundles[2:]]
    try:  # three copies are read now: a fourth bundle fits nowhere in the cache
        with open_store(str(bundles[0]), bundle_cache_dir=cache, bundle_cache_max_bytes=bound) as extra:
            root = extra.user_data_root
            assert root.parent != cache and [t.thread_id for t in extra.threads()] == [PLAIN]
        assert not root.exists()  # the temporary copy is gone once closed
        assert sorted(kept(cache)) == sorted(s.user_data_root for s in held)
        assert all([t.thread_id for t in s.threads()] == [PLAIN] for s in held)  # still readable
    finally:
        for store in held:
            store.close()
    with open_store(str(bundles[0]), bundle_cache_dir=cache, bundle_cache_max_bytes=bound) as again:
        assert again.user_data_root.parent == cache and len(kept(cache)) == 3  # closed copies make room
    with open_store(str(bundles[1]), bundle_cache_dir=cache, bundle_cache_max_bytes=one // 2) as big:
        assert big.user_data_root.parent != cache  # bigger than the whole cache: a copy of its own


def test_a_bomb_of_many_members_each_under_the_ratio_floor_is_refused_before_anything_is_unpacked(members, tmp_path,
                                                                                                  capsys):
    """Members of exactly 1,000,000 bytes each pass the one-member check; their sum expands past the ratio."""
    bomb = deflated_zip(tmp_path / "many.zip", members, {f"{OUTPUTS}/z{i}.bin": 1_000_000 for i in range(100)})
    assert bomb.stat().st_size < 400_000
    cache = tmp_path / "cache"
    with pytest.raises(StoreError, match=r"expands [\d,]+ times in all .* in 10\d members\), past "
                                          r"bundle_open_max_ratio \(200\); a zip bomb is never unpacked"):
        open_store(str(bomb), bundle_cache_dir=cache)
    assert [p for p in cache.rglob("*") if p.is_file()] == []  # nothing was unpacked
    assert "a zip bomb is never unpacked" in one_line(capsys, bomb)
    with open_store(str(bomb), bundle_max_ratio=100_000, bundle_cache_dir=cache) as store:  # the operator may allow it
        assert len(list((store.user_data_root / OUTPUTS).iterdir())) == 101
    small = deflated_zip(tmp_path / "small.zip", members, {f"{OUTPUTS}/z{i}.bin": 1_000_000 for i in range(20)})
    with open_store(str(small)) as store:  # 20 MB in all: too little to bomb, whatever it expands
        assert [t.thread_id for t in store.threads()] == [PLAIN]


@pytest.mark.parametrize("kind", ["bomb", "clash", "manifest"])
def test_the_dashboard_on_a_malformed_bundle_says_so_in_one_message(members, tmp_path, app_on_store, kind):
    from ui_app import all_text, open_page

    made = {"bomb": {**members, f"{OUTPUTS}/zeros.txt": bytes(20_000_000)},
            "clash": {**members, f"{OUTPUTS}/report.md/x": b"a folder named like a file"},
            "manifest": {**members, MANIFEST_MEMBER: b"[" * 100_000}}[kind]
    app_on_store(str(zip_of(tmp_path / f"{kind}.zip", made)))
    at = open_page("threads")
    assert not at.exception, [e.value for e in at.exception]
    if kind == "bomb":
        assert [e.value for e in at.error if "a zip bomb is never unpacked" in e.value]
    else:
        assert PLAIN in all_text(at) + "".join(df.value.to_csv() for df in at.dataframe)
