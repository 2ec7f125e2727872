"""A support bundle opened as a store: its SQLite checkpoint file, read-only, from a private copy.

A bundle (written by ``inspector.bundle``) is a zip holding::

    checkpoints.db                                      LangGraph's SQLite schema, one thread
    manifest.json                                       where it came from, what was masked or left out
    threads/{thread}/user-data/{workspace,uploads,outputs}/...   the files its state names

Opening one extracts those members, and nothing else, into a private temporary
folder (names that would leave it, links, and members past the size limit are
refused), makes the copies read-only and opens ``checkpoints.db`` as any SQLite
store. The zip itself is only read. The folder goes when the store is closed.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
import weakref
import zipfile
from pathlib import Path
from typing import Any

from .delta import SchemaSource
from .depth import loads
from .model import StoreError
from .sqlite import SqliteStore

BUNDLE_FORMAT = "state-inspector support bundle"
BUNDLE_VERSION = 1
DB_MEMBER = "checkpoints.db"
MANIFEST_MEMBER = "manifest.json"
USER_DATA_FOLDERS = ("workspace", "uploads", "outputs")
_FILE_MEMBER = re.compile(r"threads/([^/\\\x00]+)/user-data/(?:workspace|uploads|outputs)/[^\\\x00]+")
_CHUNK = 1 << 20


def user_data_prefix(thread_id: str) -> str:
    """Where a thread's user-data folders sit inside a bundle."""
    return f"threads/{thread_id}/user-data/"


def is_bundle_path(path: Path) -> bool:
    return path.suffix.lower() == ".zip"


def _allowed(name: str) -> bool:
    if name in (DB_MEMBER, MANIFEST_MEMBER):
        return True
    parts = name.split("/")
    return bool(_FILE_MEMBER.fullmatch(name)) and not any(p in ("", ".", "..") for p in parts)


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def extract(zip_path: Path, dest: Path, max_bytes: int) -> tuple[dict[str, Any], list[str]]:
    """Extract a bundle's members into ``dest``; returns (manifest, names refused)."""
    try:
        archive = zipfile.ZipFile(zip_path)
    except (zipfile.BadZipFile, OSError) as exc:
        raise StoreError(f"{zip_path} is not a readable zip ({exc})") from None
    refused: list[str] = []
    with archive:
        members = [i for i in archive.infolist() if not i.is_dir()]
        if DB_MEMBER not in {i.filename for i in members}:
            raise StoreError(f"{zip_path} is not a state-inspector bundle: it has no {DB_MEMBER}")
        total = 0
        for info in members:
            target = dest / info.filename
            if not _allowed(info.filename) or _is_link(info) or not target.resolve().is_relative_to(dest.resolve()):
                refused.append(info.filename)
                continue
            total += info.file_size
            if total > max_bytes:
                raise StoreError(f"{zip_path} holds more than {max_bytes:,} bytes; raise bundle_open_max_bytes to open it")
            target.parent.mkdir(parents=True, exist_ok=True)
            _copy(archive, info, target)
            os.chmod(target, 0o444)
        try:
            manifest = loads(archive.read(MANIFEST_MEMBER)) if MANIFEST_MEMBER not in refused else {}
        except (KeyError, ValueError):
            manifest = {}
    return (manifest if isinstance(manifest, dict) else {}), refused


def _copy(archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path) -> None:
    written = 0
    try:
        with archive.open(info) as src, open(target, "wb") as out:
            while chunk := src.read(_CHUNK):
                written += len(chunk)
                if written > info.file_size:  # a header that under-states the size (a zip bomb)
                    raise StoreError(f"bundle member {info.filename!r} is larger than its header says")
                out.write(chunk)
    except (zipfile.BadZipFile, RuntimeError, OSError, EOFError) as exc:
        raise StoreError(f"bundle member {info.filename!r} cannot be read ({exc})") from None


class BundleStore(SqliteStore):
    """A support bundle, read like the SQLite store it holds. ``user_data_root`` is where its files are."""

    kind = "bundle"

    def __init__(self, path: str | Path, url: str | None = None, max_bytes: int = 4_000_000_000,
                 schema: SchemaSource | None = None) -> None:
        self.bundle_path = Path(path).expanduser()
        if not self.bundle_path.is_file():
            raise StoreError(f"no bundle at {self.bundle_path}")
        folder = Path(tempfile.mkdtemp(prefix="inspector-bundle-"))
        self._cleanup = weakref.finalize(self, shutil.rmtree, folder, True)
        try:
            self.manifest, self.refused = extract(self.bundle_path, folder, max_bytes)
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
