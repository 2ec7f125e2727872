"""A store whose shape is hostile (``corpus/hostile_structure.py``): folders that lead out of the data
directory and files that are not regular files are refused with a reason, never read, never waited on;
values nested past any sane depth are too deep on their own field, and every command still answers for
the rest of the store."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus.hostile_structure import (
    BRANCH,
    DEEP_JSON,
    DEEP_MSGPACK,
    ETC_LINK,
    FIFO,
    FOLDER_LINK,
    HOST_SECRET,
    PLAIN,
    ROOT_LINK,
)

from inspector.cli import main
from inspector.media.folders import PathRefused, check_physical, resolve
from inspector.media.previews import download_bytes, preview_file
from inspector.media.regular_files import open_regular, read_regular
from inspector.profiles.deerflow.files.user_data import locate

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def structure_db(structure_corpus_db) -> Path:
    return structure_corpus_db


def make_thread(base: Path, thread_id: str) -> Path:
    root = base / "threads" / thread_id / "user-data"
    for folder in ("workspace", "uploads", "outputs"):
        (root / folder).mkdir(parents=True)
    return root


# -- the folders ------------------------------------------------------------------------


def test_an_outputs_folder_linked_out_of_the_data_directory_is_refused(tmp_path):
    data, host = tmp_path / "data", tmp_path / "host"
    host.mkdir()
    (host / "passwd").write_text(HOST_SECRET)
    root = make_thread(data, "t1")
    (root / "outputs").rmdir()
    (root / "outputs").symlink_to(host)
    (root / "workspace" / "ok.txt").write_text("fine")
    found = locate("t1", bases=[data])
    assert [name for name, _ in found.refused] == ["outputs"]
    assert "resolves outside the data directory" in dict(found.refused)["outputs"]
    with pytest.raises(PathRefused, match="the outputs folder .* resolves outside the data directory"):
        resolve("/mnt/user-data/outputs/passwd", found)
    with pytest.raises(PathRefused, match="the outputs folder"):
        check_physical(str(root / "outputs" / "passwd"), found)
    assert resolve("/mnt/user-data/workspace/ok.txt", found) == (root / "workspace" / "ok.txt").resolve()
    assert found.as_dict()["refused"].keys() == {"outputs"}


def test_a_user_data_folder_linked_elsewhere_refuses_every_folder(tmp_path):
    data, host = tmp_path / "data", tmp_path / "host"
    make_thread(host, "t2")
    (data / "threads" / "t2").mkdir(parents=True)
    (data / "threads" / "t2" / "user-data").symlink_to(host / "threads" / "t2" / "user-data")
    found = locate("t2", bases=[data])
    assert {name for name, _ in found.refused} == {"workspace", "uploads", "outputs"} and found.roots == []
    with pytest.raises(PathRefused, match="the thread's user-data folder .* resolves outside the data directory"):
        resolve("/mnt/user-data/uploads/a.png", found)


def test_a_folder_linked_inside_the_data_directory_is_read(tmp_path):
    data = tmp_path / "data"
    root = make_thread(data, "t3")
    shared = data / "shared-outputs"
    shared.mkdir()
    (shared / "a.md").write_text("# a")
    (root / "outputs").rmdir()
    (root / "outputs").symlink_to(shared)
    found = locate("t3", bases=[data])
    assert found.refused == ()
    assert resolve("/mnt/user-data/outputs/a.md", found) == (shared / "a.md").resolve()


def test_thread_data_folders_are_checked_against_the_data_directory_they_are_in(tmp_path):
    data, host = tmp_path / "data", tmp_path / "host"
    host.mkdir()
    root = make_thread(data, "t4")
    (root / "uploads").rmdir()
    (root / "uploads").symlink_to(host)
    thread_data = {f"{f}_path": str(root / f) for f in ("workspace", "uploads", "outputs")}
    found = locate("t4", thread_data, bases=[data])
    assert found.origin == "thread_data" and [name for name, _ in found.refused] == ["uploads"]


def test_thread_data_naming_a_folder_outside_the_data_directory_is_never_read(tmp_path):
    """A folder shaped ``threads/<the same id>/user-data`` elsewhere on the machine: the state names it, the
    operator did not; it is refused (or passed over for the thread's own folder in the data directory), said."""
    data, elsewhere = tmp_path / "data", tmp_path / "elsewhere"
    other = make_thread(elsewhere, "t5")
    (other / "outputs" / "passwd").write_text(HOST_SECRET)
    thread_data = {f"{f}_path": str(other / f) for f in ("workspace", "uploads", "outputs")}
    for bases in ([data], []):
        found = locate("t5", thread_data, bases=bases)
        assert found.roots == [] and {name for name, _ in found.refused} == {"workspace", "uploads", "outputs"}
        why = dict(found.refused)["outputs"]
        assert f"thread_data names the user-data folder {other}, which resolves outside the data directory" in why
        assert "nothing in it is read" in why and (str(data) in why if bases else "pass --data-dir" in why)
        with pytest.raises(PathRefused, match="resolves outside the data directory"):
            resolve("/mnt/user-data/outputs/passwd", found)
        with pytest.raises(PathRefused, match="resolves outside the data directory"):
            check_physical(str(other / "outputs" / "passwd"), found)
    own = make_thread(data, "t5")  # the thread's own folder in the data directory is what is read
    found = locate("t5", thread_data, bases=[data])
    assert found.origin == str(own) and found.refused == () and found.roots == [(own / f).resolve() for f in
                                                                               ("workspace", "uploads", "outputs")]
    assert found.passed_over and "resolves outside the data directory" in found.passed_over[0]
    assert found.as_dict()["passed_over"] == list(found.passed_over)
    nested = make_thread(data / "copies", "t5")  # inside the data directory, but not where the thread's folder is
    found = locate("t5", {f"{f}_path": str(nested / f) for f in ("workspace", "uploads", "outputs")}, bases=[data])
    assert found.origin == str(own) and "which is not the thread's own folder in the data directory" in found.passed_over[0]


def test_thread_data_in_a_users_folder_of_the_data_directory_is_read(tmp_path):
    data = tmp_path / "data"
    root = make_thread(data / "users" / "u1", "t6")
    found = locate("t6", {f"{f}_path": str(root / f) for f in ("workspace", "uploads", "outputs")}, bases=[data])
    assert found.origin == "thread_data" and found.refused == () and len(found.roots) == 3


# -- the files --------------------------------------------------------------------------


@pytest.mark.timeout(10)
def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(PathRefused, match=r"not a regular file \(a named pipe\)"):
        read_regular(pipe, 100)
    (tmp_path / "plain").write_bytes(b"0123456789")
    assert read_regular(tmp_path / "plain", 4) == (b"0123", 10)
    (tmp_path / "link").symlink_to(tmp_path / "plain")
    with pytest.raises(PathRefused, match="symbolic link"), open_regular(tmp_path / "link"):
        pass


@pytest.mark.timeout(10)
def test_a_named_pipe_artifact_is_neither_previewed_nor_downloaded(structure_db):
    found = locate(FIFO, bases=[structure_db.parent])
    pipe = found.folders["outputs"] / "pipe.md"
    assert preview_file(pipe, found).problems == ["refused: not a regular file (a named pipe): never opened for reading"]
    with pytest.raises(PathRefused, match="a named pipe"):
        download_bytes(pipe, found)
    assert download_bytes(found.folders["outputs"] / "ok.md", found).startswith(b"# a plain file")


# -- the CLI over the corpus ----------------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main([*argv, "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.mark.parametrize("command", ["artifacts", "images", "state", "bundle"])
@pytest.mark.parametrize("thread", [FOLDER_LINK, ETC_LINK, ROOT_LINK, BRANCH, FIFO])
def test_cli_never_shows_or_bundles_a_host_file_and_never_hangs(structure_db, tmp_path, capsys, command, thread):
    argv = [command, thread, "--db", str(structure_db)]
    if command == "bundle":
        argv += ["--out", str(tmp_path / "b.zip")]
    code, out = run(capsys, *argv)
    assert code == 0, out
    assert HOST_SECRET not in out and corpus.leaked(out) == []
    if command == "bundle":
        with zipfile.ZipFile(tmp_path / "b.zip") as archive:
            names = archive.namelist()
            assert all(HOST_SECRET.encode() not in archive.read(n) for n in names)
            assert not any("passwd" in n or "pipe" in n for n in names), names
    if thread in (FOLDER_LINK, ETC_LINK, ROOT_LINK, BRANCH) and command != "state":
        assert "resolves outside the data directory" in out
    if thread == FIFO and command in ("images", "bundle"):
        assert "not a regular file (a named pipe)" in out


def test_artifacts_json_says_which_folder_is_refused(structure_db, capsys):
    code, out = run(capsys, "artifacts", FOLDER_LINK, "--db", str(structure_db), "--json")
    assert code == 0
    report = json.loads(out)
    assert set(report["user_data"]["refused"]) == {"outputs"}
    assert all(a["refused"] and not a["exists"] for a in report["artifacts"])
    code, out = run(capsys, "artifacts", PLAIN, "--db", str(structure_db), "--json")
    assert [a["exists"] for a in json.loads(out)["artifacts"]] == [True]


# -- depth ------------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["threads"], ["sizes"], ["health"], ["prune-preview", "--keep-latest", "1"],
    ["sizes", "--json"], ["health", "--json"], ["threads", "--json"],
])
def test_store_wide_answers_go_on_past_a_too_deep_row(structure_db, capsys, argv):
    code, out = run(capsys, *argv, "--db", str(structure_db))
    assert code in (0, 1), out  # health exits 1 when it raises a flag
    assert "error:" not in out and "RecursionError" not in out
    assert PLAIN in out and DEEP_JSON in out and DEEP_MSGPACK in out


@pytest.mark.parametrize("command", ["timeline", "state", "diff", "replay", "health", "sizes", "bundle"])
@pytest.mark.parametrize("thread", [DEEP_JSON, DEEP_MSGPACK])
def test_a_thread_holding_a_too_deep_value_still_answers(structure_db, tmp_path, capsys, command, thread):
    argv = [command, thread, "--db", str(structure_db)]
    if command == "bundle":
        argv += ["--out", str(tmp_path / "b.zip")]
    code, out = run(capsys, *argv)
    assert code == 0, out
    assert "RecursionError" not in out
    if command == "bundle":
        assert "nested deeper than 100 levels" in out
        code, out = run(capsys, "state", thread, "--db", str(tmp_path / "b.zip"))
        assert code == 0, out


def test_state_json_names_the_too_deep_field_and_shows_the_rest(structure_db, capsys):
    code, out = run(capsys, "state", DEEP_MSGPACK, "--db", str(structure_db), "--json")
    assert code == 0
    state = json.loads(out)
    assert state["values"]["notes"]["__opaque__"] == "msgpack"
    assert state["values"]["title"] == f"{DEEP_MSGPACK} title"
    assert {"field": "notes", "kind": "too-deep"}.items() <= next(p for p in state["problems"] if p["field"] == "notes").items()
    code, out = run(capsys, "state", DEEP_JSON, "--db", str(structure_db), "--json")
    assert json.loads(out)["metadata"] == {"__too_deep__": "nested deeper than 100 levels; not shown"}


def test_a_metadata_filter_skips_a_too_deep_row_instead_of_failing(structure_db):
    from inspector.store import open_store

    with open_store(str(structure_db)) as store:
        rows = store.history(DEEP_JSON, None, filter={"source": "loop"})
        everything = store.timeline(DEEP_JSON)
    assert 0 < len(rows) < len(everything)  # the deep row matches nothing; the others still do
