"""``write_bundle(store, thread_id, out)``: one thread, its files and a manifest, in a zip support can open.

The checkpoint file is a NEW SQLite database created by LangGraph's own
``SqliteSaver.setup()``; the thread's rows are copied into it, every value
masked first (``Masker``), so no secret is ever written to it. The source store
is only read. The zip is built under a temporary name and renamed when complete.
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
import tempfile
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from ..store import Store, display_url
from ..store.bundle import BUNDLE_FORMAT, BUNDLE_VERSION, DB_MEMBER, MANIFEST_MEMBER, user_data_prefix
from ..user_data import PathRefused, check_id, data_bases, locate
from .files import FilePlan, References, plan_files, read_file
from .masking import Masker
from .rows import RowConverter

_INSERT_CHECKPOINT = """INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type,
                        checkpoint, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)"""
_INSERT_WRITE = """INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type,
                   value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"""


def default_user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


class _Copy:
    """The rows copied so far, and what the newest root checkpoint says about the thread's folders."""

    def __init__(self) -> None:
        self.checkpoints = 0
        self.writes = 0
        self.stray_writes = 0
        self.namespaces: set[str] = set()
        self.refs = References()
        self.newest_root: tuple[str, dict[str, Any], Any] | None = None  # (id, file-naming values, metadata)


def _copy_rows(store: Store, thread_id: str, conn: sqlite3.Connection, convert: RowConverter) -> _Copy:
    copied = _Copy()
    for cp in store.export_thread(thread_id):
        if cp.missing:
            copied.stray_writes += len(cp.writes)
            continue
        converted = convert.checkpoint(cp)
        if converted is None:
            continue
        type_tag, blob, values = converted
        conn.execute(_INSERT_CHECKPOINT, (thread_id, cp.checkpoint_ns, cp.checkpoint_id, cp.parent_checkpoint_id,
                                          type_tag, blob, convert.metadata(cp.metadata)))
        copied.checkpoints += 1
        copied.namespaces.add(cp.checkpoint_ns)
        copied.refs.collect(values)
        if not cp.checkpoint_ns and (copied.newest_root is None or cp.checkpoint_id > copied.newest_root[0]):
            copied.newest_root = (cp.checkpoint_id, values, cp.metadata)
        for write in cp.writes:
            kept = convert.write(write)
            if kept is not None:
                conn.execute(_INSERT_WRITE, (thread_id, cp.checkpoint_ns, cp.checkpoint_id, write.task_id,
                                             write.task_path, write.idx, write.channel, *kept))
                copied.writes += 1
    return copied


def _user_id(metadata: Any) -> str | None:
    if isinstance(metadata, (bytes, bytearray, memoryview, str)):
        try:
            metadata = json.loads(bytes(metadata) if not isinstance(metadata, str) else metadata)
        except ValueError:
            return None
    value = metadata.get("user_id") if isinstance(metadata, dict) else None
    return value if isinstance(value, str) else None


def _files(store: Store, thread_id: str, copied: _Copy, data_dir: Any, max_file: int, max_total: int,
           ) -> tuple[FilePlan, dict[str, str]]:
    values, metadata = (copied.newest_root[1], copied.newest_root[2]) if copied.newest_root else ({}, None)
    try:
        user_data = locate(thread_id, values.get("thread_data"), data_bases(data_dir, store), _user_id(metadata))
    except PathRefused as exc:
        plan = FilePlan()
        plan.left_out.append({"what": "the thread's files", "count": len(copied.refs.paths), "reason": f"refused: {exc}"})
        return plan, {}
    folders = {k: str(v) for k, v in user_data.folders.items()} if user_data else {}
    return plan_files(copied.refs, user_data, user_data_prefix(thread_id), max_file, max_total), folders


def write_bundle(store: Store, thread_id: str, out: str | Path, *, data_dir: str | Path | None = None,
                 redact: bool = True, created_by: str | None = None, settings: Any = None) -> dict[str, Any]:
    """Write the bundle of ``thread_id`` to ``out`` and return its manifest.

    Raises ``NotFound`` for an unknown thread, ``StoreError`` for a store whose rows cannot be read as
    stored, ``RedactionUnavailable`` when ``redact`` is asked for and the rules are missing.
    """
    if settings is None:
        from ..settings import load_settings

        settings = load_settings()
    check_id(thread_id)
    out = Path(out)
    masker = Masker(redact, settings)
    convert = RowConverter(masker)
    with tempfile.TemporaryDirectory(prefix="inspector-bundle-") as tmp:
        db = Path(tmp) / DB_MEMBER
        conn = sqlite3.connect(db, check_same_thread=False)
        try:
            SqliteSaver(conn).setup()  # LangGraph's own schema, on the new file only
            copied = _copy_rows(store, thread_id, conn, convert)
            conn.commit()
            conn.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            conn.close()
        files, source_folders = _files(store, thread_id, copied, data_dir, settings.bundle_max_file_bytes,
                                       settings.bundle_max_files_bytes)
        building = out.with_name(out.name + ".building")
        try:
            with zipfile.ZipFile(building, "w", zipfile.ZIP_DEFLATED) as archive:
                archive.write(db, DB_MEMBER)
                for bundled in files.files:
                    archive.writestr(bundled.member, read_file(bundled, masker))
                manifest = _manifest(store, thread_id, copied, convert, masker, files, source_folders, created_by)
                archive.writestr(MANIFEST_MEMBER, json.dumps(manifest, indent=2, ensure_ascii=False))
            os.replace(building, out)
        finally:
            building.unlink(missing_ok=True)
    return manifest


def _manifest(store: Store, thread_id: str, copied: _Copy, convert: RowConverter, masker: Masker, files: FilePlan,
              source_folders: dict[str, str], created_by: str | None) -> dict[str, Any]:
    left_out = convert.left_out_rows() + files.left_out
    if copied.stray_writes:
        left_out.append({"what": "writes stored against checkpoints the store does not hold",
                         "count": copied.stray_writes, "reason": "nothing in the bundle would read them"})
    manifest = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "thread_id": thread_id,
        "source": display_url(store.url),
        "source_kind": store.kind,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "created_by": created_by or default_user(),
        "checkpoints": copied.checkpoints,
        "writes": copied.writes,
        "namespaces": sorted(copied.namespaces),
        "user_data": {
            "source_folders": source_folders,
            "files": [{"path": f.path, "member": f.member, "bytes": f.size, "sha256": f.sha256,
                       "redacted": f.redacted} for f in files.files],
        },
        "left_out": left_out,
    }
    masked_manifest = masker.value(manifest, "manifest")
    masked_manifest["redaction"] = {
        "enabled": masker.enabled,
        "rules": "inspector.redaction (the rules every view applies)" if masker.enabled else None,
        "values_masked": dict(masker.masked),
    }
    return masked_manifest
