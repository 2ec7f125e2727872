"""What a uuid6 checkpoint id says of when it was written: its timestamp and the time bucket it falls in.

The SQLite connection registers ``bucket_of`` as a SQL function, so statements date rows by their ids;
growth over time (``store_ops.growth_rows``) builds on the same dating.
"""

from __future__ import annotations

from typing import Any

# 100-ns intervals between the Gregorian epoch of uuid time (1582-10-15) and 1970-01-01
UUID_EPOCH_OFFSET = 0x01B21DD213814000
TICKS_PER_SECOND = 10_000_000


def since_ticks(since: int | None) -> int:
    """A uuid6 timestamp (100-ns ticks since 1582) for ``since`` seconds since 1970 (None: the beginning)."""
    return 0 if since is None else int(since) * TICKS_PER_SECOND + UUID_EPOCH_OFFSET


def tick_of_head(head: str) -> int | None:
    """The uuid6 timestamp of an id's first 18 characters, None for another id."""
    if len(head) != 18 or head[8] != "-" or head[13:15] != "-6":
        return None
    digits = head[:8] + head[9:13] + head[15:18]
    if not _HEX_DIGITS.issuperset(digits):  # int() would also take "_", "+" or spaces
        return None
    return int(digits, 16)


_HEX_DIGITS = frozenset("0123456789abcdef")
BEFORE = -(1 << 62)  # the bucket of a row dated before the window


def bucket_of(checkpoint_id: Any, width: int, since: int | None) -> int | None:
    """The start of ``checkpoint_id``'s bucket (seconds), ``BEFORE`` when dated before ``since``, None when
    the id carries no time (not a uuid6)."""
    tick = tick_of_head(checkpoint_id[:18]) if isinstance(checkpoint_id, str) else None
    if tick is None:
        return None
    if since is not None and tick < since_ticks(since):
        return BEFORE
    return (tick - UUID_EPOCH_OFFSET) // (width * TICKS_PER_SECOND) * width
