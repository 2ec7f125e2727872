"""The images and artifacts of one checkpoint, with their history: one report for the page and the CLI."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .artifacts import Artifact, first_appearances, list_artifacts
from .field_history import field_history
from .image_history import ImageSpan, image_spans
from .images import ImageCheck, check_viewed_images
from .store import CheckpointState, Store
from .user_data import PathRefused, UserData, data_bases, locate


@dataclass
class MediaReport:
    thread_id: str
    checkpoint_id: str
    step: int | None
    user_data: UserData | None
    images: list[ImageCheck] = field(default_factory=list)
    spans: list[ImageSpan] = field(default_factory=list)
    artifacts: list[Artifact] = field(default_factory=list)
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
        return data


def thread_user_data(state: CheckpointState, data_dir: str | Path | None = None,
                     store: Any = None) -> tuple[UserData | None, list[str]]:
    """The thread's folders for ``state`` (thread_data, then --data-dir, then next to a SQLite store)."""
    user_id = state.metadata.get("user_id") if isinstance(state.metadata.get("user_id"), str) else None
    try:
        found = locate(state.thread_id, state.values.get("thread_data"), data_bases(data_dir, store), user_id)
    except PathRefused as exc:
        return None, [f"refused: {exc}"]
    if found is None:
        return None, ["the thread's user-data folder was not found on this machine; "
                      "set --data-dir or INSPECTOR_DATA_DIR to DeerFlow's data folder"]
    return found, []


def media_report(store: Store, thread_id: str, checkpoint_id: str | None = None, data_dir: str | Path | None = None,
                 images: bool = True, artifacts: bool = True) -> MediaReport:
    """Images (checked, and their spans along the lineage) and artifacts (located, flagged, first step) at a checkpoint."""
    state = store.state(thread_id, checkpoint_id)
    rows = store.timeline(thread_id)
    user_data, problems = thread_user_data(state, data_dir, store)
    step = state.metadata.get("step") if isinstance(state.metadata.get("step"), int) else None
    report = MediaReport(thread_id, state.checkpoint_id, step, user_data, problems=problems)
    if images:
        viewed = state.values.get("viewed_images")
        report.viewed_images = viewed if isinstance(viewed, dict) else {}
        report.images = check_viewed_images(viewed, user_data)
        report.spans = image_spans(field_history(store, thread_id, "viewed_images", state.checkpoint_id, rows=rows))
    if artifacts:
        points = field_history(store, thread_id, "artifacts", state.checkpoint_id, rows=rows)
        report.artifacts = list_artifacts(state.values.get("artifacts"), user_data, first_appearances(points))
    return report
