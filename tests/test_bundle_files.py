"""Which files a bundle holds: the ones the thread's profile says its state names, found as the pages find them.

DeerFlow's profile names artifacts, viewed images, uploads and the files attached to messages
(``additional_kwargs.files``, an upload block's list); each is found by ``media.located``, so a bundle
refuses exactly what the thread page refuses. Stores are written by LangGraph's own savers.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest
from bundle_helpers import put_checkpoint
from deerflow_main_graph import DELTA_THREAD, FULL_THREAD
from langchain_core.messages import AIMessage, HumanMessage

from inspector import profiles
from inspector.bundle import write_bundle
from inspector.bundle.summary import summarize
from inspector.media.located import locate_file
from inspector.profiles.deerflow.files.user_data import data_bases, locate
from inspector.settings import Settings
from inspector.state.conversation import conversation
from inspector.store import open_store

UP = "/mnt/user-data/uploads"
THREAD = "attachments"
HOST_TEXT = "host file: never bundled"


@pytest.fixture
def attached(tmp_path) -> tuple[Path, dict[str, str]]:
    """A DeerFlow thread (``sandbox`` and ``thread_data``) whose only file references are message attachments:
    a plain file, one listed in an upload block, and hostile ones (``..``, an absolute path, a symlink out of
    the folder, a named pipe, a name with control characters, a NUL). Returns the store and path -> file."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "secret.txt").write_text(HOST_TEXT)
    root = tmp_path / "data" / "threads" / THREAD / "user-data"
    for folder in ("workspace", "uploads", "outputs"):
        (root / folder).mkdir(parents=True)
    (root / "uploads" / "brief.txt").write_text("the brief")
    (root / "uploads" / "listed.csv").write_text("a,b\n1,2\n")
    (root / "uploads" / "link.txt").symlink_to(host / "secret.txt")
    os.mkfifo(root / "uploads" / "pipe.txt")
    hostile = {"traversal": f"{UP}/../../../../host/secret.txt", "absolute": str(host / "secret.txt"),
               "symlink": f"{UP}/link.txt", "pipe": f"{UP}/pipe.txt", "controls": f"{UP}/\x1b[2J\u202eevil.txt",
               "nul": f"{UP}/a\x00b.txt"}
    files = [{"filename": name, "size": 9, "path": path, "status": "uploaded"} for name, path in hostile.items()]
    block = f"<current_uploads>\n- listed.csv (8 B)\n  Path: {UP}/listed.csv\n</current_uploads>\n\nSum it."
    messages = [HumanMessage("see attached", id="h1", additional_kwargs={"files": [
                    {"filename": "brief.txt", "size": 9, "path": f"{UP}/brief.txt", "status": "uploaded"}, *files]}),
                AIMessage("reading", id="a1"), HumanMessage(block, id="h2")]
    thread_data = {f"{f}_path": str(root / f) for f in ("workspace", "uploads", "outputs")}
    db = tmp_path / "data" / "store.db"
    put_checkpoint(db, THREAD, {"messages": messages, "sandbox": {"sandbox_id": "local"}, "thread_data": thread_data})
    return db, hostile


@pytest.mark.timeout(60)
def test_message_attachments_are_bundled_and_refused_as_the_thread_page_refuses_them(attached, tmp_path):
    db, hostile = attached
    with open_store(str(db)) as store:
        manifest = write_bundle(store, THREAD, tmp_path / "out.zip", settings=Settings())
        state = store.state(THREAD)
    assert {f["path"]: f["named_by"] for f in manifest["user_data"]["files"]} == {
        f"{UP}/brief.txt": "messages (additional_kwargs.files)", f"{UP}/listed.csv": "messages (<current_uploads> block)"}
    with zipfile.ZipFile(tmp_path / "out.zip") as archive:
        names = archive.namelist()
        assert all(HOST_TEXT.encode() not in archive.read(n) for n in names)
    assert sorted(n for n in names if n.startswith("threads/")) == [
        f"threads/{THREAD}/user-data/uploads/brief.txt", f"threads/{THREAD}/user-data/uploads/listed.csv"]
    # the thread page opens an attachment with ``locate_file(attachment.path, user_data)``: the same refusal
    user_data = locate(THREAD, state.values["thread_data"], data_bases(None, store))
    with profiles.reading(store, THREAD):
        shown = [a.path for turn in conversation(state.values["messages"]) for a in turn.attachments]
    left = {item["what"]: item for item in manifest["left_out"]}
    for name, path in hostile.items():
        assert path in shown, name
        page = locate_file(path, user_data)
        assert not page.exists and left[path]["reason"] == page.problems[0], (name, left.get(path), page.problems)
    assert left[hostile["traversal"]]["kind"] == "refused" and left[hostile["symlink"]]["kind"] == "refused"
    assert left[hostile["absolute"]]["kind"] == "refused"
    assert left[hostile["pipe"]]["kind"] == "not-regular" and left[hostile["controls"]]["kind"] == "missing"
    line = summarize(manifest).lines()[2]
    assert "refused: outside the thread's folder" in line and "not a regular file" in line, line


def test_deerflow_main_threads_bundle_the_upload_a_compaction_removed(deerflow_main_db, tmp_path):
    """DeerFlow main's threads (full and delta mode) attach ``invoices.csv`` to their first message (and list it in
    ``uploaded_files``), which a later compaction removes from the state: the bundle still holds the file, and
    names each file that is not on this machine."""
    data = tmp_path / "data"
    for thread in (FULL_THREAD, DELTA_THREAD):
        uploads = data / "threads" / thread / "user-data" / "uploads"
        uploads.mkdir(parents=True)
        (uploads / "invoices.csv").write_text(f"lane,amount\n{thread},1\n")
        (data / "threads" / thread / "user-data" / "outputs").mkdir()
        (data / "threads" / thread / "user-data" / "workspace").mkdir()
    with open_store(str(deerflow_main_db)) as store:
        for thread in (FULL_THREAD, DELTA_THREAD):
            manifest = write_bundle(store, thread, tmp_path / f"{thread}.zip", data_dir=data, settings=Settings())
            files = {f["path"]: f for f in manifest["user_data"]["files"]}
            assert f"{UP}/invoices.csv" in files, (thread, manifest["left_out"])
            assert files[f"{UP}/invoices.csv"]["named_by"] in ("uploaded_files", "messages (additional_kwargs.files)")
            with zipfile.ZipFile(tmp_path / f"{thread}.zip") as archive:
                member = files[f"{UP}/invoices.csv"]["member"]
                assert archive.read(member).decode() == f"lane,amount\n{thread},1\n"
            # the images and reports it names are not on this machine: left out, each named
            missing = {item["what"] for item in manifest["left_out"] if item["kind"] == "missing"}
            assert "/mnt/user-data/outputs/audit.md" in missing and f"{UP}/lanes.png" in missing, missing


def test_a_branch_without_a_folder_of_its_own_bundles_its_parents_files(deerflow_main_db, tmp_path, capsys):
    """DeerFlow's branch taken from an earlier turn has no folder: ``artifacts`` finds its files in the folder of the
    thread it was taken from, and so does its bundle, which carries them and, opened, finds them where the branch
    looks."""
    import shutil

    from deerflow_main_graph import BRANCH_THREAD

    from inspector.cli import main

    db = tmp_path / "store.db"  # not deerflow.db: the data directory is the store's folder
    shutil.copy(deerflow_main_db, db)
    outputs = tmp_path / "threads" / FULL_THREAD / "user-data" / "outputs"
    outputs.mkdir(parents=True)
    (outputs / "audit.md").write_text("# audit of the parent\n")
    (outputs / "carriers.md").write_text("# carriers\n")
    assert main(["artifacts", "--db", str(db), BRANCH_THREAD, "--json"]) == 0
    found = {a["path"]: a["exists"] for a in json.loads(capsys.readouterr().out)["artifacts"]}
    assert found["/mnt/user-data/outputs/audit.md"] and found["/mnt/user-data/outputs/carriers.md"]
    assert main(["bundle", "--db", str(db), BRANCH_THREAD, "--out", str(tmp_path / "branch.zip")]) == 0
    out = capsys.readouterr().out
    assert "file: /mnt/user-data/outputs/audit.md" in out and "file: /mnt/user-data/outputs/carriers.md" in out
    assert "folder was not found (set --data-dir)" not in out
    with zipfile.ZipFile(tmp_path / "branch.zip") as archive:
        assert archive.read(f"threads/{FULL_THREAD}/user-data/outputs/audit.md") == b"# audit of the parent\n"
    assert main(["artifacts", "--db", str(tmp_path / "branch.zip"), BRANCH_THREAD, "--json"]) == 0
    reopened = {a["path"]: a["exists"] for a in json.loads(capsys.readouterr().out)["artifacts"]}
    assert reopened == found
