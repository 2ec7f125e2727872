"""The embedded analysis cache's file and folders, private to the user who runs the inspector.

The cache's file and SQLite's side files (``-wal``, ``-shm``, ``-journal``) are 0600: the file is created so
before SQLite opens it (SQLite gives its side files the file's own mode), and one an older version left
readable is tightened. Folders: each folder the inspector creates is 0700, and so is the cache's own folder (the
default ``state-inspector`` folder, or a ``cache_dir`` that holds nothing but the cache's files); a folder the
operator made and keeps other things in is left as they set it, since changing it could break what else it
serves (the cache's files in it are private all the same).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

SIDE_FILES = ("-wal", "-shm", "-journal")
FILE_MODE, FOLDER_MODE = 0o600, 0o700


def private_file(path: Path, create: bool = True) -> None:
    """``path`` as a regular file of the user's with mode 0600: created so when missing (``create``), tightened
    when looser. ``OSError`` for a file that is a link, not a regular file, or another user's; a missing file
    when not ``create`` is left missing.

    A file that exists is only looked at and chmod-ed, never opened: closing a descriptor of a file releases
    every POSIX lock this process holds on it, SQLite's included, and another process would then take this
    process's open cache for unused (and reset its shared memory under it)."""
    if create:
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        try:
            os.close(os.open(path, flags, FILE_MODE))
        except FileExistsError:
            pass
        else:
            os.chmod(path, FILE_MODE)  # the umask may have taken bits away; never added any
            return
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        if create:
            raise
        return
    if not stat.S_ISREG(found.st_mode):
        raise OSError(f"{path} is not a regular file")
    if hasattr(os, "geteuid") and found.st_uid != os.geteuid():
        raise OSError(f"{path} belongs to another user")
    if stat.S_IMODE(found.st_mode) & 0o077:
        os.chmod(path, FILE_MODE)


def private_folder(directory: Path, own: bool, names: tuple[str, ...]) -> None:
    """Make ``directory`` (and each missing folder above it) with mode 0700. An existing one is tightened to
    0700 when it is the cache's own: ``own`` (the default folder), or holding only files whose names start
    with one of ``names``; otherwise it is left as it is."""
    missing: list[Path] = []
    folder = directory
    while not os.path.lexists(folder) and folder.parent != folder:
        missing.append(folder)
        folder = folder.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=FOLDER_MODE)
        except FileExistsError:  # another process made it just now
            continue
        os.chmod(folder, FOLDER_MODE)  # mkdir's mode passes through the umask
    if missing or not directory.is_dir():
        if not directory.is_dir():
            raise NotADirectoryError(f"{directory} is not a folder")
        return
    if own or _holds_only(directory, names):
        _tighten(directory)


def _holds_only(directory: Path, names: tuple[str, ...]) -> bool:
    try:
        entries = os.listdir(directory)
    except OSError:
        return False
    return bool(entries) and all(entry.startswith(names) for entry in entries)


def _tighten(directory: Path) -> None:
    try:
        found = os.stat(directory)
        if stat.S_IMODE(found.st_mode) & 0o077 and (not hasattr(os, "geteuid") or found.st_uid == os.geteuid()):
            os.chmod(directory, FOLDER_MODE)
    except OSError:  # not the user's to change: the files in it are private all the same
        pass
