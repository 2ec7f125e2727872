"""Byte sizes for people: decimal units, as the size thresholds are set (1 MB = 1,000,000 bytes)."""

from __future__ import annotations


def human_bytes(size: int | None) -> str:
    """``512 B``, ``2.0 KB``, ``1.00 MB``; ``?`` when unknown."""
    if size is None:
        return "?"
    if size < 0:
        return "-" + human_bytes(-size)
    if size < 1000:
        return f"{size} B"
    if size < 1_000_000:
        return f"{size / 1000:.1f} KB"
    if size < 1_000_000_000:
        return f"{size / 1_000_000:.2f} MB"
    return f"{size / 1_000_000_000:.2f} GB"
