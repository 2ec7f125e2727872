"""The images, artifacts and uploaded files of one checkpoint, with their history: one report for the page and
the CLI."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..analysis_cache import AnalysisCache
from ..history.field_history import field_history
from ..profiles import in_force, knows, reads_thread
from ..profiles.deerflow.artifacts import Artifact, first_appearances, list_artifacts
from ..profiles.deerflow.checkpoint_kinds import branch_origin
from ..profiles.deerflow.image_facts import FIELD, cached_image_spans
from ..profiles.deerflow.image_history import ImageSpan
from ..profiles.pieces import USER_DATA
from ..store import CheckpointRow, CheckpointState, NotFound, Store, StoreError
from ..store.model import branch_of
from .images import ImageCheck, check_viewed_images
from .located import LocatedFile, locate_refs
from .user_data import PathRefused, UserData, data_bases, in_bundle, locate

FOLDER_NOT_FOUND = ("the thread's user-data folder was not found on this machine; "
                    "set --data-dir or INSPECTOR_DATA_DIR to DeerFlow's data folder")

@dataclass
class MediaReport:
    thread_id: str
    checkpoint_id: str
    step: int | None
    user_data: UserData | None
    images: list[ImageCheck] = field(default_factory=list)
    spans: list[ImageSpan] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
    uploads: list[LocatedFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    viewed_images: dict[str, Any] = field(default_factory=dict)

    def as_dict(self, images: bool = True, artifacts: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "thread_id": self.thread_id, "checkpoint_id": self.checkpoint_id, "step": self.step,
            "user_data": None if self.user_data is None else self.user_data.as_dict(),
            "problems": list(self.problems),
        }
        if images:
            data["images"] = [c.as_dict() for c in self.images]
            data["history"] = [s.as_dict() for s in self.spans]
        if artifacts:
            data["artifacts"] = [a.as_dict() for a in self.artifacts]
            data["uploads"] = [u.as_dict() for u in self.uploads]
        return data


MAX_BRANCH_DEPTH = 4


def thread_user_data(state: CheckpointState, data_dir: str | Path | None = None,
                     store: Any = None, rows: list[CheckpointRow] | None = None) -> tuple[UserData | None, list[str]]:
    """The thread's folders for ``state`` (see ``thread_folders``)."""
    return thread_folders(state.thread_id, state.values.get("thread_data"), state.metadata, data_dir, store, rows)


def thread_folders(thread_id: str, thread_data: Any, metadata: dict[str, Any], data_dir: str | Path | None = None,
                   store: Any = None, rows: list[CheckpointRow] | None = None) -> tuple[UserData | None, list[str]]:
    """A thread's folders (``thread_data``, then --data-dir, then next to a SQLite store), with those of the
    threads it was branched from (from its checkpoints' branch metadata); for a support bundle, only the
    bundle's own copies. Returns (folders or None, problems)."""
    bundle_root = getattr(store, "user_data_root", None)
    if bundle_root is not None:
        try:
            found = in_bundle(thread_id, bundle_root, getattr(store, "recorded_folders", {}))
        except PathRefused as exc:
            return None, [f"refused: {exc}"]
        if found is None:
            return None, ["this bundle holds no user-data files for the thread"]
        return found, folder_refusals(found) + [p for parent in found.parents for p in folder_refusals(parent)]
    user_id = metadata.get("user_id") if isinstance(metadata.get("user_id"), str) else None
    bases = data_bases(data_dir, store)
    try:
        found = locate(thread_id, thread_data, bases, user_id)
    except PathRefused as exc:
        return None, [f"refused: {exc}"]
    origin = branch_of(thread_id, metadata)
    if found is None:  # a branch's record from what was read already: no history is read to find none
        return _branch_without_folder(thread_id, origin or (branch_origin(rows) if rows is not None else None),
                                      bases, user_id, store)
    refusals = folder_refusals(found)
    if origin is None and (rows is not None or store is not None):
        origin = branch_origin(rows if rows is not None else _timeline(store, thread_id))
    if origin is None:
        return found, refusals
    parents, problems = _branch_parents(origin.parent_thread_id, [found.base, *bases], user_id, store, {thread_id})
    found = replace(found, parents=tuple(parents))
    return found, refusals + problems + [p for parent in parents for p in folder_refusals(parent)]


def _branch_without_folder(thread_id: str, origin: Any, bases: list[Path], user_id: str | None,
                           store: Any) -> tuple[UserData | None, list[str]]:
    """A branch DeerFlow made no folder for (taken from an earlier turn): its files are those of the thread it
    was branched from, read from that folder as its images are; without a branch record, not found."""
    if origin is None:
        return None, [FOLDER_NOT_FOUND]
    parents, problems = _branch_parents(origin.parent_thread_id, bases, user_id, store, {thread_id})
    if not parents:
        return None, [FOLDER_NOT_FOUND, *problems]
    nearest = parents[0]
    found = replace(nearest, origin=f"{nearest.origin}: the folder of {nearest.thread_id}, which this branch was "
                                    "taken from (the branch has no folder of its own)", parents=tuple(parents[1:]))
    return found, problems + [p for holder in parents for p in folder_refusals(holder)]


def folder_refusals(found: UserData) -> list[str]:
    """One problem per distinct reason a folder of ``found`` is refused."""
    return [f"refused: {why}" for why in dict.fromkeys(why for _, why in found.refused)]


def _timeline(store: Any, thread_id: str) -> list[CheckpointRow]:
    try:
        return store.timeline(thread_id)
    except (NotFound, StoreError):
        return []


def _branch_parents(parent_id: str, bases: list[Path], user_id: str | None, store: Any,
                    seen: set[str]) -> tuple[list[UserData], list[str]]:
    """The folders of the thread a branch came from, and of the thread that one came from, and so on."""
    parents: list[UserData] = []
    problems: list[str] = []
    while parent_id and parent_id not in seen and len(parents) < MAX_BRANCH_DEPTH:
        seen.add(parent_id)
        try:
            found = locate(parent_id, None, list(dict.fromkeys(bases)), user_id)
        except PathRefused as exc:
            problems.append(f"the parent thread's folder is refused: {exc}")
            break
        if found is None:
            problems.append(f"the folder of {parent_id}, which this thread was branched from, "
                            "was not found on this machine")
            break
        parents.append(found)
        origin = branch_origin(_timeline(store, parent_id)) if store is not None else None
        parent_id = origin.parent_thread_id if origin else ""
    return parents, problems


@reads_thread
def media_report(store: Store, thread_id: str, checkpoint_id: str | None = None, data_dir: str | Path | None = None,
                 images: bool = True, artifacts: bool = True, ns: str = "",
                 cache: AnalysisCache | None = None) -> MediaReport:
    """Images (checked, and their spans along the lineage) and artifacts (located, flagged, first step) at a
    checkpoint; ``cache`` keeps the image facts of each checkpoint read (None: no cache)."""
    return report_for_state(store, store.state(thread_id, checkpoint_id, ns), data_dir, images, artifacts,
                            cache=cache)


def report_for_state(store: Store, state: CheckpointState, data_dir: str | Path | None = None,
                     images: bool = True, artifacts: bool = True, rows: list[CheckpointRow] | None = None,
                     history: bool = True, cache: AnalysisCache | None = None) -> MediaReport:
    """``media_report`` for a state already decoded; ``history=False`` skips the walk along the lineage."""
    thread_id, ns = state.thread_id, state.checkpoint_ns
    step = state.metadata.get("step") if isinstance(state.metadata.get("step"), int) else None
    if not knows(USER_DATA):  # files named by a state are an app's knowledge (DeerFlow's user-data folders)
        return MediaReport(thread_id, state.checkpoint_id, step, None,
                           problems=[f"read with the {in_force().title} profile, which names no files in a thread's state: "
                                     "there are none to look for"])
    if history and rows is None:
        rows = store.timeline(thread_id)
    user_data, problems = thread_user_data(state, data_dir, store, rows)
    refs = in_force().uploads(state.values) if artifacts and in_force().uploads else []
    named = (images and state.values.get("viewed_images")) or (artifacts and state.values.get("artifacts")) or refs
    if not named:  # nothing to look for: a folder not found is no problem
        problems = [p for p in problems if p != FOLDER_NOT_FOUND]
    report = MediaReport(thread_id, state.checkpoint_id, step, user_data, problems=problems)
    if images:
        viewed = state.values.get("viewed_images")
        report.viewed_images = viewed if isinstance(viewed, dict) else {}
        report.images = check_viewed_images(viewed, user_data)
        if history:
            report.spans = cached_image_spans(store, thread_id, state.checkpoint_id, ns, rows, cache)
    if artifacts:
        first = None
        if history:
            first = first_appearances(field_history(store, thread_id, "artifacts", state.checkpoint_id, ns, rows))
        report.artifacts = list_artifacts(state.values.get("artifacts"), user_data, first)
        report.uploads = locate_refs(refs, user_data, "uploads")
    return report


def span_entries(store: Store, thread_id: str, ns: str, spans: list[ImageSpan],
                 label: Callable[[str], str] | None = None) -> list[Any]:
    """Each span's entry as stored where it appeared (for thumbnails), decoding each such checkpoint's
    ``viewed_images`` once; None where it cannot be read. ``label``: how the spans' paths were masked."""
    wanted = {span.appeared_checkpoint for span in spans}
    held: dict[str, dict[str, Any]] = {}
    if wanted:
        for state in store.iter_states(thread_id, ns, checkpoint_ids=wanted, channels=[FIELD]):
            value = state.values.get(FIELD)
            if isinstance(value, dict):
                held[state.checkpoint_id] = {(label or str)(str(path)): entry for path, entry in value.items()}
    return [held.get(span.appeared_checkpoint, {}).get(span.path) for span in spans]


def image_rows(checks: list[ImageCheck]) -> list[dict[str, Any]]:
    """One table row per checked image."""
    return [{"path": c.key, "stored as": "inline base64" if c.shape == "base64" else c.shape,
             "format": c.format, "pixels": f"{c.width}x{c.height}" if c.width else None, "bytes": c.byte_size,
             "problems": "; ".join(c.problems) or "ok"} for c in checks]


def span_rows(spans: list[ImageSpan]) -> list[dict[str, Any]]:
    """One table row per image span of the thread's history."""
    return [{"path": s.path, "appeared at step": s.appeared_step, "ended at step": s.ended_step,
             "ended by": s.ended_by or "still held", "checkpoints carrying it": s.checkpoints,
             "base64 chars": s.stored_chars or None} for s in spans]


def upload_rows(found: list[LocatedFile]) -> list[dict[str, Any]]:
    """One table row per uploaded file the state names."""
    return [{"file": u.name, "bytes": u.size, "on disk": u.exists, "problems": "; ".join(u.problems) or "ok",
             "path": u.path} for u in found]


def artifact_rows(found: list[Artifact]) -> list[dict[str, Any]]:
    """One table row per artifact."""
    return [{"path": a.path, "first step": a.first_step, "bytes": a.size, "on disk": a.exists,
             "problems": "; ".join(a.problems) or "ok"} for a in found]
