"""The newest state of every thread, by stored size: ``Store.newest_state_sizes``.

One aggregate over each thread's newest root checkpoint: on SQLite the checkpoint blob's length (it
holds every channel; a delta-mode channel not snapshotted there is not counted), on PostgreSQL the
checkpoint row plus the blob rows its ``channel_versions`` name. Lengths only.
"""

from __future__ import annotations

from dataclasses import dataclass

SQLITE_NEWEST_STATES = """
    SELECT c.thread_id, length(c.checkpoint) FROM checkpoints c
    JOIN (SELECT thread_id, max(checkpoint_id) AS cid FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) n
      ON c.thread_id = n.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = n.cid
"""
PG_NEWEST_STATES = """
    WITH newest AS (
        SELECT DISTINCT ON (thread_id) thread_id, pg_column_size(checkpoint) AS own,
               CASE WHEN jsonb_typeof(checkpoint->'channel_versions') = 'object'
                    THEN checkpoint->'channel_versions' ELSE '{}'::jsonb END AS versions
        FROM checkpoints WHERE checkpoint_ns = '' ORDER BY thread_id, checkpoint_id DESC)
    SELECT n.thread_id, n.own + coalesce((
        SELECT sum(octet_length(b.blob)) FROM jsonb_each(n.versions) v
        JOIN checkpoint_blobs b ON b.thread_id = n.thread_id AND b.checkpoint_ns = ''
         AND b.channel = v.key AND b.version = v.value #>> '{}'), 0)
    FROM newest n
"""


@dataclass(frozen=True)
class NewestStateSizes:
    threads: int  # threads with a root checkpoint
    over: int  # of them, those whose newest state passes the threshold
    threshold: int
    largest_bytes: int
    largest_thread: str | None


def summarize(rows: list[tuple], threshold: int) -> NewestStateSizes:
    sizes = [(int(n or 0), tid) for tid, n in rows]
    largest = max(sizes, default=(0, None))
    return NewestStateSizes(len(sizes), sum(1 for n, _ in sizes if n > threshold), threshold, largest[0], largest[1])
