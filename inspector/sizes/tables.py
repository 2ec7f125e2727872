"""A thread's sizes as table rows: one per field, as the thread page's size panel and ``sizes THREAD``
show them (bytes as numbers; each caller formats them its own way)."""

from __future__ import annotations

from typing import Any

from .accounting import ThreadSizes

FIELD_BYTES = ("stored bytes", "unique bytes", "repeats", "written", "newest")


def field_rows(sizes: ThreadSizes, internal: bool = True) -> list[dict[str, Any]]:
    """One row per field, largest first (checkpoint copies and writes); ``internal=False`` leaves out
    LangGraph's own channels. ``stored bytes`` counts the copies checkpoints hold, ``written`` the
    writes stored for it (all a delta channel stores); ``newest`` is estimated for a delta channel."""
    return [{"field": f.field, "stored bytes": f.stored_bytes, "unique bytes": f.unique_bytes,
             "repeats": f.repeated_bytes, "written": f.written_bytes, "newest": f.newest_bytes,
             "internal": f.internal}
            for f in sizes.fields if internal or not f.internal]


def rebuilt_note(sizes: ThreadSizes) -> str | None:
    """A line naming the delta channels (values rebuilt from writes), or None when there are none."""
    names = [f.field for f in sizes.fields if f.rebuilt and not f.internal]
    if not names:
        return None
    return (f"{', '.join(names)}: delta channel(s), stored as writes rather than in each checkpoint; their newest "
            "size is the last stored value plus the writes since (an estimate)")
