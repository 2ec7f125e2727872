"""Where DeerFlow keeps a thread's files: its user-data folders, found on this machine.

The agent sees ``/mnt/user-data/{workspace,uploads,outputs}/...``. On disk DeerFlow
keeps those folders at ``{base}/threads/{thread_id}/user-data/...`` (newer:
``{base}/users/{user_id}/threads/{thread_id}/user-data/...``) and records the
physical folders in the state's ``thread_data``. ``locate`` finds them under the data
directories (``--data-dir``, or next to the store: DeerFlow's home for its own database),
using ``thread_data`` only where it names the thread's own folder there, and hands them
over as the generic ``media.folders.UserData``, whose checks decide what may be read
(nothing outside the folders, nor a folder that leads out of the data directory). A
``thread_data`` naming any other folder on the machine, even one shaped like
``threads/{thread_id}/user-data``, is passed over and said, never read.

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

from ....history.checkpoint_kinds import branch_origin
from ....media import folders as generic
from ....media.folders import PathRefused, UserData, check_id, fenced, folder_refusals
from ....store import CheckpointRow, CheckpointState, NotFound, StoreError
from ....store.bundle import bundle_folder
from ....store.model import branch_of

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


def _same_folder(path: Path, other: Path) -> bool:
    """Whether two absolute paths name one folder: spelled alike once ``..`` is folded, or the same real folder."""
    return os.path.normpath(path) == os.path.normpath(other) or os.path.realpath(path) == os.path.realpath(other)


def _named_base(root: Path, thread_id: str, bases: list[Path]) -> tuple[Path | None, str]:
    """The data directory ``root`` (a user-data folder ``thread_data`` names) is the thread's own folder in:
    ``{base}/threads/{id}/user-data`` or ``{base}/users/{user}/threads/{id}/user-data``; else (None, why not)."""
    holder = root.parents[2]  # the folder holding threads/{id}
    for base in bases:
        if _same_folder(holder, base) or (holder.parent.name == "users" and _same_folder(holder.parent.parent, base)):
            return base, ""
    real = Path(os.path.realpath(root))
    inside = [b for b in bases if real.is_relative_to(os.path.realpath(b))]
    if inside:
        return None, (f"thread_data names the user-data folder {root}, which is not the thread's own folder in the "
                      f"data directory {inside[0]} (that is {inside[0] / 'threads' / thread_id / 'user-data'}); "
                      "nothing in it is read")
    where = (" or ".join(str(b) for b in bases) if bases
             else "none is set: pass --data-dir or set INSPECTOR_DATA_DIR")
    return None, (f"thread_data names the user-data folder {root}, which resolves outside the data directory "
                  f"({where}); nothing in it is read")


def locate(
    thread_id: str,
    thread_data: Any = None,
    bases: Iterable[str | Path] = (),
    user_id: str | None = None,
) -> UserData | None:
    """The thread's folders under ``bases`` (the data directories the operator set, or the store's own folder):
    those ``thread_data`` names when they are the thread's own folder in one of them, else the first DeerFlow
    layout found. Folders ``thread_data`` names anywhere else are never read: they are passed over with the
    reason, or (when no folder is found under ``bases``) returned refused, so the reason is shown.

    Raises ``PathRefused`` for a thread or user id that could not be a single folder name.
    """
    check_id(thread_id)
    if user_id is not None:
        check_id(user_id, "user id")
    dirs = list(dict.fromkeys(Path(given).expanduser() for given in bases))
    searched: list[str] = []
    passed_over = ""
    folders = _from_thread_data(thread_id, thread_data)
    if folders:
        named = [_named_base(path.parent, thread_id, dirs) for path in folders.values()]
        base, passed_over = next(((b, why) for b, why in named if b is None), named[0])
        if base is not None:
            return fenced(UserData(thread_id, folders, "thread_data", virtual_root=VIRTUAL_ROOT), base)
        searched.append(f"thread_data ({passed_over})")
    elif thread_data:
        searched.append("thread_data (not on this machine)")
    for data_dir in dirs:
        for root in _layout_roots(data_dir, thread_id, user_id):
            searched.append(str(root))
            if root.is_dir():
                found = UserData(thread_id, {f: root / f for f in FOLDERS}, str(root), tuple(searched),
                                 virtual_root=VIRTUAL_ROOT, passed_over=(passed_over,) if passed_over else ())
                return fenced(found, data_dir)
    if folders:  # only the folders thread_data names, which are refused: nothing is read, and the reason is said
        return UserData(thread_id, folders, "thread_data", tuple(searched), virtual_root=VIRTUAL_ROOT,
                        refused=tuple((name, passed_over) for name in folders))
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
    """A thread's folders (under --data-dir, then next to a SQLite store; ``thread_data`` only where it names the
    thread's own folder there), with those of the
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
    near = [threads_base(found)] if found.roots else []  # a refused folder's neighbours are not looked in
    parents, problems = _branch_parents(origin.parent_thread_id, [*near, *bases], user_id, store, {thread_id})
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
