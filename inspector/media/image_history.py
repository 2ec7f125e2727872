"""The thread's images over time: when each ``viewed_images`` entry appeared, how long it was carried, how it ended."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ..history.field_history import FieldPoint


@dataclass
class ImageSpan:
    """One entry's life: the same path with the same content, over consecutive checkpoints."""

    path: str
    appeared_step: int | None
    appeared_checkpoint: str
    last_checkpoint: str
    checkpoints: int = 1
    ended_step: int | None = None
    ended_by: str | None = None  # "cleared" ({} rule), "replaced" (new content), "removed"; None: still held
    stored_chars: int = 0
    entry: Any = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": self.path, "appeared_step": self.appeared_step, "appeared_checkpoint": self.appeared_checkpoint,
            "last_checkpoint": self.last_checkpoint, "checkpoints": self.checkpoints,
            "ended_step": self.ended_step, "ended_by": self.ended_by, "stored_chars": self.stored_chars,
        }


LIFECYCLE_NOTE = (
    "On DeerFlow's main branch an entry is a file reference ({mime_type, size, actual_path}) kept for the "
    "thread's life: nothing clears it. The image bytes are read from disk for each model call and reach the "
    "model through a transient view-image-context message, removed after the call. A {} write still clears "
    "viewed_images (merge_viewed_images keeps that rule); entries holding base64 are the older shape."
)


def lifecycle_note(spans: list[ImageSpan]) -> str | None:
    """The lifecycle note when the thread holds file-reference entries still held (what DeerFlow's main branch does)."""
    held = [s for s in spans if s.ended_by is None and isinstance(s.entry, dict) and "actual_path" in s.entry]
    return LIFECYCLE_NOTE if held else None


def fingerprint(entry: Any) -> str:
    """Identity of an entry's content; base64 strings are hashed rather than compared."""
    try:
        text = json.dumps(entry, sort_keys=True, default=str)
    except (TypeError, ValueError):
        text = repr(entry)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _stored_chars(entry: Any) -> int:
    raw = entry.get("base64") if isinstance(entry, dict) else None
    return len(raw) if isinstance(raw, str) else 0


def _end(span: ImageSpan, step: int | None, how: str) -> None:
    span.ended_step, span.ended_by = step, how


def image_spans(points: list[FieldPoint]) -> list[ImageSpan]:
    """Spans of every image along ``viewed_images``' history (``field_history(..., "viewed_images")``)."""
    spans: list[ImageSpan] = []
    open_spans: dict[str, tuple[str, ImageSpan]] = {}
    for point in points:
        value = point.value if isinstance(point.value, dict) else {}
        step, cid = point.row.step, point.row.checkpoint_id
        for path in list(open_spans):
            if path not in value:
                _end(open_spans.pop(path)[1], step, "cleared" if not value else "removed")
        for path, entry in value.items():
            digest = fingerprint(entry) if point.decoded or path not in open_spans else open_spans[path][0]
            current = open_spans.get(path)
            if current is not None and current[0] == digest:
                current[1].checkpoints += 1
                current[1].last_checkpoint = cid
                continue
            if current is not None:
                _end(current[1], step, "replaced")
            span = ImageSpan(str(path), step, cid, cid, stored_chars=_stored_chars(entry), entry=entry)
            spans.append(span)
            open_spans[path] = (digest, span)
    return spans
