"""Growth over time of a PostgreSQL store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

Checkpoint rows and writes are dated by their checkpoint id; a ``checkpoint_blobs`` row (one channel
version, shared by every checkpoint that kept it) by the first checkpoint whose ``channel_versions``
names that version. Lengths only: ``pg_column_size`` and ``octet_length`` read no blob content.
"""

from __future__ import annotations

from ..growth_rows import CHECKPOINT_KEY, BucketSums, GrowthRows, check_growth_args, id_floor

# Each channel version's first checkpoint: the checkpoint that stored the blob row.
FIRST_CHECKPOINT_OF_VERSION = """
    SELECT c.thread_id, c.checkpoint_ns, v.key AS channel, v.value AS version, min(c.checkpoint_id) AS cid
    FROM checkpoints c CROSS JOIN LATERAL jsonb_each_text(
        CASE WHEN jsonb_typeof(c.checkpoint->'channel_versions') = 'object'
             THEN c.checkpoint->'channel_versions' ELSE '{}'::jsonb END) v
    GROUP BY 1, 2, 3, 4
"""
PG_CHANNEL_BASIS = (
    "PostgreSQL stores each channel's value in checkpoint_blobs once per version: per channel are those blob "
    "rows (dated by the first checkpoint naming the version) and the writes' bytes; primitive values stay in "
    f"the checkpoint row, counted under {CHECKPOINT_KEY!r}."
)


_IN_WINDOW = "({cid} >= %s OR {cid} IS NULL OR NOT ({cid} ~ '^[0-9a-f]{{8}}-[0-9a-f]{{4}}-6[0-9a-f]{{3}}-'))"


class PgGrowth:
    """``growth_rows`` (a mixin of ``PostgresStore``: needs ``_query``).

    Like SQLite's, the server computes lengths and hands back each row's id head (the first 18
    characters, which carry its time); they are summed into buckets here. Decoding the hex in SQL cost
    more than reading the rows.
    """

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None) -> GrowthRows:
        check_growth_args(bucket_seconds)
        floor = id_floor(since) if since is not None else ""
        parts = (
            ("checkpoint", f"""SELECT substr(checkpoint_id, 1, 18), thread_id, '{CHECKPOINT_KEY}', 1,
                                      pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0)
                               FROM checkpoints WHERE {_IN_WINDOW.format(cid='checkpoint_id')}"""),
            ("blobs", f"""SELECT substr(f.cid, 1, 18), b.thread_id, b.channel, 0, coalesce(octet_length(b.blob), 0)
                          FROM checkpoint_blobs b LEFT JOIN ({FIRST_CHECKPOINT_OF_VERSION}) f
                            ON f.thread_id = b.thread_id AND f.checkpoint_ns = b.checkpoint_ns
                           AND f.channel = b.channel AND f.version = b.version
                          WHERE {_IN_WINDOW.format(cid='f.cid')}"""),
            ("writes", f"""SELECT substr(checkpoint_id, 1, 18), thread_id, channel, 0, coalesce(octet_length(blob), 0)
                           FROM checkpoint_writes WHERE {_IN_WINDOW.format(cid='checkpoint_id')}"""),
        )
        rows, untimed_checkpoints, untimed_bytes = [], 0, 0
        for part, sql in parts:
            sums = BucketSums(part, bucket_seconds)
            sums.add_rows(self._query(sql, [floor]))
            rows += sums.rows()
            untimed_checkpoints += sums.untimed_checkpoints
            untimed_bytes += sums.untimed_bytes
        return GrowthRows(bucket_seconds, since, rows, untimed_checkpoints, untimed_bytes, PG_CHANNEL_BASIS)
