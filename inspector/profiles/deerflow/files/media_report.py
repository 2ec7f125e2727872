"""DeerFlow's files of one checkpoint, with their history: its viewed images, artifacts and uploaded files, the
report ``profiles.media_report`` asks of DeerFlow's profile (``Profile.media``) for the page and the CLI.

Besides ``report_for_state`` the dashboard asks this module for what it draws the files with: each image span's
entry (``span_entries``), an entry's check, bytes and thumbnail (``viewed_images``), the lifecycle note
(``image_history``) and the user-data folders' rows (``paths``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ....cache import AnalysisCache
from ....history.field_history import field_history
from ....media.located import locate_refs
from ....store import CheckpointRow, CheckpointState, Store
from ....store.records import is_step
from ... import in_force
from ...media_report import MediaReport
from .artifacts import first_appearances, list_artifacts
from .image_facts import FIELD, cached_image_spans
from .image_history import ImageSpan, lifecycle_note
from .paths import AREA_KEYS, area_rows
from .user_data import thread_user_data
from .viewed_images import check_entry, check_viewed_images, checked_bytes, entry_thumbnail

# What the dashboard and the CLI ask of DeerFlow's files (``Profile.media``).
__all__ = ["AREA_KEYS", "area_rows", "check_entry", "checked_bytes", "entry_thumbnail", "lifecycle_note",
           "report_for_state", "span_entries"]


def report_for_state(store: Store, state: CheckpointState, data_dir: str | Path | None = None,
                     images: bool = True, artifacts: bool = True, rows: list[CheckpointRow] | None = None,
                     history: bool = True, cache: AnalysisCache | None = None) -> MediaReport:
    """Images (checked, and their spans along the lineage) and artifacts (located, flagged, first step) of a
    decoded state; ``history=False`` skips the walk along the lineage; ``cache`` keeps the image facts of each
    checkpoint read (None: no cache)."""
    thread_id, ns = state.thread_id, state.checkpoint_ns
    step = state.metadata.get("step") if is_step(state.metadata.get("step")) else None
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
