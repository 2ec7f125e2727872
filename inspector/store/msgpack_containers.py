"""A msgpack list or map read by its header alone: its kind, item count and header length (``container_header``),
for walking stored values item by item without decoding them (``measure``, ``carried``)."""

from __future__ import annotations

_ARRAY_TYPES = frozenset({0xDC, 0xDD})


def container_header(view: memoryview, start: int) -> tuple[str, int, int] | None:
    """(kind, item count, header length) of the list or map stored at ``start``; None for other values."""
    first = view[start]
    if 0x90 <= first <= 0x9F:
        return "array", first & 0x0F, 1
    if 0x80 <= first <= 0x8F:
        return "map", first & 0x0F, 1
    width = {0xDC: 2, 0xDD: 4, 0xDE: 2, 0xDF: 4}.get(first)
    if width is None:
        return None
    count = int.from_bytes(view[start + 1 : start + 1 + width], "big")
    return ("array" if first in _ARRAY_TYPES else "map"), count, 1 + width
