"""Growth over time of a SQLite store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

SQLite computes each row's stored length (``length()`` reads no blob content) and hands back the id's
first 18 characters, which carry its time; they are added into buckets as they stream, in batches.
(Grouping in SQLite itself would copy every blob into its sorter, and decoding hex in SQL costs more
than the whole read.) The window is an id range: uuid6 ids sort by time as text. Every channel value
is inside the checkpoint's one msgpack blob, so per channel only the writes' bytes are split by
channel; a checkpoint row's bytes are counted under ``CHECKPOINT_KEY``.
"""

from __future__ import annotations

import sqlite3

from ..growth_rows import (
    CHECKPOINT_KEY,
    UUID6_HEAD_GLOB,
    BucketSums,
    GrowthRows,
    check_growth_args,
    id_floor,
)
from .queries import OWN_BYTES

BATCH = 5000
# A row is in the window when its id is at or after the window's first id, or when it is no uuid6 at all
# (then it is counted as not dated).
_IN_WINDOW = f"(checkpoint_id >= ? OR NOT (length(checkpoint_id) = 36 AND checkpoint_id GLOB '{UUID6_HEAD_GLOB}*'))"
SQLITE_CHANNEL_BASIS = (
    "SQLite keeps every channel value inside one msgpack blob per checkpoint, so its bytes are not split by "
    f"channel without reading it: they are counted under {CHECKPOINT_KEY!r}; per channel are the writes' "
    "bytes (what each node wrote, stored against the checkpoint its step started from)."
)


class SqliteGrowth:
    """``growth_rows`` (a mixin of ``SqliteStore``: needs ``_conn`` and ``_db``)."""

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None) -> GrowthRows:
        check_growth_args(bucket_seconds)
        floor = id_floor(since) if since is not None else ""
        parts = (
            ("checkpoint", f"SELECT substr(checkpoint_id, 1, 18), thread_id, '{CHECKPOINT_KEY}', 1, {OWN_BYTES} "
                           f"FROM checkpoints WHERE {_IN_WINDOW}"),
            ("writes", "SELECT substr(checkpoint_id, 1, 18), thread_id, channel, 0, coalesce(length(value), 0) "
                       f"FROM writes WHERE {_IN_WINDOW}"),
        )
        rows, untimed_checkpoints, untimed_bytes = [], 0, 0
        for part, sql in parts:
            sums = BucketSums(part, bucket_seconds)
            try:
                cursor = self._conn.execute(sql, (floor,))
                while batch := cursor.fetchmany(BATCH):
                    sums.add_rows(batch)
            except sqlite3.DatabaseError as exc:
                raise self._db.read_error(exc) from None
            rows += sums.rows()
            untimed_checkpoints += sums.untimed_checkpoints
            untimed_bytes += sums.untimed_bytes
        return GrowthRows(bucket_seconds, since, rows, untimed_checkpoints, untimed_bytes, SQLITE_CHANNEL_BASIS)
