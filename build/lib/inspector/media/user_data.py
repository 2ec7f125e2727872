"""A thread's user-data folders on this machine, and safe mapping of agent-visible paths into them.

The agent sees ``/mnt/user-data/{workspace,uploads,outputs}/...``. On disk DeerFlow
keeps those folders at ``{base}/threads/{thread_id}/user-data/...`` (newer:
``{base}/users/{user_id}/threads/{thread_id}/user-data/...``) and records the
physical folders in the state's ``thread_data``.

Every mapping is checked twice: lexically (no ``..`` escaping the folder, no path
outside ``/mnt/user-data``) and physically (the real path, symlinks followed,
must stay inside one of the thread's folders). Nothing outside is ever read.

The folders are checked as well as the files: the thread's ``user-data`` folder and
each of its folders must resolve, symlinks followed, inside the data directory they
were found in. A folder that leads elsewhere (``outputs -> /etc``) is refused with
the reason, and no path in it is read.

A branch thread (DeerFlow copies a thread's state into a new thread) may hold
physical paths (``actual_path``) into the folders of the thread it was branched
from: those folders, found the same way, are accepted for physical paths too.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

VIRTUAL_ROOT = "/mnt/user-data"
FOLDERS = ("workspace", "uploads", "outputs")
_BAD_ID_CHARS = ("/", "\\", "\x00")


class PathRefused(ValueError):
    """A path the inspector will not read: it leaves the thread's user-data folder, or is malformed."""


def check_id(value: Any, what: str = "thread id") -> str:
    """``value`` if it is safe as one path component; raises ``PathRefused`` otherwise."""
    if not isinstance(value, str) or not value or value in (".", ".."):
        raise PathRefused(f"{what} {value!r} cannot name a folder")
    if any(ch in value for ch in _BAD_ID_CHARS) or value != value.strip():
        raise PathRefused(f"{what} {value!r} contains path characters")
    return value


@dataclass(frozen=True)
class UserData:
    """Where one thread's user-data folders are on this machine, and how they were found."""

    thread_id: str
    folders: dict[str, Path]
    origin: str
    searched: tuple[str, ...] = field(default=())
    parents: tuple["UserData", ...] = ()  # folders of the threads this one was branched from, nearest first
    aliases: tuple[tuple[str, str], ...] = ()  # (a folder as the state records it, where it is here)
    refused: tuple[tuple[str, str], ...] = ()  # (folder, why): folders that resolve outside the data directory

    def local_path(self, path: str) -> str:
        """A physical path the state recorded (``actual_path``), moved to where that folder is here."""
        for recorded, here in self.aliases:
            if path == recorded or path.startswith(recorded.rstrip("/") + "/"):
                return here + path[len(recorded.rstrip("/")):]
        return path

    @property
    def usable(self) -> dict[str, Path]:
        """The folders that may be read: those not refused."""
        refused = dict(self.refused)
        return {name: path for name, path in self.folders.items() if name not in refused}

    @property
    def roots(self) -> list[Path]:
        """The real (symlink-free) folders that may be read; files must resolve inside one of them."""
        return [Path(os.path.realpath(p)) for p in self.usable.values()]

    def refusal(self, folder: str | None = None, path: str | None = None) -> str | None:
        """Why ``folder`` (or the refused folder a physical ``path`` lies in) may not be read; None when it may."""
        for name, why in self.refused:
            here = str(self.folders[name])
            if name == folder or (path is not None and (path == here or path.startswith(here.rstrip("/") + "/"))):
                return why
        return None

    @property
    def base(self) -> Path:
        """The folder holding ``threads/{thread_id}`` (DeerFlow's base, or its ``users/{user_id}``)."""
        return self.folders["workspace"].parent.parent.parent.parent

    def as_dict(self) -> dict[str, Any]:
        data = {"thread_id": self.thread_id, "origin": self.origin,
                "folders": {k: str(v) for k, v in self.folders.items()}, "searched": list(self.searched)}
        if self.refused:
            data["refused"] = dict(self.refused)
        if self.parents:
            data["branched_from"] = [parent.as_dict() for parent in self.parents]
        return data


def normalise(virtual: str) -> str:
    """The path with ``.``/``..``/duplicate slashes folded, as the agent's shell would read it."""
    return posixpath.normpath(virtual) if virtual else virtual


def split_virtual(virtual: Any) -> tuple[str, str]:
    """(folder, relative path) of an agent-visible file path; raises ``PathRefused`` for anything else."""
    folder, rest = virtual_parts(virtual)
    if not rest:
        raise PathRefused(f"names a folder, not a file: {virtual}")
    return folder, rest


def virtual_parts(virtual: Any) -> tuple[str, str]:
    """(folder, relative path, empty for the folder itself) of an agent-visible path, checked lexically:
    absolute, no NUL, inside one of ``/mnt/user-data/{workspace,uploads,outputs}`` once ``..`` is folded.
    Raises ``PathRefused`` for anything else."""
    if not isinstance(virtual, str) or not virtual:
        raise PathRefused(f"not a path: {virtual!r}")
    if "\x00" in virtual:
        raise PathRefused(f"path contains a NUL character: {virtual!r}")
    if not virtual.startswith("/"):
        raise PathRefused(f"not an absolute agent path (expected {VIRTUAL_ROOT}/...): {virtual}")
    norm = normalise(virtual)
    parts = norm.split("/")  # ['', 'mnt', 'user-data', folder, ...]
    if parts[1:3] != ["mnt", "user-data"]:
        raise PathRefused(f"outside {VIRTUAL_ROOT}: {virtual}")
    if len(parts) < 4 or parts[3] not in FOLDERS:
        raise PathRefused(f"not in one of {VIRTUAL_ROOT}/{{{','.join(FOLDERS)}}}: {virtual}")
    return parts[3], "/".join(parts[4:])


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    real = Path(os.path.realpath(path))
    return any(real == root or real.is_relative_to(root) for root in roots)


def resolve(virtual: str, user_data: UserData) -> Path:
    """The real file an agent-visible path names; raises ``PathRefused`` when it would leave the folders.

    The result may not exist; symlinks are followed before the containment check.
    """
    folder, rest = split_virtual(virtual)
    why = user_data.refusal(folder)
    if why:
        raise PathRefused(why)
    candidate = Path(os.path.realpath(user_data.folders[folder] / rest))
    if not is_inside(candidate, user_data.roots):
        raise PathRefused(f"resolves outside the thread's user-data folder: {virtual}")
    return candidate


def check_physical(path: Any, user_data: UserData) -> Path:
    """A physical path taken from the state (``actual_path``), accepted only inside the thread's folders,
    or those of the threads it was branched from."""
    if not isinstance(path, str) or not path or "\x00" in path or not os.path.isabs(path):
        raise PathRefused(f"not an absolute file path: {path!r}")
    for holder in (user_data, *user_data.parents):
        why = holder.refusal(path=posixpath.normpath(path))
        if why:
            raise PathRefused(why)
    real = Path(os.path.realpath(path))
    if not any(is_inside(real, holder.roots) for holder in (user_data, *user_data.parents)):
        where = " or those of the threads it was branched from" if user_data.parents else ""
        raise PathRefused(f"outside the thread's user-data folder{where}: {path}")
    return real


# -- finding the folders --------------------------------------------------------


def fenced(user_data: UserData, data_dir: Path) -> UserData:
    """``user_data`` with every folder that resolves outside ``data_dir`` refused, with the reason: all of
    them when the ``user-data`` folder itself leads elsewhere."""
    real_dir = Path(os.path.realpath(data_dir))
    root = user_data.folders["workspace"].parent
    real_root = Path(os.path.realpath(root))
    if not (real_root == real_dir or real_root.is_relative_to(real_dir)):
        why = (f"the thread's user-data folder {root} resolves outside the data directory {data_dir} "
               f"(to {real_root}); nothing in it is read")
        return replace(user_data, refused=tuple((name, why) for name in user_data.folders))
    refused = []
    for name, path in user_data.folders.items():
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(real_dir):
            refused.append((name, f"the {name} folder {path} resolves outside the data directory {data_dir} "
                                  f"(to {real}); nothing in it is read"))
    return replace(user_data, refused=tuple(refused))


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
        return fenced(UserData(thread_id, folders, "thread_data"), folders["workspace"].parents[3])
    if thread_data:
        searched.append("thread_data (not on this machine)")
    for given in bases:
        data_dir = Path(given).expanduser()
        for root in _layout_roots(data_dir, thread_id, user_id):
            searched.append(str(root))
            if root.is_dir():
                found = UserData(thread_id, {f: root / f for f in FOLDERS}, str(root), tuple(searched))
                return fenced(found, data_dir)
    return None


def in_bundle(thread_id: str, root: Path, recorded: Mapping[str, Mapping[str, str]]) -> UserData | None:
    """A thread's folders inside an opened support bundle, with the copies of the folders of the threads it
    was branched from (nearest first). ``recorded`` maps each of those threads to its folders' paths at the
    source, so ``actual_path`` values written there resolve to the copies here."""
    check_id(thread_id)
    own = _bundled(thread_id, root, recorded.get(thread_id, {}))
    parents = []
    for parent_id, folders in recorded.items():
        try:
            check_id(parent_id)
        except PathRefused:
            continue  # a manifest naming no single folder: nothing of it is in the bundle
        if parent_id != thread_id and (root / "threads" / parent_id / "user-data").is_dir():
            parents.append(_bundled(parent_id, root, folders))
    if not parents and not (root / "threads" / thread_id / "user-data").is_dir():
        return None
    return replace(own, parents=tuple(parents), aliases=own.aliases + tuple(a for p in parents for a in p.aliases))


def _bundled(thread_id: str, root: Path, recorded: Mapping[str, str]) -> UserData:
    here = root / "threads" / thread_id / "user-data"
    folders = {f: here / f for f in FOLDERS}
    aliases = tuple((path, str(folders[f])) for f, path in recorded.items() if f in folders and isinstance(path, str))
    return fenced(UserData(thread_id, folders, "support bundle", (str(here),), aliases=aliases), root)


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
