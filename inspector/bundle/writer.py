"""``write_bundle(store, thread_id, out)``: one thread, its files and a manifest, in a zip support can open.

The checkpoint file is a NEW SQLite database created by LangGraph's own
``SqliteSaver.setup()``; the thread's rows are copied into it, every value
masked first (``Masker``), and the names in its keys too (namespaces, task
paths and ids: a key-shaped node name is in each), so no secret is ever written
to it, and the file is VACUUMed before it is zipped. A file's member name is
masked as a name as well (the state's masked path names the same member). The
source store is only read. The zip is built under a temporary name and renamed
when complete.
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

from ..media.folders import PathRefused, folder_refusals
from ..profiles import Profile, Reading, asked, reading_for
from ..store import Store, display_url
from ..store.bundle import BUNDLE_FORMAT, BUNDLE_VERSION, DB_MEMBER, MANIFEST_MEMBER
from ..store.depth import json_object
from ..store.not_utf8 import is_not_utf8
from ..store.sqlite.connect import bound
from ..store_ops import operating
from .files import (
    NO_FOLDER,
    REFUSED,
    ROWS,
    SECRET,
    UNREADABLE,
    FilePlan,
    References,
    no_files_note,
    plan_files,
    read_file,
)
from .masking import Masker
from .rows import RowConverter

BINARY_SECRET = "a binary file holding text shaped like a secret, which cannot be masked without breaking the file"
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
    """The rows copied so far, the files their values name, and what the newest root checkpoint says about
    the thread's folders."""

    def __init__(self, refs: References) -> None:
        self.checkpoints = 0
        self.writes = 0
        self.stray_writes = 0
        self.namespaces: set[str] = set()
        self.refs = refs
        self.newest_root: tuple[str, dict[str, Any], Any] | None = None  # (id, file-naming values, metadata)
        self.oldest_root: tuple[str, Any] | None = None  # (id, metadata): where an app records a thread's origin


def _converter(masker: Masker, profile: Profile) -> tuple[RowConverter, References]:
    """A row converter that hands every value of the channels the profile says name files to the profile's
    ``referenced_files``, and the references it finds."""
    refs = References()
    names = profile.referenced_files
    if names is None:
        return RowConverter(masker), refs
    return RowConverter(masker, profile.file_channels, lambda channel, value: refs.add_refs(names({channel: value}))), refs


def _copy_rows(store: Store, thread_id: str, conn: sqlite3.Connection, convert: RowConverter,
               refs: References) -> _Copy:
    copied = _Copy(refs)
    name = convert.masker.name
    for cp in operating(store).export_thread(thread_id):
        if cp.missing:
            copied.stray_writes += len(cp.writes)
            continue
        converted = convert.checkpoint(cp)
        if converted is None:
            continue
        type_tag, blob, values = converted
        # ids that are not UTF-8 (a hostile SQLite store's) are copied as the bytes they are (``bound``)
        ns = name(cp.checkpoint_ns)
        conn.execute(*bound(_INSERT_CHECKPOINT, (thread_id, ns, cp.checkpoint_id,
                                                 cp.parent_checkpoint_id, type_tag, blob, convert.metadata(cp.metadata))))
        copied.checkpoints += 1
        copied.namespaces.add(ns)
        if not cp.checkpoint_ns and (copied.newest_root is None or cp.checkpoint_id > copied.newest_root[0]):
            copied.newest_root = (cp.checkpoint_id, values, cp.metadata)
        if not cp.checkpoint_ns and (copied.oldest_root is None or cp.checkpoint_id < copied.oldest_root[0]):
            copied.oldest_root = (cp.checkpoint_id, cp.metadata)
        for write in cp.writes:
            kept = convert.write(write)
            if kept is not None:
                conn.execute(*bound(_INSERT_WRITE, (thread_id, ns, cp.checkpoint_id, name(write.task_id),
                                                    name(write.task_path), write.idx,
                                                    convert.masker.channel_name(write.channel), *kept)))
                copied.writes += 1
    return copied


def _metadata(raw: Any) -> dict[str, Any]:
    if isinstance(raw, (bytes, bytearray, memoryview, str)):
        return json_object(raw) or {}
    return raw if isinstance(raw, dict) else {}


def _files(store: Store, thread_id: str, copied: _Copy, chosen: Reading, data_dir: Any, max_file: int,
           max_total: int) -> tuple[FilePlan, dict[str, Any]]:
    """The files to bundle, and where their folders were (the thread's, and those it was branched from), as
    the thread's profile finds them (``Profile.folders``); a profile that names no files bundles none."""
    values, metadata = (copied.newest_root[1], copied.newest_root[2]) if copied.newest_root else ({}, None)
    finder = chosen.profile.folders
    if finder is None or chosen.profile.referenced_files is None:
        return FilePlan(), {"source_folders": {}, "files_note": no_files_note(
            chosen.title, chosen.is_app(), chosen.profile.texts.get("files.none") if chosen.is_app() else None)}
    # the thread's metadata as its oldest and newest root checkpoints hold it: a record of where the thread came
    # from (a branch's parent) is written with its first checkpoint, and may be missing from its newest
    oldest = _metadata(copied.oldest_root[1]) if copied.oldest_root else {}
    user_data, problems = finder(thread_id, values, {**oldest, **_metadata(metadata)}, data_dir, store)
    if user_data is None:
        plan = FilePlan()
        if problems and problems[0].startswith("refused:") and copied.refs.paths:
            plan.left_out.append({"what": "the thread's files", "count": len(copied.refs.paths), "kind": REFUSED,
                                  "reason": problems[0]})
        else:
            plan = plan_files(copied.refs, None, max_file, max_total)
        return plan, {"source_folders": {}}
    plan = plan_files(copied.refs, user_data, max_file, max_total)
    own = folder_refusals(user_data)
    plan.left_out += [{"what": "the thread's folders", "count": 1, "kind": REFUSED, "reason": p} for p in own]
    plan.left_out += [{"what": "files of the threads it was branched from", "count": 1,
                       "kind": REFUSED if p.startswith("refused") else NO_FOLDER, "reason": p}
                      for p in problems if p not in own]
    # a branch with no folder of its own reads its files from the folders of the thread it was taken from:
    # recorded as that thread's, so the bundle opened finds them where a branch looks
    own_folders = user_data.thread_id == thread_id
    folders: dict[str, Any] = {"source_folders": {k: str(v) for k, v in user_data.folders.items()} if own_folders else {}}
    holders = list(user_data.parents) if own_folders else [user_data, *user_data.parents]
    if holders:
        folders["branched_from"] = [{"thread_id": p.thread_id, "source_folders": {k: str(v) for k, v in p.folders.items()}}
                                    for p in holders]
    return plan, folders


def write_bundle(store: Store, thread_id: str, out: str | Path, *, data_dir: str | Path | None = None,
                 reveal: bool = False, created_by: str | None = None, settings: Any = None) -> dict[str, Any]:
    """Write the bundle of ``thread_id`` to ``out`` and return its manifest.

    Secrets are masked with the settings' redaction rules; ``reveal=True`` keeps every value as stored. The
    thread is read with its profile (the one ``profiles.asking`` names for it, else the operator's or its
    evidence's), which says which files it names; the manifest's ``profile`` says which.

    Raises ``NotFound`` for an unknown thread, ``StoreError`` for a store whose rows cannot be read as
    stored, ``PermissionError`` for ``reveal`` where the settings do not set ``allow_reveal``.
    """
    if settings is None:
        from ..settings import load_settings

        settings = load_settings()
    out = Path(out)
    masker = Masker(settings, reveal=reveal)
    chosen = reading_for(store, thread_id, asked(store, thread_id))
    convert, refs = _converter(masker, chosen.profile)
    with tempfile.TemporaryDirectory(prefix="inspector-bundle-") as tmp:
        db = Path(tmp) / DB_MEMBER
        copied = _write_database(store, thread_id, db, convert, refs)
        files, source_folders = _files(store, thread_id, copied, chosen, data_dir, settings.bundle_max_file_bytes,
                                       settings.bundle_max_files_bytes)
        _mask_members(files, masker)
        building = out.with_name(out.name + ".building")
        try:
            with zipfile.ZipFile(building, "w", zipfile.ZIP_DEFLATED) as archive:
                archive.write(db, DB_MEMBER)
                for bundled in list(files.files):
                    try:
                        data = read_file(bundled, masker)
                    except (PathRefused, OSError) as exc:
                        files.files.remove(bundled)
                        files.left_out.append({"what": bundled.path, "count": 1, "kind": REFUSED if isinstance(
                                                   exc, PathRefused) else UNREADABLE,
                                               "reason": f"refused: {exc}" if isinstance(exc, PathRefused)
                                               else f"unreadable: {exc.strerror or exc}"})
                        continue
                    if data is None:
                        files.files.remove(bundled)
                        files.left_out.append({"what": bundled.path, "count": 1, "kind": SECRET, "reason": BINARY_SECRET})
                    else:
                        archive.writestr(bundled.member, data)
                manifest = _manifest(store, thread_id, copied, convert, masker, files, source_folders, created_by,
                                     chosen)
                text = json.dumps(manifest, indent=2, ensure_ascii=False)
                if is_not_utf8(text):  # an id that is not UTF-8: written as JSON's \\udcff escapes, read back the same
                    text = json.dumps(manifest, indent=2)
                archive.writestr(MANIFEST_MEMBER, text)
            os.replace(building, out)
        finally:
            building.unlink(missing_ok=True)
    return manifest


def _mask_members(files: FilePlan, masker: Masker) -> None:
    """Each file's member name with the names in it masked (a key-shaped file name), after the thread's folder,
    as the state's masked path names it; two that mask alike kept apart."""
    taken: set[str] = set()
    for bundled in files.files:
        head, sep, tail = bundled.member.partition("/user-data/")
        member = head + sep + "/".join(masker.name(part) for part in tail.split("/")) if sep else bundled.member
        stem, dot, suffix = member.rpartition(".")
        n = 1
        while member in taken:
            n += 1
            member = f"{stem} ({n}){dot}{suffix}" if dot and "/" not in suffix else f"{member} ({n})"
        taken.add(member)
        bundled.member = member


def _write_database(store: Store, thread_id: str, db: Path, convert: RowConverter, refs: References) -> _Copy:
    """The thread's rows, masked, in a new SQLite file: inserted once, never updated or deleted, then
    VACUUMed, so no page of the file holds anything but the rows as written."""
    conn = sqlite3.connect(db, check_same_thread=False)
    try:
        conn.execute("PRAGMA secure_delete = ON")
        SqliteSaver(conn).setup()  # LangGraph's own schema, on the new file only
        copied = _copy_rows(store, thread_id, conn, convert, refs)
        conn.commit()
        conn.execute("PRAGMA journal_mode=DELETE")  # one self-contained file: the WAL folded in and removed
        conn.execute("VACUUM")
    finally:
        conn.close()
    return copied


def _manifest(store: Store, thread_id: str, copied: _Copy, convert: RowConverter, masker: Masker, files: FilePlan,
              source_folders: dict[str, Any], created_by: str | None, chosen: Reading) -> dict[str, Any]:
    left_out = convert.left_out_rows() + files.left_out
    if copied.stray_writes:
        left_out.append({"what": "writes stored against checkpoints the store does not hold",
                         "count": copied.stray_writes, "kind": ROWS, "reason": "nothing in the bundle would read them"})
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
        "profile": chosen.as_json(),  # which app's knowledge read it: which files it names
        "user_data": {
            **source_folders,
            "files": [{"path": f.path, "member": f.member, "bytes": f.size, "sha256": f.sha256,
                       "redacted": f.redacted, "named_by": f.named_by} for f in files.files],
        },
        "left_out": left_out,
    }
    masked_manifest = masker.value(manifest, "manifest")
    masked_manifest["redaction"] = _redaction(masker)
    return masked_manifest


def _redaction(masker: Masker) -> dict[str, Any]:
    """What the manifest says about masking: whether it was on, by which rules, and what it masked where."""
    if not masker.enabled:
        return {"enabled": False, "rules": None,
                "note": "made with reveal (allowed by the operator's allow_reveal): every value is as stored"}
    return {
        "enabled": True,
        "rules": "inspector.safety.redaction: the rules every page, download and CLI output applies",
        "operator_patterns": masker.operator_patterns,
        "values_masked": dict(masker.masked),  # where: values or files in which something was masked
        "marks": masker.kinds,  # kind: secrets replaced by a mark
        "mark_format": "[redacted KIND · LENGTH CLASS · #HASH]; equal secrets carry equal marks in one bundle",
    }
