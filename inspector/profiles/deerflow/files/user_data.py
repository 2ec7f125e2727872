"""Where DeerFlow keeps a thread's files: its user-data folders, found on this machine.

The agent sees ``/mnt/user-data/{workspace,uploads,outputs}/...``. On disk DeerFlow
keeps those folders at ``{base}/threads/{thread_id}/user-data/...`` (newer:
``{base}/users/{user_id}/threads/{thread_id}/user-data/...``) and records the
physical folders in the state's ``thread_data``. ``locate`` finds them (from
``thread_data``, ``--data-dir`` or next to the store) and hands them over as the
generic ``media.folders.UserData``, whose checks decide what may be read (nothing
outside the folders, nor a folder that leads out of the data directory).

A branch thread (DeerFlow copies a thread's state into a new thread) may hold
physical paths (``actual_path``) into the folders of the thread it was branched
from, or have no folder at all (branched from an earlier turn): ``thread_folders``
adds those threads' folders, found the same way, from the branch records.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ....media import folders as generic
from ....media.folders import PathRefused, UserData, check_id, fenced, folder_refusals
from ....store import CheckpointRow, CheckpointState, NotFound, StoreError
from ....store.bundle import bundle_folder
from ....store.model import branch_of
from ..checkpoint_kinds import branch_origin

VIRTUAL_ROOT = "/mnt/user-data"
FOLDERS = ("workspace", "uploads", "outputs")


def virtual_parts(virtual: Any) -> tuple[str, str]:
    """(folder, relative path, empty for the folder itself) of a ``/mnt/user-data/...`` path, checked
    lexically (``media.folders.virtual_parts``); raises ``PathRefused`` for anything else."""
    return generic.virtual_parts(virtual, VIRTUAL_ROOT, FOLDERS)


def split_virtual(virtual: Any) -> tuple[str, str]:
    """(folder, relative path) of a ``/mnt/user-data/...`` file path; raises ``PathRefused`` for anything else."""
    return generic.split_virtual(virtual, VIRTUAL_ROOT, FOLDERS)


def threads_base(user_data: UserData) -> Path:
    """The folder holding ``threads/{thread_id}`` (DeerFlow's base, or its ``users/{user_id}``)."""
    return user_data.folders["workspace"].parent.parent.parent.parent


# -- finding the folders --------------------------------------------------------


def _from_thread_data(thread_id: str, thread_data: Any) -> dict[str, Path] | None:
    """``thread_data``'s folders, when they exist here and have DeerFlow's ``threads/{id}/user-data/{folder}`` shape.

    The shape check keeps a tampered ``thread_data`` (say ``outputs_path: /etc``) from widening what may be read.
    """
    if not isinstance(thread_data, Mapping):
        return None
    folders: dict[str, Path] = {}
    for folder in FOLDERS:
        raw = thread_data.get(f"{folder}_path")
        if not isinstance(raw, str) or "\x00" in raw or not os.path.isabs(raw):
            return None
        path = Path(raw)
        if path.parts[-4:] != ("threads", thread_id, "user-data", folder) or not path.is_dir():
            return None
        folders[folder] = path
    return folders


def _layout_roots(base: Path, thread_id: str, user_id: str | None) -> list[Path]:
    roots = [base / "threads" / thread_id / "user-data"]
    if user_id is not None:
        roots.insert(0, base / "users" / user_id / "threads" / thread_id / "user-data")
    else:
        users = base / "users"
        if users.is_dir():
            roots += sorted(u / "threads" / thread_id / "user-data" for u in users.iterdir() if u.is_dir())
    return roots


def locate(
    thread_id: str,
    thread_data: Any = None,
    bases: Iterable[str | Path] = (),
    user_id: str | None = None,
) -> UserData | None:
    """The thread's folders: from ``thread_data`` when usable here, else the first DeerFlow layout found under ``bases``.

    Raises ``PathRefused`` for a thread or user id that could not be a single folder name.
    """
    check_id(thread_id)
    if user_id is not None:
        check_id(user_id, "user id")
    searched: list[str] = []
    folders = _from_thread_data(thread_id, thread_data)
    if folders:
        return fenced(UserData(thread_id, folders, "thread_data", virtual_root=VIRTUAL_ROOT), folders["workspace"].parents[3])
    if thread_data:
        searched.append("thread_data (not on this machine)")
    for given in bases:
        data_dir = Path(given).expanduser()
        for root in _layout_roots(data_dir, thread_id, user_id):
            searched.append(str(root))
            if root.is_dir():
                found = UserData(thread_id, {f: root / f for f in FOLDERS}, str(root), tuple(searched),
                                 virtual_root=VIRTUAL_ROOT)
                return fenced(found, data_dir)
    return None


def _bundle_root(thread_id: str, root: Path) -> Path:
    """Where a thread's folders are in an opened bundle: under its ``store.bundle.bundle_folder`` name, or (a
    bundle written before ids were hashed there) under the id itself when that is a single folder name."""
    here = root / "threads" / bundle_folder(thread_id) / "user-data"
    if here.is_dir():
        return here
    try:
        check_id(thread_id)
    except PathRefused:
        return here
    old = root / "threads" / thread_id / "user-data"
    return old if old.is_dir() else here


def in_bundle(thread_id: str, root: Path, recorded: Mapping[str, Mapping[str, str]]) -> UserData | None:
    """A thread's folders inside an opened support bundle, with the copies of the folders of the threads it
    was branched from (nearest first). ``recorded`` maps each of those threads to its folders' paths at the
    source, so ``actual_path`` values written there resolve to the copies here. Any id is safe here: the
    bundle names its folder (``bundle_folder``)."""
    own = _bundled(thread_id, root, recorded.get(thread_id, {}))
    parents = []
    for parent_id, folders in recorded.items():
        if parent_id != thread_id and _bundle_root(parent_id, root).is_dir():
            parents.append(_bundled(parent_id, root, folders))
    if not parents and not _bundle_root(thread_id, root).is_dir():
        return None
    return replace(own, parents=tuple(parents), aliases=own.aliases + tuple(a for p in parents for a in p.aliases))


def _bundled(thread_id: str, root: Path, recorded: Mapping[str, str]) -> UserData:
    here = _bundle_root(thread_id, root)
    folders = {f: here / f for f in FOLDERS}
    aliases = tuple((path, str(folders[f])) for f, path in recorded.items() if f in folders and isinstance(path, str))
    return fenced(UserData(thread_id, folders, "support bundle", (str(here),), aliases=aliases,
                          virtual_root=VIRTUAL_ROOT), root)


def data_bases(data_dir: str | Path | None = None, store: Any = None) -> list[Path]:
    """Where to look for thread folders: the configured data dir, then next to a SQLite store.

    For a store at ``{dir}/demo.db`` that is ``{dir}``; for DeerFlow's ``.deer-flow/data/deerflow.db``
    it is ``.deer-flow``, so both the database's folder and its parent are tried.
    """
    bases: list[Path] = []
    if data_dir:
        bases.append(Path(data_dir).expanduser())
    store_path = getattr(store, "path", None)
    if store_path:
        folder = Path(store_path).expanduser().resolve().parent
        bases += [folder, folder.parent]
    return list(dict.fromkeys(bases))


# -- a thread's folders, with those of the threads it was branched from -------------

FOLDER_NOT_FOUND = ("the thread's user-data folder was not found on this machine; "
                    "set --data-dir or INSPECTOR_DATA_DIR to DeerFlow's data folder")
MAX_BRANCH_DEPTH = 4


def thread_user_data(state: CheckpointState, data_dir: str | Path | None = None, store: Any = None,
                     rows: list[CheckpointRow] | None = None, needed: bool = True) -> tuple[UserData | None, list[str]]:
    """The thread's folders for ``state`` (see ``thread_folders``; DeerFlow's ``Profile.folders``). ``needed``
    False: the state names no file, so a folder not found is no problem."""
    found, problems = thread_folders(state.thread_id, state.values.get("thread_data"), state.metadata, data_dir,
                                     store, rows)
    return found, problems if needed else [p for p in problems if p != FOLDER_NOT_FOUND]


def thread_folders(thread_id: str, thread_data: Any, metadata: dict[str, Any], data_dir: str | Path | None = None,
                   store: Any = None, rows: list[CheckpointRow] | None = None) -> tuple[UserData | None, list[str]]:
    """A thread's folders (``thread_data``, then --data-dir, then next to a SQLite store), with those of the
    threads it was branched from (from its checkpoints' branch metadata); for a support bundle, only the
    bundle's own copies. Returns (folders or None, problems)."""
    bundle_root = getattr(store, "user_data_root", None)
    if bundle_root is not None:
        try:
            found = in_bundle(thread_id, bundle_root, getattr(store, "recorded_folders", {}))
        except PathRefused as exc:
            return None, [f"refused: {exc}"]
        if found is None:
            return None, ["this bundle holds no user-data files for the thread"]
        return found, folder_refusals(found) + [p for parent in found.parents for p in folder_refusals(parent)]
    user_id = metadata.get("user_id") if isinstance(metadata.get("user_id"), str) else None
    bases = data_bases(data_dir, store)
    try:
        found = locate(thread_id, thread_data, bases, user_id)
    except PathRefused as exc:
        return None, [f"refused: {exc}"]
    origin = branch_of(thread_id, metadata)
    if found is None:  # a branch's record from what was read already: no history is read to find none
        return _branch_without_folder(thread_id, origin or (branch_origin(rows) if rows is not None else None),
                                      bases, user_id, store)
    refusals = folder_refusals(found)
    if origin is None and (rows is not None or store is not None):
        origin = branch_origin(rows if rows is not None else _timeline(store, thread_id))
    if origin is None:
        return found, refusals
    parents, problems = _branch_parents(origin.parent_thread_id, [threads_base(found), *bases], user_id, store, {thread_id})
    found = replace(found, parents=tuple(parents))
    return found, refusals + problems + [p for parent in parents for p in folder_refusals(parent)]


def _branch_without_folder(thread_id: str, origin: Any, bases: list[Path], user_id: str | None,
                           store: Any) -> tuple[UserData | None, list[str]]:
    """A branch DeerFlow made no folder for (taken from an earlier turn): its files are those of the thread it
    was branched from, read from that folder as its images are; without a branch record, not found."""
    if origin is None:
        return None, [FOLDER_NOT_FOUND]
    parents, problems = _branch_parents(origin.parent_thread_id, bases, user_id, store, {thread_id})
    if not parents:
        return None, [FOLDER_NOT_FOUND, *problems]
    nearest = parents[0]
    found = replace(nearest, origin=f"{nearest.origin}: the folder of {nearest.thread_id}, which this branch was "
                                    "taken from (the branch has no folder of its own)", parents=tuple(parents[1:]))
    return found, problems + [p for holder in parents for p in folder_refusals(holder)]


def _timeline(store: Any, thread_id: str) -> list[CheckpointRow]:
    try:
        return store.timeline(thread_id)
    except (NotFound, StoreError):
        return []


def _branch_parents(parent_id: str, bases: list[Path], user_id: str | None, store: Any,
                    seen: set[str]) -> tuple[list[UserData], list[str]]:
    """The folders of the thread a branch came from, and of the thread that one came from, and so on."""
    parents: list[UserData] = []
    problems: list[str] = []
    while parent_id and parent_id not in seen and len(parents) < MAX_BRANCH_DEPTH:
        seen.add(parent_id)
        try:
            found = locate(parent_id, None, list(dict.fromkeys(bases)), user_id)
        except PathRefused as exc:
            problems.append(f"the parent thread's folder is refused: {exc}")
            break
        if found is None:
            problems.append(f"the folder of {parent_id}, which this thread was branched from, "
                            "was not found on this machine")
            break
        parents.append(found)
        origin = branch_origin(_timeline(store, parent_id)) if store is not None else None
        parent_id = origin.parent_thread_id if origin else ""
    return parents, problems
