"""Support bundles: one thread of a real store, its files and a manifest, opened again somewhere else.

The support case is a real run of the demo graph (images on disk, an artifact)
with a fake API key in the user's message, the artifact, a tool call and the
run's metadata. ``write_bundle`` only reads the source; LangGraph's own
SqliteSaver reads the bundle's checkpoint file; ``--db FILE.zip`` opens it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import stat
import zipfile
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest
from bundle_helpers import CASE, FAKE_KEY, put_checkpoint, write_support_case
from langgraph.checkpoint.sqlite import SqliteSaver

from inspector.bundle import write_bundle
from inspector.bundle.summary import summarize
from inspector.cli import main
from inspector.profiles.media_report import media_report
from inspector.settings import Settings
from inspector.store import StoreError, open_store
from inspector.store.bundle import DB_MEMBER, MANIFEST_MEMBER, BundleStore


@pytest.fixture(scope="module")
def case(tmp_path_factory) -> Path:
    """The support case's store (its thread folders beside it, as for the demo database)."""
    folder = tmp_path_factory.mktemp("support")
    db = folder / "store.db"
    write_support_case(db, folder)
    return db


def every_state(store) -> dict:
    out = {}
    for summary in store.threads(limit=1000):
        for row in store.timeline(summary.thread_id):
            state = store.state(summary.thread_id, row.checkpoint_id, row.checkpoint_ns)
            out[(row.checkpoint_ns, row.checkpoint_id)] = (row.parent_checkpoint_id, state.values, state.metadata,
                                                           [(w.task_id, w.idx, w.channel, w.value) for w in state.writes])
    return out


def moved_away(case: Path, tmp_path: Path) -> Path:
    """The source's thread folders moved, so only the bundle can serve the files."""
    target = tmp_path / "moved-threads"
    shutil.move(case.parent / "threads", target)
    return target


def test_redacted_bundle_opens_elsewhere_with_its_files_and_no_trace_of_the_key(case, tmp_path):
    """Acceptance: images and artifacts open from another folder; the key's bytes are nowhere in the zip."""
    out = tmp_path / "made" / "case.zip"
    out.parent.mkdir()
    key = FAKE_KEY.encode()
    assert case.read_bytes().count(key) > 3  # the source holds it in messages, tool calls and metadata
    with open_store(str(case)) as store:
        manifest = write_bundle(store, CASE, out, settings=Settings())
    redaction = manifest["redaction"]
    assert redaction["enabled"] and redaction["marks"]["api-key"] > 0
    assert {"messages", "metadata", "files"} <= set(redaction["values_masked"])
    assert [f["path"] for f in manifest["user_data"]["files"] if f["redacted"]] == ["/mnt/user-data/outputs/notes.md"]
    raw = out.read_bytes()
    assert key not in raw
    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        assert len(names) == 5 and DB_MEMBER in names  # the database, the manifest, two images, the notes
        for name in names:  # every byte of every member: the SQLite file's free and unused pages included
            assert key not in archive.read(name), f"the key survives in {name}"
            assert FAKE_KEY[8:20].encode() not in archive.read(name), f"part of the key survives in {name}"
        archive.extract(DB_MEMBER, tmp_path / "db")
    with closing(sqlite3.connect(tmp_path / "db" / DB_MEMBER)) as conn:
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0  # written fresh, then VACUUMed
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"

    elsewhere = tmp_path / "support-desk"
    elsewhere.mkdir()
    shutil.copy(out, elsewhere / "case.zip")
    with open_store(str(elsewhere / "case.zip")) as bundle:
        state = bundle.state(CASE)
        human = state.values["messages"][0]["content"]
        assert "[redacted" in human and "Deploys fail since 10:00" in human  # the rest of the message stays
        report = media_report(bundle, CASE)
        assert report.user_data.origin == "support bundle"
        assert [c.key for c in report.images if c.decoded and not c.problems] == [
            "/mnt/user-data/uploads/chart.png", "/mnt/user-data/uploads/board.jpg"]
        (notes,) = report.artifacts
        assert notes.exists and not notes.problems
        assert FAKE_KEY not in Path(notes.physical_path).read_text()


def test_bundle_is_an_exact_copy_langgraph_reads_and_every_page_needs(case, tmp_path):
    out = tmp_path / "plain.zip"
    with open_store(str(case)) as store:
        source_states = every_state(store)
        manifest = write_bundle(store, CASE, out, reveal=True, created_by="support@example.com",
                                settings=Settings(allow_reveal=True))
    source_digest = hashlib.sha256(case.read_bytes()).hexdigest()
    assert manifest["created_by"] == "support@example.com" and manifest["source"] == str(case)
    assert manifest["checkpoints"] == len(source_states) and manifest["redaction"]["enabled"] is False
    assert {f["path"] for f in manifest["user_data"]["files"]} == {
        "/mnt/user-data/uploads/chart.png", "/mnt/user-data/uploads/board.jpg", "/mnt/user-data/outputs/notes.md"}
    assert hashlib.sha256(case.read_bytes()).hexdigest() == source_digest  # the source was only read

    moved_away(case, tmp_path)
    try:
        with open_store(str(out)) as bundle:
            assert isinstance(bundle, BundleStore)
            assert every_state(bundle) == source_states
            report = media_report(bundle, CASE)
            assert all(c.decoded and not c.problems for c in report.images) and len(report.images) == 2
            assert all(a.exists for a in report.artifacts)
            db = bundle.path
        assert not db.exists()  # the private copy goes with the store
    finally:
        shutil.move(tmp_path / "moved-threads", case.parent / "threads")

    with zipfile.ZipFile(out) as archive:
        extracted = tmp_path / "x"
        archive.extract(DB_MEMBER, extracted)
    with closing(sqlite3.connect(extracted / DB_MEMBER)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one self-contained file
        saver = SqliteSaver(conn)  # (its setup() switches this extracted copy to WAL)
        newest = saver.get_tuple({"configurable": {"thread_id": CASE, "checkpoint_ns": ""}})
        assert type(newest.checkpoint["channel_values"]["messages"][0]).__name__ == "HumanMessage"
        assert len(list(saver.list({"configurable": {"thread_id": CASE}}))) == len(source_states)


def test_refused_missing_and_oversized_files_are_left_out_and_stay_refused(case, tmp_path):
    db = tmp_path / "store.db"
    db.write_bytes(case.read_bytes())  # the copy's thread_data names the case's folders: read from --data-dir
    outputs = case.parent / "threads" / CASE / "user-data" / "outputs"
    big = outputs / "big.bin"
    big.write_bytes(b"\x00" * 5000)
    os.mkfifo(outputs / "pipe.txt")
    (tmp_path / "host.txt").write_text("the host's file")
    os.symlink(tmp_path / "host.txt", outputs / "link.txt")
    with closing(sqlite3.connect(db, check_same_thread=False)) as conn:
        saver = SqliteSaver(conn)
        head = saver.get_tuple({"configurable": {"thread_id": CASE, "checkpoint_ns": ""}})
        checkpoint = {**head.checkpoint, "id": "1f1ffff0-0000-6000-8fff-000000000001"}
        checkpoint["channel_values"] = {**checkpoint["channel_values"], "artifacts": [
            "/mnt/user-data/outputs/notes.md", "/etc/passwd", "/mnt/user-data/outputs/../../../../escape.txt",
            "/mnt/user-data/outputs/gone.md", "/mnt/user-data/outputs/big.bin", "/mnt/user-data/outputs/pipe.txt",
            "/mnt/user-data/outputs/link.txt"]}
        saver.put(head.config, checkpoint, {"source": "update", "step": 99, "parents": {}}, {})
        conn.commit()
    out = tmp_path / "case.zip"
    try:
        with open_store(str(db)) as store:
            manifest = write_bundle(store, CASE, out, data_dir=case.parent,
                                    settings=replace(Settings(), bundle_max_file_bytes=4000))
    finally:
        for planted in (big, outputs / "pipe.txt", outputs / "link.txt"):
            planted.unlink()
    reasons = {item["what"]: item["reason"] for item in manifest["left_out"]}
    assert reasons["/etc/passwd"].startswith("refused: outside /mnt/user-data")
    assert reasons["/mnt/user-data/outputs/../../../../escape.txt"].startswith("refused:")
    assert reasons["/mnt/user-data/outputs/gone.md"].startswith("not found on this machine")
    assert "over the 4,000-byte limit" in reasons["/mnt/user-data/outputs/big.bin"]
    assert "named pipe" in reasons["/mnt/user-data/outputs/pipe.txt"]
    assert "outside the thread's user-data folder" in reasons["/mnt/user-data/outputs/link.txt"]
    summary = summarize(manifest)  # what the page says beside the download
    too_big = sum("over the 4,000-byte limit" in reason for reason in reasons.values())  # big.bin, an image
    assert summary.left_out_by_why == {"refused: outside the thread's folder": 3, "not found on this machine": 1,
                                       "too big for one file": too_big,
                                       "not a regular file (a pipe, device or folder)": 1} and too_big >= 1
    assert summary.lines()[2] == (f"Left out: {too_big} too big for one file, 3 refused: outside the thread's folder, "
                                  "1 not found on this machine, 1 not a regular file (a pipe, device or folder).")
    assert {f["path"] for f in summary.files} == {f["path"] for f in manifest["user_data"]["files"]}
    assert "notes.md" in summary.lines()[1] and summary.masked and "notes.md" in summary.masking_line()
    with open_store(str(out)) as bundle:
        artifacts = {a.path: a for a in media_report(bundle, CASE).artifacts}
    assert artifacts["/etc/passwd"].refused and artifacts["/mnt/user-data/outputs/../../../../escape.txt"].refused
    assert artifacts["/mnt/user-data/outputs/notes.md"].exists
    assert not artifacts["/mnt/user-data/outputs/big.bin"].exists


def zip_with(path: Path, members: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return path


def test_a_crafted_zip_cannot_write_outside_its_folder(case, tmp_path):
    good = tmp_path / "good.zip"
    with open_store(str(case)) as store:
        write_bundle(store, CASE, good, settings=Settings())
    with zipfile.ZipFile(good) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    evil = zip_with(tmp_path / "evil.zip", {**members, "../escaped.txt": b"x", "/tmp/abs-escape.txt": b"x",
                                            "threads/t/user-data/outputs/../../../../up.txt": b"x",
                                            "elsewhere/notes.txt": b"x"},
                    links={f"threads/{CASE}/user-data/outputs/link": "/etc/passwd"})
    with open_store(str(evil)) as bundle:
        assert set(bundle.refused) == {"../escaped.txt", "/tmp/abs-escape.txt", "elsewhere/notes.txt",
                                       "threads/t/user-data/outputs/../../../../up.txt",
                                       f"threads/{CASE}/user-data/outputs/link"}
        root = bundle.user_data_root
        assert not (root / f"threads/{CASE}/user-data/outputs/link").exists()
        assert [t.thread_id for t in bundle.threads()] == [CASE]
    assert not (tmp_path / "escaped.txt").exists() and not Path("/tmp/abs-escape.txt").exists()


@pytest.mark.parametrize("make, message", [
    (lambda p: p.write_bytes(b"not a zip at all"), "is not a readable zip"),
    (lambda p: zip_with(p, {MANIFEST_MEMBER: b"{}"}), "is not a state-inspector bundle"),
    (lambda p: zip_with(p, {DB_MEMBER: b"SQLite format 3\x00 but not really"}), "not a readable SQLite database"),
])
def test_a_broken_bundle_is_one_clear_line(tmp_path, capsys, make, message):
    path = tmp_path / "broken.zip"
    make(path)
    with pytest.raises(StoreError, match=message):
        open_store(str(path))
    assert main(["threads", "--db", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_bundle_command(case, tmp_path, capsys):
    out = tmp_path / "cli.zip"
    assert main(["bundle", "--db", str(case), CASE, "--out", str(out), "--by", "desk", "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["created_by"] == "desk" and manifest["redaction"]["enabled"] and out.is_file()
    assert main(["threads", "--db", str(out), "--json"]) == 0
    assert [t["thread_id"] for t in json.loads(capsys.readouterr().out)["threads"]] == [CASE]
    assert main(["bundle", "--db", str(case), CASE, "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "Values masked by the redaction rules: " in said and "api-key in " in said and "messages (" in said
    assert "checkpoint(s) and" in said and "3 file(s)" in said
    assert main(["bundle", "--db", str(case), CASE, "--out", str(tmp_path / "x.tar")]) == 2
    assert "--out must name a .zip file" in capsys.readouterr().err
    assert main(["bundle", "--db", str(case), "no-such-thread", "--out", str(tmp_path / "y.zip")]) == 2
    assert "no thread 'no-such-thread'" in capsys.readouterr().err and not (tmp_path / "y.zip").exists()


def test_an_unmasked_bundle_needs_the_operators_allow_reveal_and_is_audited(case, tmp_path, capsys, monkeypatch):
    log = tmp_path / "audit.log"
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    out = tmp_path / "raw.zip"
    assert main(["bundle", "--db", str(case), CASE, "--out", str(out), "--reveal"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: revealing secrets is turned off (set allow_reveal to allow it)"] and not out.exists()
    assert not log.exists()  # refused before anything was read
    with pytest.raises(PermissionError), open_store(str(case)) as store:
        write_bundle(store, CASE, out, reveal=True, settings=Settings())
    assert not out.exists()

    assert main(["bundle", "--db", str(case), CASE, "--out", str(tmp_path / "masked.zip")]) == 0
    capsys.readouterr()
    monkeypatch.setenv("INSPECTOR_ALLOW_REVEAL", "true")
    assert main(["bundle", "--db", str(case), CASE, "--out", str(out), "--reveal", "--json"]) == 0
    manifest = json.loads(capsys.readouterr().out)
    assert manifest["redaction"]["enabled"] is False
    assert summarize(manifest).masking_line().startswith("Values NOT masked")
    with zipfile.ZipFile(out) as archive:
        assert FAKE_KEY.encode() in archive.read(DB_MEMBER)  # as stored, as the operator allowed
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["action"], r["thread"], r.get("what"), r.get("masked")) for r in records] == [
        ("export", CASE, "support bundle", True),
        ("export", CASE, "support bundle", False), ("reveal", CASE, "bundle", None)]
    assert all(r["via"] == "cli" and r["user"].startswith("cli:") for r in records)
    assert FAKE_KEY not in log.read_text()


def test_a_branch_thread_bundle_carries_the_files_of_the_thread_it_came_from(demo_db, tmp_path):
    """demo-branch's images sit in demo-deerflow-current's folder (DeerFlow copied no files): the bundle holds
    them under that thread's folder and resolves the branch's actual_paths there, not at the source."""
    out = tmp_path / "branch.zip"
    with open_store(str(demo_db)) as store:
        source = media_report(store, "demo-branch")
        manifest = write_bundle(store, "demo-branch", out, settings=Settings())
    assert source.images and all(c.decoded for c in source.images)
    (parent,) = manifest["user_data"]["branched_from"]
    assert parent["thread_id"] == "demo-deerflow-current" and parent["source_folders"]["uploads"]
    members = [f["member"] for f in manifest["user_data"]["files"]]
    assert any(m.startswith("threads/demo-deerflow-current/user-data/uploads/") for m in members)
    assert not [item for item in manifest["left_out"] if "missing" in item["reason"] or "refused" in item["reason"]]
    with open_store(str(out)) as bundle:
        report = media_report(bundle, "demo-branch")
        root = str(bundle.user_data_root)
        assert [p.thread_id for p in report.user_data.parents] == ["demo-deerflow-current"]
        assert [c.key for c in report.images] == [c.key for c in source.images]
        assert all(c.decoded and not c.problems and c.physical_path.startswith(root) for c in report.images)


def test_the_unpacked_size_limit_is_an_open_store_option_the_cli_takes_from_settings(tmp_path, capsys, monkeypatch):
    path = zip_with(tmp_path / "big.zip", {MANIFEST_MEMBER: b"{}", DB_MEMBER: b"x" * 5000})
    with pytest.raises(StoreError, match="holds more than 1,000 bytes; raise bundle_open_max_bytes"):
        open_store(str(path), bundle_max_bytes=1000)
    with pytest.raises(StoreError, match="not a readable SQLite database"):  # the default limit lets it through
        open_store(str(path))
    monkeypatch.setenv("INSPECTOR_BUNDLE_OPEN_MAX_BYTES", "1000")
    assert main(["threads", "--db", str(path)]) == 2
    assert "holds more than 1,000 bytes" in capsys.readouterr().err


def test_a_manifest_of_odd_shape_is_summarised_without_failing():
    """An older bundle (no ``kind``) or a hand-edited manifest: counts that are not counts read as 0."""
    summary = summarize({"thread_id": "t", "checkpoints": "many", "writes": -3, "namespaces": ["", "a:1"],
                         "user_data": {"files": ["x", {"path": "/mnt/user-data/uploads/a.txt", "bytes": True}]},
                         "left_out": [{"what": "f", "reason": "why not"}, "junk"], "redaction": None})
    assert summary.lines() == ["0 checkpoint(s) and 0 write(s) in the root graph and 1 subgraph namespace(s).",
                               "1 file(s), 0 B in all: a.txt.", "Left out: 1 other.",
                               "The manifest does not say whether values were masked: treat them as unmasked."]


def test_a_thread_no_app_profile_reads_is_bundled_without_deerflow_files(tmp_path, capsys):
    """A plain LangGraph thread whose fields carry DeerFlow's names (``artifacts``, ``uploaded_files``, a
    message's ``additional_kwargs.files``: one distinctive DeerFlow channel, too few to show DeerFlow), the
    files sitting where DeerFlow keeps a thread's files: read with the generic profile no file is looked for,
    and the manifest, the summary and the CLI say why; named DeerFlow, every one of them is bundled, the
    message's attachment included."""
    from langchain_core.messages import HumanMessage

    from inspector import profiles

    folder = tmp_path / "threads" / "plain" / "user-data"
    for name, area in (("notes.txt", "outputs"), ("brief.pdf", "uploads"), ("data.csv", "uploads")):
        (folder / area).mkdir(parents=True, exist_ok=True)
        (folder / area / name).write_bytes(f"{name} beside the store".encode())
    message = HumanMessage("see attached", id="m1", additional_kwargs={"files": [
        {"filename": "brief.pdf", "size": 26, "path": "/mnt/user-data/uploads/brief.pdf", "status": "uploaded"}]})
    db = tmp_path / "store.db"
    put_checkpoint(db, "plain", {
        "messages": [message], "artifacts": ["/mnt/user-data/outputs/notes.txt"],
        "uploaded_files": [{"filename": "data.csv", "size": 23, "path": "/mnt/user-data/uploads/data.csv"}]})
    with open_store(str(db)) as store:
        generic = write_bundle(store, "plain", tmp_path / "generic.zip", settings=Settings())
        profiles.name_profile("deerflow")
        named = write_bundle(store, "plain", tmp_path / "named.zip", settings=Settings())
    assert generic["user_data"]["files"] == [] and generic["left_out"] == []
    assert "LangGraph profile, which names no files" in generic["user_data"]["files_note"]
    with zipfile.ZipFile(tmp_path / "generic.zip") as archive:
        assert archive.namelist() == [DB_MEMBER, MANIFEST_MEMBER]
    assert summarize(generic).lines()[1].startswith("No files: read with the LangGraph profile, which names no files")
    assert {f["path"]: f["named_by"] for f in named["user_data"]["files"]} == {
        "/mnt/user-data/outputs/notes.txt": "artifacts", "/mnt/user-data/uploads/data.csv": "uploaded_files",
        "/mnt/user-data/uploads/brief.pdf": "messages (additional_kwargs.files)"}
    assert "files_note" not in named["user_data"]
    assert named["user_data"]["source_folders"]["outputs"] == str((folder / "outputs").resolve())
    line = summarize(named).lines()[1]
    assert line.startswith("3 file(s)") and "(named by message attachments 1, artifacts 1, uploaded_files 1)" in line
    assert main(["bundle", "--db", str(db), "plain", "--out", str(tmp_path / "cli-named.zip"), "--profile", "deerflow"]) == 0
    out = capsys.readouterr().out
    assert "file: /mnt/user-data/uploads/brief.pdf (26 bytes, named by messages (additional_kwargs.files))" in out
    assert main(["bundle", "--db", str(db), "plain", "--out", str(tmp_path / "cli.zip")]) == 0
    out = capsys.readouterr().out
    assert "No files: read with the LangGraph profile" in out and "--profile" in out and "file: " not in out


@pytest.mark.parametrize("thread_id", ["a\\b", "..", "id: ünï code", "x" * 300, "-\x1b[2J-"])
def test_any_thread_id_is_bundled_and_names_no_member_of_the_zip(tmp_path, thread_id):
    """An id with a backslash, ``..``, non-ASCII letters, more characters than a file name holds or control
    characters: the thread is bundled; its files sit under a hashed folder name, found again when the bundle
    is opened; where the id cannot name a folder at the source, its files are refused and the bundle says so."""
    from inspector import profiles
    from inspector.media.folders import PathRefused, check_id
    from inspector.store.bundle import bundle_folder

    outputs = tmp_path / "threads" / thread_id / "user-data" / "outputs"
    try:
        check_id(thread_id)
        outputs.mkdir(parents=True)
        (outputs / "notes.txt").write_text("the thread's notes")
        source_folder = True
    except (PathRefused, OSError):  # not a folder name here (a backslash, "..", too long)
        source_folder = False
    db = tmp_path / "store.db"
    put_checkpoint(db, thread_id, {"messages": [], "artifacts": ["/mnt/user-data/outputs/notes.txt"]})
    profiles.name_profile("deerflow")
    with open_store(str(db)) as store:
        manifest = write_bundle(store, thread_id, tmp_path / "out.zip", settings=Settings())
    with zipfile.ZipFile(tmp_path / "out.zip") as archive:
        names = archive.namelist()
    folder = bundle_folder(thread_id)
    assert folder.startswith("~") and len(folder) == 33 and "\\" not in "".join(names)
    assert manifest["thread_id"] == thread_id and manifest["checkpoints"] == 1
    if not source_folder:
        assert names == [DB_MEMBER, MANIFEST_MEMBER]
        (left,) = manifest["left_out"]
        assert left["kind"] == "refused" and left["reason"].startswith("refused: thread id ")
        assert any(why in left["reason"] for why in ("path characters", "cannot name a folder", "longer than"))
        return
    assert f"threads/{folder}/user-data/outputs/notes.txt" in names
    with open_store(str(tmp_path / "out.zip")) as bundle:
        (artifact,) = media_report(bundle, thread_id).artifacts
        assert artifact.exists and Path(artifact.physical_path).read_text() == "the thread's notes"
