"""A thread's files at one checkpoint, asked of its profile: one report for the page and the CLI (``images``,
``artifacts``, ``uploads``), and its table rows.

What a state says of its files is the app's (``Profile.media``: DeerFlow's viewed images, artifacts, uploaded
files and user-data folders, ``profiles.deerflow.files.media_report``). A thread read with a profile that names
no files gets a report saying so (``looked`` False), and nothing is looked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache import AnalysisCache
from ..media.folders import UserData
from ..media.located import LocatedFile
from ..store import CheckpointRow, CheckpointState, Store
from ..store.records import checkpoint_not_found, is_step
from .active import in_force, knows, media, reads_thread, text
from .pieces import USER_DATA


@dataclass
class MediaReport:
    thread_id: str
    checkpoint_id: str
    step: int | None
    user_data: UserData | None
    images: list[Any] = field(default_factory=list)  # the app's image checks (``ImageCheck``)
    spans: list[Any] = field(default_factory=list)  # each image along the lineage (``ImageSpan``)
    artifacts: list[Any] = field(default_factory=list)  # ``Artifact``: located, flagged, first step
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


def _names_files() -> bool:
    """Whether the profile in force names files in a state (DeerFlow's user-data folders) and reports them."""
    return knows(USER_DATA) and media() is not None


@reads_thread
def media_report(store: Store, thread_id: str, checkpoint_id: str | None = None, data_dir: str | Path | None = None,
                 images: bool = True, artifacts: bool = True, ns: str = "",
                 cache: AnalysisCache | None = None) -> MediaReport:
    """Images (checked, and their spans along the lineage) and artifacts (located, flagged, first step) at a
    checkpoint; ``cache`` keeps the image facts of each checkpoint read (None: no cache). A thread read with
    a profile that names no files has nothing to look for: its checkpoint's row names the checkpoint, and no
    state is decoded (rebuilding an app's delta channels would build its schema)."""
    if not _names_files():
        found = store.checkpoint_rows(thread_id, [(ns, checkpoint_id)]) if checkpoint_id is not None \
            else store.history(thread_id, ns, limit=1)
        if not found:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return names_no_files(thread_id, found[0].checkpoint_id, found[0].step, ns)
    return report_for_state(store, store.state(thread_id, checkpoint_id, ns), data_dir, images, artifacts,
                            cache=cache)


def names_no_files(thread_id: str, checkpoint_id: str, step: int | None, ns: str) -> MediaReport:
    """The report of a thread whose profile names no files: it says so."""
    return MediaReport(thread_id, checkpoint_id, step, None, checkpoint_ns=ns, looked=False,
                       problems=[text("files.none").format(title=in_force().title)])


def report_for_state(store: Store, state: CheckpointState, data_dir: str | Path | None = None,
                     images: bool = True, artifacts: bool = True, rows: list[CheckpointRow] | None = None,
                     history: bool = True, cache: AnalysisCache | None = None) -> MediaReport:
    """``media_report`` for a state already decoded, by the profile in force; ``history=False`` skips the walk
    along the lineage."""
    if not _names_files():  # files named by a state are an app's knowledge (DeerFlow's user-data folders)
        step = state.metadata.get("step") if is_step(state.metadata.get("step")) else None
        return names_no_files(state.thread_id, state.checkpoint_id, step, state.checkpoint_ns)
    return media().report_for_state(store, state, data_dir, images, artifacts, rows, history, cache)


def lifecycle_note(spans: list[Any]) -> str | None:
    """What the profile in force says of how its images live along a thread (None: nothing to say)."""
    own = media()
    return own.lifecycle_note(spans) if own is not None else None


def image_rows(checks: list[Any]) -> list[dict[str, Any]]:
    """One table row per checked image."""
    return [{"path": c.key, "stored as": "inline base64" if c.shape == "base64" else c.shape,
             "format": c.format, "pixels": f"{c.width}x{c.height}" if c.width else None, "bytes": c.byte_size,
             "problems": "; ".join(c.problems) or "ok"} for c in checks]


def span_rows(spans: list[Any]) -> list[dict[str, Any]]:
    """One table row per image span of the thread's history."""
    return [{"path": s.path, "appeared at step": s.appeared_step, "ended at step": s.ended_step,
             "ended by": s.ended_by or "still held", "checkpoints carrying it": s.checkpoints,
             "base64 chars": s.stored_chars or None} for s in spans]


def upload_rows(found: list[LocatedFile]) -> list[dict[str, Any]]:
    """One table row per uploaded file the state names."""
    return [{"file": u.name, "bytes": u.size, "on disk": u.exists, "problems": "; ".join(u.problems) or "ok",
             "path": u.path} for u in found]


def artifact_rows(found: list[Any]) -> list[dict[str, Any]]:
    """One table row per artifact."""
    return [{"path": a.path, "first step": a.first_step, "bytes": a.size, "on disk": a.exists,
             "problems": "; ".join(a.problems) or "ok"} for a in found]
