"""Agent-visible paths mapped to a thread's folders: both DeerFlow layouts, and every way out refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from inspector.media.folders import PathRefused, check_physical, resolve
from inspector.profiles.deerflow.files.user_data import data_bases, locate


def make_thread(base: Path, thread_id: str, user_id: str | None = None) -> Path:
    root = base / ("users/" + user_id if user_id else "") / "threads" / thread_id / "user-data"
    for folder in ("workspace", "uploads", "outputs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture
def thread(tmp_path: Path):
    root = make_thread(tmp_path, "t1")
    (root / "outputs" / "report.md").write_text("# Report\n")
    (root / "outputs" / "sub").mkdir()
    (root / "outputs" / "sub" / "b.txt").write_text("b")
    (tmp_path / "secret.txt").write_text("do not read")
    return locate("t1", bases=[tmp_path]), root


def test_threads_layout_resolves(thread):
    user_data, root = thread
    assert user_data.origin == str(root)
    assert resolve("/mnt/user-data/outputs/report.md", user_data) == (root / "outputs" / "report.md").resolve()
    assert resolve("/mnt/user-data/uploads/new.csv", user_data) == (root / "uploads" / "new.csv").resolve()


def test_users_layout_resolves_with_and_without_a_known_user(tmp_path):
    root = make_thread(tmp_path, "t2", user_id="alice")
    (root / "outputs" / "x.txt").write_text("x")
    for user_id in ("alice", None):
        found = locate("t2", bases=[tmp_path], user_id=user_id)
        assert found is not None and found.origin == str(root)
        assert resolve("/mnt/user-data/outputs/x.txt", found).read_text() == "x"


def test_thread_data_paths_win_when_they_exist_here(tmp_path):
    root = make_thread(tmp_path / "elsewhere", "t3")
    thread_data = {f"{f}_path": str(root / f) for f in ("workspace", "uploads", "outputs")}
    found = locate("t3", thread_data, bases=[tmp_path / "nothing-here"])
    assert found.origin == "thread_data" and found.folders["outputs"] == root / "outputs"


def test_thread_data_pointing_outside_the_layout_is_ignored(tmp_path):
    make_thread(tmp_path, "t4")
    tampered = {"workspace_path": "/etc", "uploads_path": "/etc", "outputs_path": "/etc"}
    found = locate("t4", tampered, bases=[tmp_path])
    assert found.origin != "thread_data" and found.folders["outputs"] != Path("/etc")


def test_thread_data_from_another_machine_falls_back_to_the_base(tmp_path):
    root = make_thread(tmp_path, "t5")
    moved = {f"{f}_path": f"/home/someone/.deer-flow/threads/t5/user-data/{f}" for f in ("workspace", "uploads", "outputs")}
    found = locate("t5", moved, bases=[tmp_path])
    assert found.origin == str(root)


def test_nothing_found_is_none(tmp_path):
    assert locate("t6", bases=[tmp_path]) is None


@pytest.mark.parametrize("virtual", [
    "/mnt/user-data/outputs/../../../etc/passwd",
    "/mnt/user-data/../../etc/passwd",
    "/mnt/user-data/outputs/../..",
    "/etc/passwd",
    "/mnt/other/outputs/x.txt",
    "/mnt/user-data/secrets/x.txt",
    "/mnt/user-data/outputs",
    "outputs/report.md",
    "../secret.txt",
    "",
    "/mnt/user-data/outputs/a\x00b",
])
def test_traversal_and_foreign_paths_are_refused(thread, virtual):
    user_data, _ = thread
    with pytest.raises(PathRefused):
        resolve(virtual, user_data)


def test_dotdot_that_stays_inside_maps_to_the_normalised_file(thread):
    user_data, root = thread
    assert resolve("/mnt/user-data/outputs/sub/../report.md", user_data) == (root / "outputs" / "report.md").resolve()


def test_symlink_inside_outputs_pointing_to_etc_is_refused(thread, tmp_path):
    user_data, root = thread
    os.symlink("/etc", root / "outputs" / "etc-link")
    os.symlink("/etc/passwd", root / "outputs" / "passwd.txt")
    os.symlink(tmp_path / "secret.txt", root / "outputs" / "secret.txt")
    for name in ("etc-link/passwd", "passwd.txt", "secret.txt"):
        with pytest.raises(PathRefused, match="outside"):
            resolve(f"/mnt/user-data/outputs/{name}", user_data)


def test_symlink_between_the_threads_folders_is_allowed(thread):
    user_data, root = thread
    os.symlink(root / "outputs" / "report.md", root / "workspace" / "draft.md")
    assert resolve("/mnt/user-data/workspace/draft.md", user_data).read_text() == "# Report\n"


@pytest.mark.parametrize("thread_id", ["../t1", "..", ".", "a/b", "a\\b", "", "t\x00", " t1"])
def test_thread_ids_with_path_characters_are_refused(tmp_path, thread_id):
    make_thread(tmp_path, "t1")
    with pytest.raises(PathRefused):
        locate(thread_id, bases=[tmp_path])


def test_user_id_with_path_characters_is_refused(tmp_path):
    with pytest.raises(PathRefused):
        locate("t1", bases=[tmp_path], user_id="../alice")


def test_physical_paths_from_the_state_are_checked(thread, tmp_path):
    user_data, root = thread
    assert check_physical(str(root / "outputs" / "report.md"), user_data).name == "report.md"
    for bad in (str(tmp_path / "secret.txt"), "/etc/passwd", "relative/path.png",
                str(root / "outputs" / ".." / ".." / ".." / ".." / "secret.txt")):
        with pytest.raises(PathRefused):
            check_physical(bad, user_data)


def test_a_refused_path_is_named_as_ids_are_quoted(thread):
    """The path a refusal names comes from the data: spelled as ids are (bytes that are not UTF-8 as ``\\xff``,
    marked; a very long one cut with its length), and a value that is no text as itself, never as a text."""
    user_data, _ = thread
    cases = [(resolve, "/mnt/user-data/outputs/a\x00\udcff", "path contains a NUL character: "
              "'/mnt/user-data/outputs/a\\x00\\xff' (not UTF-8)"),
             (resolve, None, "not a path: None"),
             (check_physical, "rel\udcff" + "L" * 300, f"not an absolute file path: 'rel\\xff{'L' * 156}…' "
              "(304 characters) (not UTF-8)"),
             (check_physical, ["/etc/passwd"], "not an absolute file path: ['/etc/passwd']")]
    for call, path, said in cases:
        with pytest.raises(PathRefused) as refused:
            call(path, user_data)
        assert str(refused.value) == said


def test_data_bases_prefer_the_configured_folder_then_the_stores_folder(tmp_path):
    class FileStore:
        path = tmp_path / "data" / "deerflow.db"

    assert data_bases(tmp_path / "cfg", FileStore()) == [tmp_path / "cfg", (tmp_path / "data").resolve(), tmp_path.resolve()]
    assert data_bases(None, object()) == []


def test_demo_database_folder_is_found_without_configuration(demo_db):
    from inspector.store import open_store

    with open_store(str(demo_db)) as store:
        found = locate("demo-research", None, data_bases(None, store))
    assert found is not None and found.folders["outputs"] == demo_db.parent / "threads/demo-research/user-data/outputs"


def test_a_branch_accepts_physical_paths_in_its_parent_threads_folder_only(tmp_path):
    """DeerFlow copies a thread's state into a branch: its actual_paths may point into the parent's folder."""
    import dataclasses

    parent_root = make_thread(tmp_path, "parent")
    (parent_root / "uploads" / "chart.png").write_bytes(b"png")
    make_thread(tmp_path, "branch")
    other_root = make_thread(tmp_path, "unrelated")
    (other_root / "uploads" / "x.png").write_bytes(b"x")
    (parent_root / "uploads" / "escape.png").symlink_to(tmp_path / "secret.txt")
    (tmp_path / "secret.txt").write_text("do not read")
    branch = locate("branch", bases=[tmp_path])
    inherited = dataclasses.replace(branch, parents=(locate("parent", bases=[tmp_path]),))
    chart = str(parent_root / "uploads" / "chart.png")
    with pytest.raises(PathRefused, match="outside the thread's user-data folder"):
        check_physical(chart, branch)  # without the branch link the parent's folder is refused
    assert check_physical(chart, inherited) == (parent_root / "uploads" / "chart.png").resolve()
    for bad in (str(other_root / "uploads" / "x.png"), str(parent_root / "uploads" / "escape.png"),
                str(parent_root / ".." / ".." / ".." / "secret.txt")):
        with pytest.raises(PathRefused, match="threads it was branched from"):
            check_physical(bad, inherited)
    # agent paths still resolve into the branch's own folders only
    own_uploads = (tmp_path / "threads/branch/user-data/uploads").resolve()
    assert resolve("/mnt/user-data/uploads/chart.png", inherited).parent == own_uploads
    assert inherited.as_dict()["branched_from"][0]["thread_id"] == "parent"


@pytest.mark.parametrize("thread_id", ["\ud800thread", "a/b", "..", "x" * 256])
def test_a_thread_id_that_cannot_name_a_folder_is_refused_with_a_reason(thread_id):
    from inspector.media.folders import check_id

    with pytest.raises(PathRefused):
        check_id(thread_id)
    assert check_id("thread-\udcff") == "thread-\udcff"  # bytes a file system name may hold (surrogateescape)
