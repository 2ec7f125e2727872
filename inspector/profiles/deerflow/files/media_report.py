"""DeerFlow's files of one checkpoint, with their history: its viewed images, artifacts and uploaded files, one
report for the page and the CLI (``images``, ``artifacts``). A thread read with a profile that names no files
gets a report saying so, and nothing is looked for."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ....analysis_cache import AnalysisCache
from ....history.field_history import field_history
from ....media.folders import UserData
from ....media.located import LocatedFile, locate_refs
from ....store import CheckpointRow, CheckpointState, Store
from ....store.records import checkpoint_not_found, is_step
from ... import in_force, knows, reads_thread, text
from ...pieces import USER_DATA
from .artifacts import Artifact, first_appearances, list_artifacts
from .image_facts import FIELD, cached_image_spans
from .image_history import ImageSpan
from .user_data import thread_user_data
from .viewed_images import ImageCheck, check_viewed_images


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
    checkpoint_ns: str = ""  # the checkpoint's namespace ("" the root graph)
    looked: bool = True  # False: the thread's profile names no files, so none was looked for (``problems`` says so)

    def as_dict(self, images: bool = True, artifacts: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "thread_id": self.thread_id, "checkpoint_ns": self.checkpoint_ns, "checkpoint_id": self.checkpoint_id,
            "step": self.step,
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


@reads_thread
def media_report(store: Store, thread_id: str, checkpoint_id: str | None = None, data_dir: str | Path | None = None,
                 images: bool = True, artifacts: bool = True, ns: str = "",
                 cache: AnalysisCache | None = None) -> MediaReport:
    """Images (checked, and their spans along the lineage) and artifacts (located, flagged, first step) at a
    checkpoint; ``cache`` keeps the image facts of each checkpoint read (None: no cache). A thread read with
    a profile that names no files has nothing to look for: its checkpoint's row names the checkpoint, and no
    state is decoded (rebuilding an app's delta channels would build its schema)."""
    if not knows(USER_DATA):
        found = store.checkpoint_rows(thread_id, [(ns, checkpoint_id)]) if checkpoint_id is not None \
            else store.history(thread_id, ns, limit=1)
        if not found:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return _names_no_files(thread_id, found[0].checkpoint_id, found[0].step, ns)
    return report_for_state(store, store.state(thread_id, checkpoint_id, ns), data_dir, images, artifacts,
                            cache=cache)


def _names_no_files(thread_id: str, checkpoint_id: str, step: int | None, ns: str) -> MediaReport:
    return MediaReport(thread_id, checkpoint_id, step, None, checkpoint_ns=ns, looked=False,
                       problems=[text("files.none").format(title=in_force().title)])


def report_for_state(store: Store, state: CheckpointState, data_dir: str | Path | None = None,
                     images: bool = True, artifacts: bool = True, rows: list[CheckpointRow] | None = None,
                     history: bool = True, cache: AnalysisCache | None = None) -> MediaReport:
    """``media_report`` for a state already decoded; ``history=False`` skips the walk along the lineage."""
    thread_id, ns = state.thread_id, state.checkpoint_ns
    step = state.metadata.get("step") if is_step(state.metadata.get("step")) else None
    if not knows(USER_DATA):  # files named by a state are an app's knowledge (DeerFlow's user-data folders)
        return _names_no_files(thread_id, state.checkpoint_id, step, ns)
    if history and rows is None:
        rows = store.timeline(thread_id)
    refs = in_force().uploads(state.values) if artifacts and in_force().uploads else []
    named = (images and state.values.get("viewed_images")) or (artifacts and state.values.get("artifacts")) or refs
    user_data, problems = thread_user_data(state, data_dir, store, rows, bool(named))
    report = MediaReport(thread_id, state.checkpoint_id, step, user_data, problems=problems, checkpoint_ns=ns)
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
