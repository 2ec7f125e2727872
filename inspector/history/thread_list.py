"""The thread list's rows as plain records (what the Threads page and `threads` JSON show)."""

from __future__ import annotations

from typing import Any

from ..store import ThreadSummary


def thread_records(rows: list[ThreadSummary]) -> list[dict[str, Any]]:
    return [
        {
            "thread": t.thread_id,
            "title": t.title or "",
            "checkpoints": t.checkpoints,
            "namespaces": t.namespaces,
            "last update": t.updated_at,
            "stored bytes": t.stored_bytes,
        }
        for t in rows
    ]
