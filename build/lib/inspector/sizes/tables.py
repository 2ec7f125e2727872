"""A thread's sizes as table rows: one per field, as the thread page's size panel and ``sizes THREAD``
show them (bytes as numbers; each caller formats them its own way)."""

from __future__ import annotations

from typing import Any

from .accounting import ThreadSizes

FIELD_BYTES = ("stored bytes", "unique bytes", "repeats", "newest")


def field_rows(sizes: ThreadSizes, internal: bool = True) -> list[dict[str, Any]]:
    """One row per field, largest stored first; ``internal=False`` leaves out LangGraph's own channels."""
    return [{"field": f.field, "stored bytes": f.stored_bytes, "unique bytes": f.unique_bytes,
             "repeats": f.repeated_bytes, "newest": f.newest_bytes, "internal": f.internal}
            for f in sizes.fields if internal or not f.internal]
