"""Growth over time of a PostgreSQL store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

Checkpoint rows and writes are dated by their checkpoint id, compared as text with each bucket's first id
(decoded from its hex digits only outside the buckets around now). A ``checkpoint_blobs`` row (one
channel version, shared by every checkpoint that kept it) is dated by the first checkpoint whose
``channel_versions`` names that version. LangGraph gives every channel a step updates the same new
version, greater than all before it, so that checkpoint is the first whose greatest version is the
blob's: one version per checkpoint to compare, then a hash join, checked against the checkpoint's own
``channel_versions``. A blob this does not date (versions another writer chose, a blob no checkpoint
names) is looked up among every version its thread's checkpoints name. Lengths only: ``pg_column_size``
and ``octet_length`` read no blob content. Everything is aggregated by the server in one pass
(``growth_sql_grouping_sets``), with the dated blob rows held in memory (``work_mem`` raised for that
statement's transaction alone).
"""

from __future__ import annotations

import time

import psycopg

from ..growth_rows import (
    _NO_INT,
    _NO_TEXT,
    BEFORE,
    CHECKPOINT_KEY,
    TICKS_PER_SECOND,
    UUID6_HEAD_REGEX,
    UUID_EPOCH_OFFSET,
    GrowthRows,
    ThreadGrowth,
    check_growth_args,
    check_growth_views,
    growth_result,
    growth_sql_grouping_sets,
    growth_views_result,
    growth_views_sql,
    id_range_bucket,
    since_ticks,
    thread_growth,
    thread_growth_sql,
)
from .connect import read_error

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


def _ticks(column: str) -> str:
    """A uuid6 id's 60-bit timestamp, decoded from its hex digits by the server; NULL for another id."""
    return (f"CASE WHEN {column} ~ '{UUID6_HEAD_REGEX}' THEN "
            f"('x' || substr({column}, 1, 8) || substr({column}, 10, 4) || substr({column}, 16, 3))::bit(60)::bigint END")


def _bucket(ticks: str, width: int, since: int | None) -> str:
    """``bucket_of`` in SQL, from ``_ticks``."""
    span = width * TICKS_PER_SECOND
    before = f"WHEN {ticks} < {since_ticks(since)} THEN {BEFORE} " if since is not None else ""
    return (f"CASE WHEN {ticks} IS NULL THEN NULL {before}"
            f"ELSE ({ticks} - {UUID_EPOCH_OFFSET} - mod(mod({ticks} - {UUID_EPOCH_OFFSET}, {span}) + {span}, {span}))"
            f" / {span} * {width} END")


MAX_BLOB_CHANNELS = 64  # past this many channels with blob rows, versions are compared by expanding every object


def _dated_by(column: str, width: int, since: int | None) -> str:
    """A uuid6 ``column``'s bucket (``bucket_of``): compared as text ("C" collation) with each bucket's first id
    for the buckets around now (``id_range_bucket``); an id outside them is decoded (``_ticks``). An id whose
    dashes and version digit are not a uuid6's carries no time."""
    fallback = _bucket(_ticks(column), width, since)
    as_text = column + ' COLLATE "C"'  # ids compared byte by byte, whatever the database's collation
    return (f"CASE WHEN substr({column}, 9, 1) = '-' AND substr({column}, 14, 2) = '-6' THEN "
            f"{id_range_bucket(as_text, width, since, time.time(), fallback)} END")


def _dated(width: int, since: int | None, blob_channels: int | None, among: str = "") -> str:
    """The dated rows; ``blob_channels``: how many channels hold blob rows, named by the parameters of
    ``_params`` (their greatest version per checkpoint is compared), None to compare every channel's;
    ``among``: a condition on ``thread_id`` every table is read under ("": every row)."""
    where = f"WHERE {among}" if among else ""
    versions = ("CASE WHEN jsonb_typeof(checkpoint->'channel_versions') = 'object' "
                "THEN checkpoint->'channel_versions' ELSE '{}'::jsonb END")
    if blob_channels is None:
        newest = "(SELECT max(value) FROM jsonb_each_text(cv))"
    elif blob_channels:
        newest = f"GREATEST({', '.join(['cv->>%s'] * blob_channels)})"
    else:
        newest = "NULL::text"
    return f"""
    WITH read AS (
        SELECT thread_id, checkpoint_ns, checkpoint_id, {versions} AS cv,
               pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0) AS n,
               {_dated_by('checkpoint_id', width, since)} AS b
        FROM checkpoints {where} OFFSET 0),
    topped AS (SELECT *, {newest} AS top FROM read OFFSET 0),
    cp AS MATERIALIZED (SELECT thread_id, checkpoint_ns, checkpoint_id, n, b, top, cv FROM topped),
    first_of_version AS (
        SELECT DISTINCT ON (thread_id, checkpoint_ns, top) thread_id, checkpoint_ns, top, b, cv FROM cp
        WHERE top IS NOT NULL ORDER BY thread_id, checkpoint_ns, top, checkpoint_id),
    blobs AS MATERIALIZED (
        SELECT bl.thread_id, bl.checkpoint_ns, bl.channel, bl.version, coalesce(octet_length(bl.blob), 0) AS n,
               f.b, f.thread_id IS NOT NULL AS dated
        FROM (SELECT * FROM checkpoint_blobs {where}) bl LEFT JOIN first_of_version f
          ON f.thread_id = bl.thread_id AND f.checkpoint_ns = bl.checkpoint_ns AND f.top = bl.version
         AND f.cv->>bl.channel = bl.version),
    missed AS (SELECT * FROM blobs WHERE NOT dated),
    named AS (
        SELECT c.thread_id, c.checkpoint_ns, v.key AS channel, v.value AS version, min(c.checkpoint_id) AS cid
        FROM cp c JOIN (SELECT DISTINCT thread_id, checkpoint_ns FROM missed) m
          ON m.thread_id = c.thread_id AND m.checkpoint_ns = c.checkpoint_ns
        CROSS JOIN LATERAL jsonb_each_text(c.cv) v
        GROUP BY 1, 2, 3, 4)
    SELECT b, thread_id AS t, '{CHECKPOINT_KEY}' AS c, 'checkpoint' AS p, 1 AS k, n FROM cp
    UNION ALL SELECT b, thread_id, channel, 'blobs', 0, n FROM blobs WHERE dated
    UNION ALL SELECT {_dated_by('f.cid', width, since)}, m.thread_id, m.channel, 'blobs', 0, m.n
        FROM missed m LEFT JOIN named f ON f.thread_id = m.thread_id AND f.checkpoint_ns = m.checkpoint_ns
         AND f.channel = m.channel AND f.version = m.version
    UNION ALL SELECT {_dated_by('checkpoint_id', width, since)}, thread_id, channel, 'writes', 0,
        coalesce(octet_length(blob), 0) FROM checkpoint_writes {where}
    """


def _params(channels: list[str]) -> list[str]:
    """The parameters of ``_dated`` for these blob channels: each once, for the greatest version."""
    return list(channels)


_UUID6 = f"checkpoint_id ~ '{UUID6_HEAD_REGEX}'"
# The threads holding a uuid6 id past the cut (a parameter, twice), ids compared byte by byte.
_LIVE = (f'live AS (SELECT thread_id FROM checkpoints WHERE checkpoint_id COLLATE "C" > %s AND {_UUID6} '
         f'UNION SELECT thread_id FROM checkpoint_writes WHERE checkpoint_id COLLATE "C" > %s AND {_UUID6})')
_CUT = (f'SELECT max(i COLLATE "C") FROM (SELECT max(checkpoint_id COLLATE "C") AS i FROM checkpoints WHERE {_UUID6} '
        f'UNION ALL SELECT max(checkpoint_id COLLATE "C") FROM checkpoint_writes WHERE {_UUID6}) ids')
_TOTALS = f"""SELECT 'total', {_NO_INT}, {_NO_TEXT}, {_NO_TEXT}, 'checkpoint', count(*),
        coalesce(sum(pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0)), 0) FROM checkpoints
    UNION ALL SELECT 'total', NULL, NULL, NULL, 'writes', 0, coalesce(sum(coalesce(octet_length(blob), 0)), 0)
        FROM checkpoint_writes
    UNION ALL SELECT 'total', NULL, NULL, NULL, 'blobs', 0, coalesce(sum(coalesce(octet_length(blob), 0)), 0)
        FROM checkpoint_blobs"""
_WORK_MEM = "SET LOCAL work_mem = '64MB'"  # this statement's transaction only
_BLOB_CHANNELS = "SELECT DISTINCT channel FROM checkpoint_blobs LIMIT %s"  # the channels that hold blob rows


class PgGrowth:
    """``growth_rows`` (a mixin of ``PostgresStore``: needs ``_query``)."""

    GROWTH_CHANNEL_BASIS = PG_CHANNEL_BASIS

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None, by: str | None = None,
                    top: int = 0) -> GrowthRows:
        check_growth_args(bucket_seconds, by, top)
        if by is not None:
            return self.growth_views(bucket_seconds, since, [(by, top)])[0]
        return growth_result(self._growth_read(bucket_seconds, since, lambda dated: growth_sql_grouping_sets(
            dated, by, top)), bucket_seconds, since, PG_CHANNEL_BASIS)

    def growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]]) -> list[GrowthRows]:
        """``growth_rows`` for each ask ``(by, top)`` of one window, from one statement."""
        check_growth_views(bucket_seconds, asks)
        found = self._growth_read(bucket_seconds, since, lambda dated: growth_views_sql(dated, asks, True))
        return growth_views_result(found, bucket_seconds, since, PG_CHANNEL_BASIS, asks)

    def _growth_read(self, bucket_seconds: int, since: int | None, statement) -> list[tuple]:
        """The rows of ``statement(dated)`` over the store's dated rows."""
        channels = [r[0] for r in self._query(_BLOB_CHANNELS, [MAX_BLOB_CHANNELS + 1])]
        named = channels if len(channels) <= MAX_BLOB_CHANNELS else None
        sql = statement(_dated(bucket_seconds, since, None if named is None else len(named)))
        try:
            with self.connection() as conn, conn.transaction():
                conn.execute(_WORK_MEM)  # the dated blob rows are held in memory, not spilled to a temporary file
                return conn.execute(sql, _params(named or [])).fetchall()
        except psycopg.Error as exc:
            raise read_error(exc, self.target) from None

    def growth_thread_rows(self, bucket_seconds: int = 86_400, cut: str | None = None) -> ThreadGrowth:
        """The dated rows of every thread (``cut`` None) or of the threads holding a uuid6 id greater than
        ``cut``, with the store's greatest uuid6 id and totals, in one statement (see ``ThreadGrowth``)."""
        check_growth_args(bucket_seconds)
        named = None  # the threads written since the cut: few, every channel's versions compared
        if cut is None:
            channels = [r[0] for r in self._query(_BLOB_CHANNELS, [MAX_BLOB_CHANNELS + 1])]
            named = channels if len(channels) <= MAX_BLOB_CHANNELS else None
        among = "" if cut is None else "thread_id IN (SELECT thread_id FROM live)"
        dated = _dated(bucket_seconds, None, None if named is None else len(named), among)
        sql = thread_growth_sql(dated, "" if cut is None else _LIVE, _CUT if cut is None else None, _TOTALS)
        try:
            with self.connection() as conn, conn.transaction():
                conn.execute(_WORK_MEM)
                found = conn.execute(sql, ([] if cut is None else [cut, cut]) + _params(named or [])).fetchall()
        except psycopg.Error as exc:
            raise read_error(exc, self.target) from None
        return thread_growth(found, cut or "")

    def growth_fingerprint(self) -> tuple:
        """What growth depends on, summed: each table's rows, stored lengths and id range (see ``growth_rows``)."""
        return tuple(str(v) for v in self._query(
            """SELECT (SELECT row(count(*), sum(pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0)),
                                  min(checkpoint_id), max(checkpoint_id))::text FROM checkpoints),
                      (SELECT row(count(*), sum(octet_length(blob)), min(version), max(version))::text
                       FROM checkpoint_blobs),
                      (SELECT row(count(*), sum(octet_length(blob)), min(checkpoint_id), max(checkpoint_id))::text
                       FROM checkpoint_writes)""")[0])
