"""The thread's images over time: when each ``viewed_images`` entry appeared, how long it was carried, how it ended."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ....history.field_history import FieldPoint
from ....store import CheckpointRow


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
    file_reference: bool = False  # the entry names a file on disk (``actual_path``) instead of holding base64

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
    held = [s for s in spans if s.ended_by is None and s.file_reference]
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


# What the spans need of one viewed_images entry: (path, fingerprint of its content, base64 chars, file reference).
EntryFact = tuple[str, str, int, bool]


def entry_facts(value: Any) -> list[EntryFact]:
    """The facts of every entry of one checkpoint's ``viewed_images`` (not a mapping: no entry)."""
    if not isinstance(value, dict):
        return []
    return [(str(path), fingerprint(entry), _stored_chars(entry), isinstance(entry, dict) and "actual_path" in entry)
            for path, entry in value.items()]


def _end(span: ImageSpan, step: int | None, how: str) -> None:
    span.ended_step, span.ended_by = step, how


def spans_from_facts(points: Iterable[tuple[CheckpointRow, list[EntryFact] | None]]) -> list[ImageSpan]:
    """Spans along a lineage (oldest first) given each checkpoint's entry facts; ``None``: the parent's
    entries carried over unchanged (no write could change them)."""
    spans: list[ImageSpan] = []
    open_spans: dict[str, tuple[str, ImageSpan]] = {}
    for row, entries in points:
        step, cid = row.step, row.checkpoint_id
        if entries is None:
            for _, span in open_spans.values():
                span.checkpoints += 1
                span.last_checkpoint = cid
            continue
        paths = {path for path, *_ in entries}
        for path in list(open_spans):
            if path not in paths:
                _end(open_spans.pop(path)[1], step, "cleared" if not entries else "removed")
        for path, digest, stored_chars, file_reference in entries:
            current = open_spans.get(path)
            if current is not None and current[0] == digest:
                current[1].checkpoints += 1
                current[1].last_checkpoint = cid
                continue
            if current is not None:
                _end(current[1], step, "replaced")
            span = ImageSpan(path, step, cid, cid, stored_chars=stored_chars, file_reference=file_reference)
            spans.append(span)
            open_spans[path] = (digest, span)
    return spans


def image_spans(points: list[FieldPoint]) -> list[ImageSpan]:
    """Spans of every image along ``viewed_images``' history (``field_history(..., "viewed_images")``)."""
    return spans_from_facts((p.row, entry_facts(p.value) if p.decoded else None) for p in points)
