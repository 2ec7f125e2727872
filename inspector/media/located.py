"""One file a state names (an artifact, an upload, a message's attachment), found on this machine or refused.

Every file the pages open, preview, download or bundle is found here, with one set of
refusals: a path that would leave the thread's folders (``..``, a symlink leading out, a
folder that resolves outside the data directory) is refused and never read; a named pipe,
device, socket or folder is "not a regular file" and never opened; a file that is not
there is "not found on this machine". Reading goes through ``regular_files`` (non-blocking,
no final symlink followed, capped), the preview and download limits through ``previews``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..store.not_utf8 import named
from .folders import PathRefused, UserData, check_physical, normalise, resolve
from .regular_files import not_regular, read_regular

FOLDER_NOT_FOUND = "not found on this machine: the thread's user-data folder is not here (set --data-dir)"
NOT_FOUND = "not found on this machine (set --data-dir if the thread's files are elsewhere)"
ACTUAL_REFUSED = "actual_path refused"  # the physical path recorded beside a reference leads outside the folders


@dataclass(frozen=True)
class FileRef:
    """A file as the state names it: its name, its path (agent-visible or physical), the size recorded
    beside it, where the reference was read (``uploaded_files``, ``additional_kwargs.files``, ...) and a
    physical path recorded beside it (``actual_path``), which ``locate_file`` tries first."""

    name: str
    path: str | None
    recorded_size: int | None = None
    source: str = ""
    actual_path: str | None = None


@dataclass
class LocatedFile:
    """Where a named file is on this machine (``physical_path``), whether it may be opened, and why not."""

    path: str
    physical_path: str | None = None
    exists: bool = False
    size: int | None = None
    refused: bool = False
    problems: list[str] = field(default_factory=list)
    filename: str | None = None  # as the reference names the file, when it does

    @property
    def name(self) -> str:
        return self.filename or self.path.rstrip("/").rsplit("/", 1)[-1] or self.path

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "physical_path": self.physical_path, "exists": self.exists,
                "size": self.size, "refused": self.refused, "problems": list(self.problems)}


def _in_branch_parents(virtual: str, user_data: UserData, own: Path) -> Path:
    """``own`` when it exists; else the same agent path in the folder of a thread this one was branched from
    (DeerFlow copies a branch's files only when it branches from the latest turn), nearest first."""
    if os.path.lexists(own):
        return own
    for parent in user_data.parents:
        try:
            candidate = resolve(virtual, parent)
        except PathRefused:
            continue
        if os.path.lexists(candidate):
            return candidate
    return own


def _real_path(path: str, actual: str | None, user_data: UserData, found: LocatedFile) -> Path:
    """The real file: ``actual`` (a physical path recorded beside the reference) when it is here and inside
    the thread's folders, else the agent path; ``PathRefused`` when it would leave them. A recorded path
    that is here but outside them is never read: ``found`` says so (``ACTUAL_REFUSED``) and the agent path
    decides."""
    if isinstance(actual, str) and actual:
        actual = user_data.local_path(actual)
        if "\x00" not in actual and os.path.lexists(actual):
            try:
                return check_physical(actual, user_data)
            except PathRefused as exc:
                found.problems.append(f"{ACTUAL_REFUSED}: {exc}")
    return _in_branch_parents(path, user_data, resolve(path, user_data))


def locate_file(path: Any, user_data: UserData | None, actual: str | None = None) -> LocatedFile:
    """``path`` (``/mnt/user-data/...``; ``actual``: a physical path recorded beside it) found inside the
    thread's folders, with the one refusal list every file the inspector opens goes through. Nothing is read;
    a folder or a pipe is only stat'ed."""
    found = LocatedFile(path if isinstance(path, str) else repr(path))
    if user_data is None:
        found.problems.append(FOLDER_NOT_FOUND)
        return found
    try:
        if not isinstance(path, str) or not path:
            raise PathRefused(f"not a path: {named(path)}")
        real = _real_path(path, actual, user_data, found)
    except PathRefused as exc:
        found.refused = True
        found.problems.insert(0, f"refused: {exc}")
        return found
    found.physical_path = str(real)
    try:
        info = os.stat(real)
    except OSError:
        found.problems.insert(0, NOT_FOUND)
        return found
    if not stat.S_ISREG(info.st_mode):
        found.problems.insert(0, not_regular(info.st_mode))
        return found
    found.exists, found.size = True, info.st_size
    return found


def locate_refs(refs: list[FileRef], user_data: UserData | None, area: str | None = None) -> list[LocatedFile]:
    """Each reference located; ``area`` (``uploads``) flags a path outside that agent-visible folder, and a
    recorded size that is not the file's is flagged too."""
    result = []
    for ref in refs:
        if ref.path is None:
            result.append(LocatedFile(ref.name, problems=["no path recorded: nothing to open"], filename=ref.name))
            continue
        found = locate_file(ref.path, user_data, ref.actual_path)
        found.filename = ref.name
        inside = f"{user_data.virtual_root}/{area}/" if user_data is not None else ""
        if area and user_data is not None and user_data.is_agent_path(ref.path) \
                and not normalise(ref.path).startswith(inside):
            found.problems.insert(0, f"outside {inside}")
        if found.exists and ref.recorded_size is not None and ref.recorded_size != found.size:
            found.problems.append(f"recorded as {ref.recorded_size:,} bytes, the file has {found.size:,}")
        result.append(found)
    return result


def read_head(path: str | Path, user_data: UserData, limit: int) -> tuple[bytes, int]:
    """At most ``limit`` bytes of a located file's physical file, re-checked against the thread's folders, and its
    size; ``PathRefused`` for a path outside them or a file that is not a regular one (a named pipe)."""
    return read_regular(check_physical(str(path), user_data), limit)
