"""Support bundles unpacked once per content, in a cache folder bounded by count and by bytes.

A bundle is unpacked under ``{cache}/{sha256 of the zip}`` and reused by every later open of the same content,
from any process (the CLI and the dashboard share the folder). The folder holds at most ``CacheBounds.max_entries``
unpacked bundles and ``CacheBounds.max_bytes`` of them: before one more is unpacked, the least recently opened
are removed (every open touches its folder) until it fits. A bundle a store is reading is never removed from
under it: a store holds a shared lock (``flock``) on its folder while it is open, and eviction removes only a
folder whose exclusive lock it gets at once. When the bundles open now leave no room (or a bundle is bigger
than the whole cache), the new one is unpacked into a temporary folder of its own, removed when its store is
closed, so the cache never passes its bounds.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_CHUNK = 1 << 20
_DONE = ".opened.json"  # written last into an unpacked bundle: its manifest, what was refused, its bytes
STALE_SECONDS = 3600  # a half-unpacked folder older than this was left by a process that died

Unpack = Callable[[Path], tuple[dict[str, Any], list[str]]]  # extracts a bundle into a folder: (manifest, refused)


@dataclass(frozen=True)
class CacheBounds:
    """How much the cache folder keeps unpacked: bundles, and their bytes in all."""

    max_entries: int = 4
    max_bytes: int = 2_048 * 1024 * 1024


@dataclass
class Unpacked:
    """A bundle's private copy: where it is, what its manifest says and what was refused; ``release`` drops
    the store's hold on it (the lock on a cached copy, or a temporary copy itself)."""

    folder: Path
    manifest: dict[str, Any]
    refused: list[str]
    release: Callable[[], None]


def content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def private_folder(path: Path) -> Path | None:
    """``path``, created if needed, when it is a folder of this user's that nobody else may write; else None."""
    try:
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return path


def temporary(unpack: Unpack) -> Unpacked:
    """The bundle unpacked into a temporary folder of its own, removed by ``release``."""
    folder = Path(tempfile.mkdtemp(prefix="inspector-bundle-"))
    try:
        manifest, refused = unpack(folder)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Unpacked(folder, manifest, refused, lambda: shutil.rmtree(folder, ignore_errors=True))


def unpacked(zip_path: Path, cache: Path, bounds: CacheBounds, size: int, unpack: Unpack) -> Unpacked:
    """The bundle ``zip_path`` (``size`` bytes unpacked, as its directory says) unpacked under ``cache``: reused
    when the same content is there, else unpacked once room is made; in a temporary folder when the bundles
    open now leave none."""
    final = cache / content_hash(zip_path)
    held = _hold(final)
    if held is not None:
        _make_room(cache, bounds, held.folder, _bytes(final))
        return held
    _remove_if_idle(final)  # one this module did not finish writing
    if not _make_room(cache, bounds, final, size):
        return temporary(unpack)
    staging = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=cache))
    try:
        manifest, refused = unpack(staging)
        (staging / _DONE).write_text(json.dumps({"manifest": manifest, "refused": refused, "bytes": size}))
        try:
            os.rename(staging, final)
        except OSError:  # another process unpacked the same bundle meanwhile: use its copy
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return _hold(final) or temporary(unpack)  # removed before it could be held: a copy of its own


def _lock(folder: Path, how: int) -> int | None:
    """An open descriptor of ``folder`` locked ``how``; None when the folder is not there or the lock not had."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        fcntl.flock(fd, how)
    except OSError:
        os.close(fd)
        return None
    return fd


def _hold(final: Path) -> Unpacked | None:
    """The finished copy at ``final``, held (a shared lock, waiting while an eviction removes it); None when
    there is none, or it was removed meanwhile."""
    fd = _lock(final, fcntl.LOCK_SH)
    if fd is None:
        return None
    done = _read_done(final)
    try:
        same = os.stat(final).st_ino == os.fstat(fd).st_ino
    except OSError:
        same = False
    if done is None or not same:
        os.close(fd)
        return None
    with contextlib.suppress(OSError):
        os.utime(final)
    return Unpacked(final, done["manifest"], done["refused"], lambda: os.close(fd))


def _read_done(folder: Path) -> dict[str, Any] | None:
    try:
        done = json.loads((folder / _DONE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(done, dict) or not isinstance(done.get("manifest"), dict) or not isinstance(done.get("refused"), list):
        return None
    return done


def _bytes(folder: Path) -> int:
    """The bytes a copy holds: as recorded when it was unpacked, else counted."""
    done = _read_done(folder)
    if done is not None and isinstance(done.get("bytes"), int) and not isinstance(done["bytes"], bool):
        return done["bytes"]
    total = 0
    for root, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _remove_if_idle(folder: Path) -> bool:
    """Remove ``folder`` unless a store holds it; whether it is gone."""
    fd = _lock(folder, fcntl.LOCK_EX | fcntl.LOCK_NB)
    if fd is None:
        return not os.path.lexists(folder)
    try:
        shutil.rmtree(folder, ignore_errors=True)
    finally:
        os.close(fd)
    return not os.path.lexists(folder)


def _make_room(cache: Path, bounds: CacheBounds, keep: Path, size: int) -> bool:
    """Remove the least recently opened copies that no store holds (and half-unpacked ones left by a process
    that died) until ``keep`` (``size`` bytes) fits with the rest; whether it does."""
    opened: list[tuple[float, Path]] = []
    now = time.time()
    try:
        for entry in cache.iterdir():
            with contextlib.suppress(OSError):  # removed meanwhile
                info = entry.lstat()
                if not stat.S_ISDIR(info.st_mode) or entry == keep:
                    continue
                if entry.name.startswith(".unpacking-"):
                    if now - info.st_mtime > STALE_SECONDS:
                        shutil.rmtree(entry, ignore_errors=True)
                    continue
                opened.append((info.st_mtime, entry))
    except OSError:
        return False
    opened.sort()
    sizes = {path: _bytes(path) for _, path in opened}
    count, total = len(opened), sum(sizes.values())
    for _, path in opened:  # oldest first
        if count < bounds.max_entries and total + size <= bounds.max_bytes:
            break
        if _remove_if_idle(path):
            count, total = count - 1, total - sizes[path]
    return count < bounds.max_entries and total + size <= bounds.max_bytes
