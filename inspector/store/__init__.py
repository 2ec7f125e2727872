"""Read-only checkpoint stores behind one protocol.

``open_store(url)`` picks the backend from the URL:

- ``sqlite:///relative.db``, ``sqlite:////absolute.db`` or a bare file path: ``SqliteStore``.
"""

from __future__ import annotations

import urllib.parse
from pathlib import Path

from .decode import Problem
from .model import (
    PER_CHECKPOINT_COPY,
    SHARED_BLOBS,
    CheckpointRow,
    CheckpointSizes,
    CheckpointState,
    NotFound,
    Store,
    StoreError,
    ThreadSummary,
    WriteRecord,
    is_internal_channel,
)
from .sqlite import SqliteStore

__all__ = [
    "PER_CHECKPOINT_COPY",
    "SHARED_BLOBS",
    "CheckpointRow",
    "CheckpointSizes",
    "CheckpointState",
    "NotFound",
    "Problem",
    "Store",
    "StoreError",
    "ThreadSummary",
    "WriteRecord",
    "is_internal_channel",
    "open_store",
    "sqlite_path",
]


def sqlite_path(url: str) -> Path:
    """The file a ``sqlite:`` URL or bare path names."""
    if url.startswith("sqlite:"):
        parsed = urllib.parse.urlsplit(url)
        if parsed.netloc not in ("", "localhost"):
            raise StoreError(f"malformed SQLite URL {url!r}: use sqlite:///relative.db or sqlite:////absolute.db")
        path = urllib.parse.unquote(parsed.path)
        if not path.startswith("/") or path == "/":
            raise StoreError(f"malformed SQLite URL {url!r}: use sqlite:///relative.db or sqlite:////absolute.db")
        return Path(path[1:])  # sqlite:///a.db -> a.db ; sqlite:////abs/a.db -> /abs/a.db
    return Path(url)


def open_store(url: str) -> Store:
    """Open the store ``url`` names, read-only. Raises ``StoreError`` with one clear line."""
    if not isinstance(url, str) or not url.strip():
        raise StoreError("no store URL given")
    url = url.strip()
    scheme = urllib.parse.urlsplit(url).scheme.lower() if "://" in url else ""
    if scheme in ("", "sqlite", "file") and not url.startswith("file:"):
        return SqliteStore(sqlite_path(url), url=url)
    if url.startswith("file:"):
        return SqliteStore(Path(urllib.parse.unquote(urllib.parse.urlsplit(url).path)), url=url)
    raise StoreError(f"unsupported store URL {url!r}: expected sqlite:///path.db or a file path")
