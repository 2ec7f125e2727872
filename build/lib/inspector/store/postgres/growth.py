"""Growth over time of a PostgreSQL store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

Checkpoint rows and writes are dated by their checkpoint id; a ``checkpoint_blobs`` row (one channel
version, shared by every checkpoint that kept it) by the first checkpoint whose ``channel_versions``
names that version. Lengths only: ``pg_column_size`` and ``octet_length`` read no blob content.
"""

from __future__ import annotations

from ..growth_rows import (
    CHECKPOINT_KEY,
    TICKS_PER_SECOND,
    UUID_EPOCH_OFFSET,
    GrowthRow,
    GrowthRows,
    check_growth_args,
    since_ticks,
)


def ticks_of(column: str) -> str:
    """SQL: the uuid6 timestamp (100-ns ticks since 1582) of the id in ``column``, NULL for another id."""
    return (f"CASE WHEN {column} ~ '^[0-9a-f]{{8}}-[0-9a-f]{{4}}-6[0-9a-f]{{3}}-' AND length({column}) = 36 "
            f"THEN ('x' || lpad(substr({column}, 1, 8) || substr({column}, 10, 4) || substr({column}, 16, 3), 16, '0'))"
            f"::bit(64)::bigint END")


# Each channel version's first checkpoint: the checkpoint that stored the blob row.
FIRST_CHECKPOINT_OF_VERSION = """
    SELECT c.thread_id, c.checkpoint_ns, v.key AS channel, v.value #>> '{}' AS version, min(c.checkpoint_id) AS cid
    FROM checkpoints c CROSS JOIN LATERAL jsonb_each(
        CASE WHEN jsonb_typeof(c.checkpoint->'channel_versions') = 'object'
             THEN c.checkpoint->'channel_versions' ELSE '{}'::jsonb END) v
    GROUP BY 1, 2, 3, 4
"""
_BUCKET = f"(t - {UUID_EPOCH_OFFSET}) / {TICKS_PER_SECOND} / %s * %s"
PG_CHANNEL_BASIS = (
    "PostgreSQL stores each channel's value in checkpoint_blobs once per version: per channel are those blob "
    "rows (dated by the first checkpoint naming the version) and the writes' bytes; primitive values stay in "
    f"the checkpoint row, counted under {CHECKPOINT_KEY!r}."
)


class PgGrowth:
    """``growth_rows`` (a mixin of ``PostgresStore``: needs ``_query``)."""

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None) -> GrowthRows:
        check_growth_args(bucket_seconds)
        start = since_ticks(since)
        parts = (
            ("checkpoint", f"""SELECT {ticks_of('checkpoint_id')} AS t, thread_id, '{CHECKPOINT_KEY}' AS channel, 1 AS c,
                                      pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0) AS n
                               FROM checkpoints"""),
            ("blobs", f"""SELECT {ticks_of('f.cid')} AS t, b.thread_id, b.channel, 0 AS c, coalesce(octet_length(b.blob), 0) AS n
                          FROM checkpoint_blobs b LEFT JOIN ({FIRST_CHECKPOINT_OF_VERSION}) f
                            ON f.thread_id = b.thread_id AND f.checkpoint_ns = b.checkpoint_ns
                           AND f.channel = b.channel AND f.version = b.version"""),
            ("writes", f"""SELECT {ticks_of('checkpoint_id')} AS t, thread_id, channel, 0 AS c,
                                  coalesce(octet_length(blob), 0) AS n FROM checkpoint_writes"""),
        )
        rows: list[GrowthRow] = []
        untimed_checkpoints = untimed_bytes = 0
        for part, inner in parts:
            found = self._query(
                f"""SELECT CASE WHEN t IS NULL THEN NULL ELSE {_BUCKET} END AS bucket, thread_id, channel, sum(c), sum(n)
                    FROM ({inner}) parts WHERE t IS NULL OR t >= %s GROUP BY 1, 2, 3""",
                [bucket_seconds, bucket_seconds, start])
            for bucket, thread_id, channel, count, total in found:
                if bucket is None:
                    untimed_checkpoints += int(count or 0)
                    untimed_bytes += int(total or 0)
                else:
                    rows.append(GrowthRow(int(bucket), thread_id, channel, part, int(count or 0), int(total or 0)))
        return GrowthRows(bucket_seconds, since, rows, untimed_checkpoints, untimed_bytes, PG_CHANNEL_BASIS)
