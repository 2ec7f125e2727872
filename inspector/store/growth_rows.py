"""What the stores return for growth over time: stored bytes and checkpoints per time bucket, dated by
the uuid6 checkpoint ids, from lengths alone (no blob content is read).

A row is ``(bucket start, key, part, checkpoints, bytes)``: ``key`` is ``""`` for the whole store, a
channel or a thread id (``by``); ``part`` says which rows the bytes come from: ``checkpoint`` (the
checkpoint row itself: on SQLite every channel value is inside it), ``blobs`` (PostgreSQL's
``checkpoint_blobs``, dated by the first checkpoint whose ``channel_versions`` names the version) and
``writes`` (dated by the checkpoint they are stored against). Rows whose id is not a uuid6 (or a blob no
checkpoint names) carry no time: they are counted in ``untimed_*``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

GROWTH_BY = ("store", "channel", "thread")
PARTS = ("checkpoint", "blobs", "writes")
CHECKPOINT_KEY = "(checkpoint row)"  # the key, by channel, of a checkpoint row's own bytes

# 100-ns intervals between the Gregorian epoch of uuid time (1582-10-15) and 1970-01-01
UUID_EPOCH_OFFSET = 0x01B21DD213814000
TICKS_PER_SECOND = 10_000_000


@dataclass(frozen=True)
class GrowthRow:
    bucket: int  # the bucket's start, seconds since 1970-01-01 UTC
    key: str
    part: str
    checkpoints: int
    bytes: int


@dataclass(frozen=True)
class GrowthRows:
    """Everything ``Store.growth_rows`` read: the dated rows and what could not be dated."""

    by: str
    bucket_seconds: int
    since: int | None
    rows: list[GrowthRow] = field(default_factory=list)
    untimed_checkpoints: int = 0
    untimed_bytes: int = 0
    channel_basis: str = ""


def check_growth_args(by: str, bucket_seconds: int) -> None:
    from .model import StoreError

    if by not in GROWTH_BY:
        raise StoreError(f"unknown growth grouping {by!r}: use one of {', '.join(GROWTH_BY)}")
    if not isinstance(bucket_seconds, int) or bucket_seconds <= 0:
        raise StoreError(f"a growth bucket must be a positive number of seconds, got {bucket_seconds!r}")


def since_ticks(since: int | None) -> int:
    """A uuid6 timestamp (100-ns ticks since 1582) for ``since`` seconds since 1970 (None: the beginning)."""
    return 0 if since is None else since * TICKS_PER_SECOND + UUID_EPOCH_OFFSET
