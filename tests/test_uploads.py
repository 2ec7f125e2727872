"""Uploaded files and attachments: found, flagged and opened as artifacts are, on hostile folders too."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from inspector.cli import main
from inspector.media.folders import PathRefused
from inspector.media.located import FOLDER_NOT_FOUND, NOT_FOUND, locate_file, locate_refs
from inspector.media.previews import MAX_DOWNLOAD_BYTES, download_bytes, preview_file
from inspector.profiles.deerflow.files.uploads import uploaded_files
from inspector.profiles.deerflow.files.user_data import locate
from inspector.profiles.media_report import media_report, upload_rows
from inspector.store import open_store

UP = "/mnt/user-data/uploads"


@pytest.fixture
def thread(tmp_path: Path):
    root = tmp_path / "threads" / "t1" / "user-data"
    for folder in ("workspace", "uploads", "outputs"):
        (root / folder).mkdir(parents=True)
    return locate("t1", bases=[tmp_path]), root / "uploads"


def test_hostile_uploads_are_refused_or_flagged_and_never_opened(thread, tmp_path):
    user_data, uploads = thread
    (uploads / "notes.txt").write_text("fine\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside")
    os.symlink(secret, uploads / "link.txt")
    os.mkfifo(uploads / "pipe.csv")
    with open(uploads / "huge.log", "wb") as fh:  # sparse: over the download limit without the disk
        fh.truncate(MAX_DOWNLOAD_BYTES + 1)
    entries = [{"filename": name, "size": 5 if name == "notes.txt" else 1, "path": f"{UP}/{name}"}
               for name in ("notes.txt", "link.txt", "pipe.csv", "huge.log", "gone.md")]
    entries.append({"filename": "passwd", "size": 1, "path": f"{UP}/../../../../etc/passwd"})
    entries.append({"filename": "elsewhere", "size": 1, "path": "/mnt/user-data/outputs/notes.txt"})
    found = {u.name: u for u in locate_refs(uploaded_files({"uploaded_files": entries}), user_data, "uploads")}
    assert found["notes.txt"].exists and found["notes.txt"].problems == []
    assert found["link.txt"].refused and "outside the thread's user-data folder" in found["link.txt"].problems[0]
    assert found["passwd"].refused and found["passwd"].physical_path is None
    assert not found["pipe.csv"].exists and "named pipe" in found["pipe.csv"].problems[0]
    assert found["gone.md"].problems == [NOT_FOUND]
    assert found["elsewhere"].problems[0] == f"outside {UP}/"
    assert "recorded as 1 bytes, the file has" in found["huge.log"].problems[0]
    # the preview reads a capped head; the download refuses; a pipe swapped in is never opened
    preview = preview_file(found["huge.log"].physical_path, user_data)
    assert preview.truncated and preview.size == MAX_DOWNLOAD_BYTES + 1
    with pytest.raises(PathRefused, match="over the"):
        download_bytes(found["huge.log"].physical_path, user_data)
    assert preview_file(uploads / "pipe.csv", user_data).problems[0].startswith("refused: not a regular file")
    rows = {r["file"]: r for r in upload_rows(list(found.values()))}
    assert rows["notes.txt"]["problems"] == "ok" and rows["pipe.csv"]["on disk"] is False


def test_without_the_folder_a_file_is_not_found_on_this_machine():
    assert locate_file(f"{UP}/a.txt", None).problems == [FOLDER_NOT_FOUND]
    assert "set --data-dir" in FOLDER_NOT_FOUND and "set --data-dir" in NOT_FOUND


def test_odd_uploaded_files_values_are_shown_not_opened(thread):
    refs = uploaded_files({"uploaded_files": ["a string", {"filename": "x"}, {"path": f"{UP}/y.txt", "size": True}]})
    assert [(r.name, r.path, r.recorded_size) for r in refs] == [
        ("(str entry)", None, None), ("x", None, None), ("y.txt", f"{UP}/y.txt", None)]
    located = locate_refs(refs, thread[0], "uploads")
    assert located[0].problems == ["no path recorded: nothing to open"]
    assert uploaded_files({"uploaded_files": "not a list"})[0].path is None


def test_research_thread_uploads_at_its_first_turn(demo_db, demo_dir, capsys):
    with open_store(str(demo_db)) as store:
        rows = [r for r in store.timeline("demo-research") if r.checkpoint_ns == ""]
        held = next(r for r in rows if store.state("demo-research", r.checkpoint_id).values.get("uploaded_files"))
        report = media_report(store, "demo-research", held.checkpoint_id)
    on_disk = demo_dir / "threads/demo-research/user-data/uploads"
    assert [(u.name, u.size, u.problems) for u in report.uploads] == [
        (name, (on_disk / name).stat().st_size, []) for name in ("cell_prices.csv", "field_notes.md")]
    assert report.as_dict()["uploads"][0]["exists"]
    assert main(["uploads", "--db", str(demo_db), "demo-research", "--checkpoint", held.checkpoint_id, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [u["name"] for u in printed["uploads"]] == ["cell_prices.csv", "field_notes.md"] and "artifacts" not in printed
