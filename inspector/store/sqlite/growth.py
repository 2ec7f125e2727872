"""Growth over time of a SQLite store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

One statement: every checkpoint row and write is dated by comparing its id, as text, with each bucket's
first id (uuid6 ids sort by time as text; ``id_range_bucket``), its stored length taken by ``length()``
(which reads no blob content), and the dated rows aggregated in SQLite (``growth_sql``). The dated rows
are materialized first, so the grouping sorts small rows, never a blob. Every channel value is inside the
checkpoint's one msgpack blob, so per channel only the writes' bytes are split by channel; a checkpoint
row's bytes are counted under ``CHECKPOINT_KEY``.
"""

from __future__ import annotations

import sqlite3
import time

from ..growth_rows import (
    CHECKPOINT_KEY,
    UUID6_HEAD_GLOB,
    GrowthRows,
    bucket_of,
    check_growth_args,
    growth_result,
    growth_sql,
    id_range_bucket,
)
from .queries import OWN_BYTES

SQLITE_CHANNEL_BASIS = (
    "SQLite keeps every channel value inside one msgpack blob per checkpoint, so its bytes are not split by "
    f"channel without reading it: they are counted under {CHECKPOINT_KEY!r}; per channel are the writes' "
    "bytes (what each node wrote, stored against the checkpoint its step started from)."
)
_BUCKET_FUNCTION = "inspector_growth_bucket"  # bucket_of(id, width, since) for ids outside the statement's range


def _dated(width: int, since: int | None) -> str:
    since_sql = "NULL" if since is None else str(int(since))
    fallback = f"{_BUCKET_FUNCTION}(checkpoint_id, {width}, {since_sql})"
    bucket = (f"CASE WHEN checkpoint_id GLOB '{UUID6_HEAD_GLOB}*' THEN "
              f"{id_range_bucket('checkpoint_id', width, since, time.time(), fallback)} END")
    return (f"SELECT {bucket} AS b, thread_id AS t, '{CHECKPOINT_KEY}' AS c, 'checkpoint' AS p, 1 AS k, "
            f"{OWN_BYTES} AS n FROM checkpoints "
            f"UNION ALL SELECT {bucket}, thread_id, channel, 'writes', 0, coalesce(length(value), 0) FROM writes")


class SqliteGrowth:
    """``growth_rows`` (a mixin of ``SqliteStore``: needs ``_conn`` and ``_db``)."""

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None, by: str | None = None,
                    top: int = 0) -> GrowthRows:
        check_growth_args(bucket_seconds, by, top)
        conn = self._conn
        conn.create_function(_BUCKET_FUNCTION, 3, bucket_of, deterministic=True)
        try:
            found = conn.execute(growth_sql(_dated(bucket_seconds, since), by, top)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None
        return growth_result(found, bucket_seconds, since, SQLITE_CHANNEL_BASIS, by, top)

    def growth_fingerprint(self) -> tuple:
        """What growth depends on, summed: each table's rows, stored lengths and id range (see ``growth_rows``)."""
        return tuple(self._query(
            f"""SELECT (SELECT json_array(count(*), coalesce(sum({OWN_BYTES}), 0), min(checkpoint_id),
                                          max(checkpoint_id)) FROM checkpoints),
                       (SELECT json_array(count(*), coalesce(sum(length(value)), 0), min(checkpoint_id),
                                          max(checkpoint_id)) FROM writes)""")[0])
