"""What the stores return for growth over time: stored bytes and checkpoints per time bucket, dated by
the uuid6 checkpoint ids, from lengths alone (no blob content is read).

A row is ``(bucket start, thread id, channel, part, checkpoints, bytes)``: ``channel`` is
``CHECKPOINT_KEY`` for a checkpoint row's own bytes; ``part`` says which rows the bytes come from: ``checkpoint`` (the
checkpoint row itself: on SQLite every channel value is inside it), ``blobs`` (PostgreSQL's
``checkpoint_blobs``, dated by the first checkpoint whose ``channel_versions`` names the version) and
``writes`` (dated by the checkpoint they are stored against). Rows whose id is not a uuid6 (or a blob no
checkpoint names) carry no time: they are counted in ``untimed_*``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, NamedTuple

GROWTH_BY = ("store", "channel", "thread")
PARTS = ("checkpoint", "blobs", "writes")
CHECKPOINT_KEY = "(checkpoint row)"  # the key, by channel, of a checkpoint row's own bytes

# 100-ns intervals between the Gregorian epoch of uuid time (1582-10-15) and 1970-01-01
UUID_EPOCH_OFFSET = 0x01B21DD213814000
TICKS_PER_SECOND = 10_000_000


class GrowthRow(NamedTuple):
    bucket: int  # the bucket's start, seconds since 1970-01-01 UTC
    thread_id: str
    channel: str
    part: str
    checkpoints: int
    bytes: int


@dataclass(frozen=True)
class GrowthRows:
    """Everything ``Store.growth_rows`` read: the dated rows and what could not be dated."""

    bucket_seconds: int
    since: int | None
    rows: list[GrowthRow] = field(default_factory=list)
    untimed_checkpoints: int = 0
    untimed_bytes: int = 0
    channel_basis: str = ""


def check_growth_args(bucket_seconds: int) -> None:
    from .model import StoreError

    if not isinstance(bucket_seconds, int) or bucket_seconds <= 0:
        raise StoreError(f"a growth bucket must be a positive number of seconds, got {bucket_seconds!r}")


def since_ticks(since: int | None) -> int:
    """A uuid6 timestamp (100-ns ticks since 1582) for ``since`` seconds since 1970 (None: the beginning)."""
    return 0 if since is None else since * TICKS_PER_SECOND + UUID_EPOCH_OFFSET


UUID6_HEAD_GLOB = "[0-9a-f]" * 8 + "-" + "[0-9a-f]" * 4 + "-6" + "[0-9a-f]" * 3  # an id's first 18 characters


def id_floor(since: int | None) -> str:
    """The smallest uuid6 text dated at or after ``since``: uuid6 ids sort by time as text."""
    digits = f"{since_ticks(since):015x}"
    return f"{digits[:8]}-{digits[8:12]}-6{digits[12:15]}"


def tick_of_head(head: str) -> int | None:
    """The uuid6 timestamp of an id's first 18 characters, None for another id."""
    if len(head) != 18 or head[8] != "-" or head[13:15] != "-6":
        return None
    digits = head[:8] + head[9:13] + head[15:18]
    if not _HEX_DIGITS.issuperset(digits):  # int() would also take "_", "+" or spaces
        return None
    return int(digits, 16)


_HEX_DIGITS = frozenset("0123456789abcdef")


class BucketSums:
    """Adds ``(id head, thread, channel, checkpoints, bytes)`` rows into buckets of ``bucket_seconds``."""

    def __init__(self, part: str, bucket_seconds: int) -> None:
        self.part, self.width = part, bucket_seconds
        self.sums: dict[tuple[int, str, str], list[int]] = {}
        self.untimed_checkpoints = self.untimed_bytes = 0

    def add(self, head: str | None, thread_id: str, channel: str, checkpoints: int, size: int) -> None:
        self.add_rows([(head, thread_id, channel, checkpoints, size)])

    def add_rows(self, rows: Iterable[tuple]) -> None:
        """``(id head, thread, channel, checkpoints, bytes)`` rows (one loop: this runs once per stored row)."""
        sums, width, offset = self.sums, self.width * TICKS_PER_SECOND, UUID_EPOCH_OFFSET
        for head, thread_id, channel, checkpoints, size in rows:
            tick = tick_of_head(head) if isinstance(head, str) else None
            if tick is None:
                self.untimed_checkpoints += checkpoints
                self.untimed_bytes += size
                continue
            key = ((tick - offset) // width * self.width, thread_id, channel)
            entry = sums.get(key)
            if entry is None:
                sums[key] = [checkpoints, size]
            else:
                entry[0] += checkpoints
                entry[1] += size

    def rows(self) -> list[GrowthRow]:
        return [GrowthRow(bucket, tid, channel, self.part, c, n) for (bucket, tid, channel), (c, n) in self.sums.items()]
