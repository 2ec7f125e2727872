"""A thread's folders on this machine, and what may be read in them: nothing outside.

An app keeps a thread's files in folders its agent sees under one root
(``UserData.virtual_root``: DeerFlow's ``/mnt/user-data/{workspace,uploads,outputs}``);
its profile finds those folders here (``inspector.profiles.deerflow.files.user_data``) and
hands them over as a ``UserData``. Every mapping is checked twice: lexically (no ``..``
escaping a folder, no path outside the agent's root) and physically (the real path,
symlinks followed, must stay inside one of the thread's folders). The folders are
checked as well as the files (``fenced``): a folder that resolves outside the data
directory it was found in (``outputs -> /etc``) is refused with the reason, and no path
in it is read. Folders the state itself names elsewhere are passed over with the reason
(``UserData.passed_over``): only the operator's data directories say where files may be.
A branch thread may hold physical paths into the folders of the thread it was branched
from (``UserData.parents``): those are accepted for physical paths too.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..store.not_utf8 import named, quoted

_BAD_ID_CHARS = ("/", "\\", "\x00")
MAX_NAME_BYTES = 255  # a longer id names no folder on any common file system


class PathRefused(ValueError):
    """A path the inspector will not read: it leaves the thread's folders, or is malformed."""


def check_id(value: Any, what: str = "thread id") -> str:
    """``value`` if it is safe as one path component; raises ``PathRefused`` otherwise."""
    if not isinstance(value, str) or not value or value in (".", ".."):
        raise PathRefused(f"{what} {named(value)} cannot name a folder")
    if any(ch in value for ch in _BAD_ID_CHARS) or value != value.strip():
        raise PathRefused(f"{what} {quoted(value)} contains path characters")
    try:
        encoded = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate: no file system name decodes to it
        raise PathRefused(f"{what} {quoted(value)} cannot name a folder") from None
    if len(encoded) > MAX_NAME_BYTES:
        raise PathRefused(f"{what} {quoted(value)} is longer than a folder name can be ({MAX_NAME_BYTES} bytes)")
    return value


@dataclass(frozen=True)
class UserData:
    """Where one thread's folders are on this machine, how they were found, and where the agent sees them
    (``virtual_root``/``<folder name>``)."""

    thread_id: str
    folders: dict[str, Path]
    origin: str
    searched: tuple[str, ...] = field(default=())
    parents: tuple["UserData", ...] = ()  # folders of the threads this one was branched from, nearest first
    aliases: tuple[tuple[str, str], ...] = ()  # (a folder as the state records it, where it is here)
    refused: tuple[tuple[str, str], ...] = ()  # (folder, why): folders that resolve outside the data directory
    passed_over: tuple[str, ...] = ()  # why folders the state names (outside the data directory) were not used
    virtual_root: str = ""  # the agent-visible folder holding them ("": the agent names none)

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

    def is_agent_path(self, path: Any) -> bool:
        """Whether ``path`` is spelled as the agent sees the folders (under ``virtual_root``)."""
        return bool(self.virtual_root) and isinstance(path, str) and path.startswith(self.virtual_root)

    def as_dict(self) -> dict[str, Any]:
        data = {"thread_id": self.thread_id, "origin": self.origin,
                "folders": {k: str(v) for k, v in self.folders.items()}, "searched": list(self.searched)}
        if self.refused:
            data["refused"] = dict(self.refused)
        if self.passed_over:
            data["passed_over"] = list(self.passed_over)
        if self.parents:
            data["branched_from"] = [parent.as_dict() for parent in self.parents]
        return data


def normalise(virtual: str) -> str:
    """The path with ``.``/``..``/duplicate slashes folded, as the agent's shell would read it."""
    return posixpath.normpath(virtual) if virtual else virtual


def virtual_parts(virtual: Any, root: str, folders: Iterable[str]) -> tuple[str, str]:
    """(folder, relative path, empty for the folder itself) of an agent-visible path, checked lexically:
    absolute, no NUL, inside one of ``root/{folders}`` once ``..`` is folded. Raises ``PathRefused`` for
    anything else."""
    names = tuple(folders)
    if not isinstance(virtual, str) or not virtual:
        raise PathRefused(f"not a path: {named(virtual)}")
    if "\x00" in virtual:
        raise PathRefused(f"path contains a NUL character: {quoted(virtual)}")
    if not root:
        raise PathRefused(f"the thread's folders have no agent-visible paths: {virtual}")
    if not virtual.startswith("/"):
        raise PathRefused(f"not an absolute agent path (expected {root}/...): {virtual}")
    top = [part for part in root.split("/") if part]
    parts = normalise(virtual).split("/")  # ['', *top, folder, ...]
    if parts[1:1 + len(top)] != top:
        raise PathRefused(f"outside {root}: {virtual}")
    if len(parts) < len(top) + 2 or parts[len(top) + 1] not in names:
        raise PathRefused(f"not in one of {root}/{{{','.join(names)}}}: {virtual}")
    return parts[len(top) + 1], "/".join(parts[len(top) + 2:])


def split_virtual(virtual: Any, root: str, folders: Iterable[str]) -> tuple[str, str]:
    """(folder, relative path) of an agent-visible file path; raises ``PathRefused`` for anything else."""
    folder, rest = virtual_parts(virtual, root, folders)
    if not rest:
        raise PathRefused(f"names a folder, not a file: {virtual}")
    return folder, rest


def is_inside(path: Path, roots: Iterable[Path]) -> bool:
    real = Path(os.path.realpath(path))
    return any(real == root or real.is_relative_to(root) for root in roots)


def resolve(virtual: str, user_data: UserData) -> Path:
    """The real file an agent-visible path names; raises ``PathRefused`` when it would leave the folders.

    The result may not exist; symlinks are followed before the containment check.
    """
    folder, rest = split_virtual(virtual, user_data.virtual_root, user_data.folders)
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
        raise PathRefused(f"not an absolute file path: {named(path)}")
    for holder in (user_data, *user_data.parents):
        why = holder.refusal(path=posixpath.normpath(path))
        if why:
            raise PathRefused(why)
    real = Path(os.path.realpath(path))
    if not any(is_inside(real, holder.roots) for holder in (user_data, *user_data.parents)):
        where = " or those of the threads it was branched from" if user_data.parents else ""
        raise PathRefused(f"outside the thread's user-data folder{where}: {path}")
    return real


def folder_refusals(found: UserData) -> list[str]:
    """One problem per distinct reason a folder of ``found`` is refused, or a folder the state names passed over."""
    return [f"refused: {why}" for why in dict.fromkeys([*found.passed_over, *(why for _, why in found.refused)])]


def fenced(user_data: UserData, data_dir: Path) -> UserData:
    """``user_data`` with every folder that resolves outside ``data_dir`` refused, with the reason: all of
    them when the folder holding them (their common parent) itself leads elsewhere."""
    real_dir = Path(os.path.realpath(data_dir))
    root = Path(os.path.commonpath([str(p) for p in user_data.folders.values()]))
    if len(user_data.folders) == 1:
        root = root.parent
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
