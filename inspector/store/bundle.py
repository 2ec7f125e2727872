"""A support bundle opened as a store: its SQLite checkpoint file, read-only, from a private copy.

A bundle (written by ``inspector.bundle``) is a zip holding::

    checkpoints.db                                      LangGraph's SQLite schema, one thread
    manifest.json                                       where it came from, what was masked or left out
    threads/{thread}/user-data/{workspace,uploads,outputs}/...   the files its state names

``{thread}`` is the thread id where it is a plain folder name (letters, digits, ``.``, ``_``, ``-``), else
``~`` and a hash of the id (``bundle_folder``): an id with a backslash, a slash, control characters, bytes
that are not UTF-8 or more characters than a file name holds names no member of the zip.

Before anything is extracted, the zip's central directory is checked against
``BundleLimits``: how many members, how many bytes unpacked in all, how much one
member expands and how much the whole bundle expands over the zip's own size (a
zip bomb, of one member or of many members each too small to be checked alone, is
refused, not unpacked). Then those members, and nothing else, are extracted into a
private folder (names that would leave it, links, a name given twice and a file
named like a folder are refused), made read-only, and ``checkpoints.db`` is opened
as any SQLite store. The zip itself is only read. With a cache folder, a bundle is
unpacked once per content hash and the copy reused by every later open, the folder
bounded by count and by bytes (``bundle_cache``); without one, the copy is a
temporary folder removed when the store is closed. Every failure is a
``StoreError`` of one line.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import weakref
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .bundle_cache import CacheBounds, private_folder, temporary, unpacked
from .delta import SchemaSource
from .depth import loads
from .model import StoreError
from .not_utf8 import quoted
from .sqlite import SqliteStore

BUNDLE_FORMAT = "state-inspector support bundle"
BUNDLE_VERSION = 1
DB_MEMBER = "checkpoints.db"
MANIFEST_MEMBER = "manifest.json"
USER_DATA_FOLDERS = ("workspace", "uploads", "outputs")
_FILE_MEMBER = re.compile(r"threads/([^/\\\x00]+)/user-data/(?:workspace|uploads|outputs)/[^\\\x00]+")
_CHUNK = 1 << 20


_PLAIN_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


def bundle_folder(thread_id: str) -> str:
    """The folder name of a thread inside a bundle: its id where that is a plain name, else ``~`` and the
    first 32 hex digits of the SHA-256 of its bytes (an id that is not UTF-8 hashed by the bytes it is)."""
    if _PLAIN_ID.fullmatch(thread_id):
        return thread_id
    return "~" + hashlib.sha256(thread_id.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def user_data_prefix(thread_id: str) -> str:
    """Where a thread's user-data folders sit inside a bundle."""
    return f"threads/{bundle_folder(thread_id)}/user-data/"


def is_bundle_path(path: Path) -> bool:
    return path.suffix.lower() == ".zip"


@dataclass(frozen=True)
class BundleLimits:
    """What a bundle may hold before it is opened, read from the zip's central directory."""

    max_bytes: int = 4_000_000_000  # members' uncompressed bytes in all
    max_members: int = 10_000  # entries in the zip's directory
    max_ratio: int = 200  # a member's uncompressed bytes per compressed byte (past RATIO_FLOOR)


RATIO_FLOOR = 1_000_000  # a member smaller than this cannot bomb alone: its ratio is not checked
TOTAL_RATIO_FLOOR = 64_000_000  # a bundle unpacking to less than this cannot bomb: the whole ratio is not checked


MAX_NAME_CHARS = 1024  # a member name longer, or nested deeper, than a file system holds is refused
MAX_NAME_PARTS = 64


def _allowed(name: str) -> bool:
    if name in (DB_MEMBER, MANIFEST_MEMBER):
        return True
    if len(name) > MAX_NAME_CHARS or name.count("/") >= MAX_NAME_PARTS:
        return False
    parts = name.split("/")
    return (bool(_FILE_MEMBER.fullmatch(name)) and not any(p in ("", ".", "..") for p in parts)
            and all(len(p.encode("utf-8", "surrogatepass")) <= 255 for p in parts))


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def check_directory(zip_path: Path, infos: list[zipfile.ZipInfo], limits: BundleLimits) -> None:
    """Raise ``StoreError`` when the zip's directory says it holds too many members, too many bytes, or a
    member that expands past ``limits.max_ratio`` (a zip bomb): nothing has been extracted yet."""
    if len(infos) > limits.max_members:
        raise StoreError(f"{zip_path} holds {len(infos):,} members, more than {limits.max_members:,}; "
                         "raise bundle_open_max_members to open it")
    total = sum(info.file_size for info in infos)
    if total > limits.max_bytes:
        raise StoreError(f"{zip_path} holds more than {limits.max_bytes:,} bytes; raise bundle_open_max_bytes "
                         f"to open it ({total:,} bytes unpacked)")
    try:
        stored = max(zip_path.stat().st_size, 1)
    except OSError:
        stored = 1
    if total > TOTAL_RATIO_FLOOR and total > limits.max_ratio * stored:
        raise StoreError(f"{zip_path} expands {total // stored:,} times in all ({stored:,} bytes to {total:,} in "
                         f"{len(infos):,} members), past bundle_open_max_ratio ({limits.max_ratio:,}); a zip bomb is "
                         "never unpacked")
    for info in infos:
        if info.file_size > RATIO_FLOOR and info.file_size > limits.max_ratio * max(info.compress_size, 1):
            ratio = info.file_size // max(info.compress_size, 1)
            raise StoreError(f"{zip_path}: member {quoted(info.filename)} expands {ratio:,} times ({info.compress_size:,} "
                             f"bytes to {info.file_size:,}), past bundle_open_max_ratio ({limits.max_ratio:,}); "
                             "a zip bomb is never unpacked")


def _clashes(names: list[str]) -> set[str]:
    """Members that cannot all be files: a name given twice (every copy: which one is meant cannot be told), or
    a file named like a folder another member sits in."""
    seen: set[str] = set()
    clashing: set[str] = set()
    folders = {name.rsplit("/", i)[0] for name in names for i in range(1, name.count("/") + 1)}
    for name in names:
        if name in seen or name in folders:
            clashing.add(name)
        seen.add(name)
    return clashing


def extract(zip_path: Path, dest: Path, max_bytes: int | BundleLimits) -> tuple[dict[str, Any], list[str]]:
    """Extract a bundle's members into ``dest``; returns (manifest, names refused). Raises ``StoreError``
    with one line for anything that is not a bundle within ``limits``."""
    limits = max_bytes if isinstance(max_bytes, BundleLimits) else BundleLimits(max_bytes=max_bytes)
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise StoreError(f"{zip_path} is not a readable zip ({exc})") from None
    refused: list[str] = []
    with archive:
        infos = archive.infolist()
        check_directory(zip_path, infos, limits)
        members = [i for i in infos if not i.is_dir()]
        if DB_MEMBER not in {i.filename for i in members}:
            raise StoreError(f"{zip_path} is not a state-inspector bundle: it has no {DB_MEMBER}")
        clashing = _clashes([i.filename for i in members if _allowed(i.filename)])
        for info in members:
            target = dest / info.filename
            if (not _allowed(info.filename) or _is_link(info) or info.filename in clashing
                    or not target.resolve().is_relative_to(dest.resolve())):
                refused.append(info.filename)
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                refused.append(info.filename)
                if info.filename == DB_MEMBER:
                    raise StoreError(f"{zip_path}: {DB_MEMBER} cannot be unpacked ({exc.strerror or exc})") from None
                continue
            _copy(archive, info, target)
            os.chmod(target, 0o444)
        if DB_MEMBER in refused:
            raise StoreError(f"{zip_path}: its {DB_MEMBER} member cannot be unpacked (a name clash)")
        try:
            manifest = loads(archive.read(MANIFEST_MEMBER)) if MANIFEST_MEMBER not in refused else {}
        except (KeyError, ValueError, zipfile.BadZipFile, OSError, EOFError, RuntimeError):
            manifest = {}
    return (manifest if isinstance(manifest, dict) else {}), refused


def _copy(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    written = 0
    try:
        with archive.open(info) as src, open(target, "wb") as out:
            while chunk := src.read(_CHUNK):
                written += len(chunk)
                if written > info.file_size:  # a header that under-states the size (a zip bomb)
                    raise StoreError(f"bundle member {quoted(info.filename)} is larger than its header says")
                out.write(chunk)
    except (zipfile.BadZipFile, RuntimeError, OSError, EOFError, ValueError, NotImplementedError) as exc:
        raise StoreError(f"bundle member {quoted(info.filename)} cannot be read ({exc})") from None


def directory_bytes(zip_path: Path, limits: BundleLimits) -> int:
    """The bytes a bundle unpacks to, from its zip's directory, once ``check_directory`` passes it; raises
    ``StoreError`` with one line for anything that is not a bundle within ``limits``."""
    try:
        with zipfile.ZipFile(zip_path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise StoreError(f"{zip_path} is not a readable zip ({exc})") from None
    check_directory(zip_path, infos, limits)
    return sum(info.file_size for info in infos if not info.is_dir())


class BundleStore(SqliteStore):
    """A support bundle, read like the SQLite store it holds. ``user_data_root`` is where its files are."""

    kind = "bundle"

    def __init__(self, path: str | Path, url: str | None = None, max_bytes: int = 4_000_000_000,
                 schema: SchemaSource | None = None, limits: BundleLimits | None = None,
                 cache_dir: str | Path | None = None, cache_bounds: CacheBounds | None = None) -> None:
        self.bundle_path = Path(path).expanduser()
        if not self.bundle_path.is_file():
            raise StoreError(f"no bundle at {self.bundle_path}")
        limits = limits or BundleLimits(max_bytes=max_bytes)
        size = directory_bytes(self.bundle_path, limits)  # a bomb is refused here, before anything is unpacked
        cache = private_folder(Path(cache_dir).expanduser()) if cache_dir else None

        def unpack(folder: Path) -> tuple[dict[str, Any], list[str]]:
            return extract(self.bundle_path, folder, limits)

        try:
            copy = (unpacked(self.bundle_path, cache, cache_bounds or CacheBounds(), size, unpack) if cache is not None
                    else temporary(unpack))
        except OSError as exc:
            raise StoreError(f"{self.bundle_path} cannot be unpacked ({exc.strerror or exc})") from None
        self._cleanup = weakref.finalize(self, copy.release)  # the store's hold on its copy, dropped when closed
        folder, self.manifest, self.refused = copy.folder, copy.manifest, copy.refused
        try:
            super().__init__(folder / DB_MEMBER, url=url or str(self.bundle_path), schema=schema)
        except BaseException:
            self._cleanup()
            raise
        self.user_data_root = folder
        redaction = self.manifest.get("redaction") if isinstance(self.manifest.get("redaction"), dict) else {}
        self.warning = ("A support bundle, read from a private copy. "
                        + ("Secrets were masked when it was made." if redaction.get("enabled")
                           else "It was made without masking secrets: values are as stored."))

    @property
    def recorded_folders(self) -> dict[str, dict[str, str]]:
        """Where the files' folders were at the source, as the bundle recorded them: thread -> folder -> path,
        for its thread, then the threads it was branched from (nearest first)."""
        user_data = self.manifest.get("user_data")
        if not isinstance(user_data, dict):
            return {}
        entries = [(self.manifest.get("thread_id"), user_data.get("source_folders"))]
        branched = user_data.get("branched_from")
        entries += [(e.get("thread_id"), e.get("source_folders")) for e in branched if isinstance(e, dict)] \
            if isinstance(branched, list) else []
        return {thread: {k: v for k, v in folders.items() if k in USER_DATA_FOLDERS and isinstance(v, str)}
                for thread, folders in entries if isinstance(thread, str) and isinstance(folders, dict)}

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._cleanup()
