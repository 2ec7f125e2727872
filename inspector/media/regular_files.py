"""Opening a file the data names: only a regular file, never blocking, never more than asked.

A path inside the thread's folders may still be a named pipe (opening one for reading waits for a
writer, forever), a device or a socket. Each file is opened non-blocking and without following a final
symlink (the path given is already resolved), its type is checked on the open descriptor (so a file
swapped after the check is the one checked), and anything but a regular file is refused before a byte
is read. Reads stop at the caller's cap.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from .folders import PathRefused

_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def not_regular(mode: int) -> str:
    """The refusal for a file of ``mode`` that is not a regular file."""
    return f"not a regular file ({kind_of(mode)}): never opened for reading"


@contextmanager
def open_regular(path: str | Path) -> Iterator[tuple[BinaryIO, int]]:
    """``(binary file, size)`` of a regular file, opened without blocking; raises ``PathRefused`` for
    anything else (a named pipe, a device, a socket, a folder, a symlink) and ``OSError`` when it cannot be
    opened."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise PathRefused(f"is a symbolic link, not followed: {path}") from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise PathRefused(not_regular(info.st_mode))
        fh = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with fh:
        yield fh, info.st_size


def read_regular(path: str | Path, limit: int) -> tuple[bytes, int]:
    """At most ``limit`` bytes of a regular file, and its size (see ``open_regular``)."""
    with open_regular(path) as (fh, size):
        return fh.read(max(limit, 0)), size
