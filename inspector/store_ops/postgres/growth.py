"""Growth over time of a PostgreSQL store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

Checkpoint rows and writes are dated by their checkpoint id, compared as text ("C" collation) with each
bucket's first id (``_dated_by``; decoded from its hex digits only outside the buckets around now). A
``checkpoint_blobs`` row (one channel version, shared by every checkpoint that kept it) is dated by the
first checkpoint (the least id, byte by byte) of its thread and namespace whose ``channel_versions``
names its channel at its version: each blob channel's version is read once per checkpoint, the least id
kept per version with its bucket, and the blob rows joined to those on all four keys (a blob no checkpoint
names carries no time). Lengths only: ``pg_column_size`` and ``octet_length`` read no blob content. Every grouping a
report asks comes from one statement (``growth_views_sql``): the rows summed by the server in one pass
(``GROUPING SETS``), by thread the top threads' rows read again for those threads alone, with the dated
rows held in memory (``work_mem`` raised for that statement's transaction alone).
"""

from __future__ import annotations

import time
import weakref
from typing import Any

import psycopg

from ...store.id_dating import BEFORE, TICKS_PER_SECOND, UUID_EPOCH_OFFSET, since_ticks
from ...store.postgres.connect import read_error
from ..growth_rows import (
    CHECKPOINT_KEY,
    NO_INT,
    NO_TEXT,
    UUID6_HEAD_REGEX,
    GrowthRows,
    ThreadGrowth,
    ahead_label,
    check_growth_args,
    compared_edges,
    growth_result,
    growth_sql_grouping_sets,
    thread_growth,
    thread_growth_sql,
)
from ..growth_views import GrowthReader, growth_views_result, growth_views_sql, views_shape

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


MAX_BLOB_CHANNELS = 64  # past this many channels with blob rows, every channel's versions are expanded
UUID6_SHAPE = "________-____-6%%"  # LIKE: the dashes and version digit of a uuid6 id (%% a psycopg literal %)
_HEX_OR_DASH = "'\\x303132333435363738396162636465662d'::bytea"  # 0-9, a-f and "-", as bytes


def _uuid6_head(column: str) -> str:
    """Whether ``column``'s first 18 characters are a uuid6 id's (``UUID6_HEAD_GLOB``, as SQLite checks them):
    the dashes and version digit in place (LIKE), and nothing but hex digits and those two dashes (its bytes
    trimmed of hex digits and dashes leave nothing, and no third dash). On the id's bytes (``textsend``):
    a few byte loops, where a pattern match (``~``) costs several times the whole dating of a row."""
    head = f"substring(textsend({column}) from 1 for 18)"
    return (f"{column} LIKE '{UUID6_SHAPE}' AND ltrim({head}, {_HEX_OR_DASH}) = ''::bytea "
            f"AND {head} NOT LIKE '%%-%%-%%-%%'::bytea")


LEAF_BUCKETS = 8  # buckets one width_bucket searches (it walks its array: short ones, under a tree of comparisons)


def _dated_by(column: str, width: int, since: int | None, now: float) -> str:
    """A uuid6 ``column``'s bucket (``bucket_of``): for the buckets around now (those ``id_range_bucket``
    compares, at most ``MAX_SPLITS``, now's split at ``now``: ``compared_edges``), found by comparing the id
    as text ("C" collation) with each bucket's first id (a tree of comparisons down to ``LEAF_BUCKETS``
    buckets of consecutive starts, searched by one ``width_bucket``); an id outside them is decoded
    (``_ticks``). An id whose first 18 characters are not a uuid6's (dashes, version digit, hex digits:
    ``_uuid6_head``) carries no time, as on SQLite."""
    fallback = _bucket(_ticks(column), width, since)
    edges, labels, before = compared_edges(width, since, now)
    as_text = column + ' COLLATE "C"'  # ids compared byte by byte, whatever the database's collation

    def tree(lo: int, hi: int) -> str:  # the buckets lo..hi-1, between edges[lo] and edges[hi]
        if hi - lo == 1:
            return str(labels[lo])
        if hi - lo <= LEAF_BUCKETS and labels[hi - 1] - labels[lo] == (hi - 1 - lo) * width:
            starts = ", ".join(f"'{e}'" for e in edges[lo + 1:hi])
            return f"({labels[lo] // width} + width_bucket({as_text}, ARRAY[{starts}]::text[])) * {width}"
        mid = (lo + hi) // 2
        return f"CASE WHEN {as_text} < '{edges[mid]}' THEN {tree(lo, mid)} ELSE {tree(mid, hi)} END"

    return (f"CASE WHEN {_uuid6_head(column)} THEN CASE "
            f"WHEN {as_text} < '{edges[0]}' THEN {BEFORE if before else fallback} "
            f"WHEN {as_text} >= '{edges[-1]}' THEN {fallback} ELSE {tree(0, len(labels))} END END")


# A blob's bucket, under CASE: a window's condition on it stays above the outer join (on the column itself it
# would make it an inner join, planned on the estimate of a few checkpoints per thread: a nested loop).
_KEPT_ABOVE_JOIN = "CASE WHEN {0} IS NOT NULL THEN {0} END"


def _dated(width: int, since: int | None, blob_channels: int | None, now: float, among: str = "") -> str:
    """The dated rows, ``now``'s bucket split at ``now`` (``compared_edges``); ``blob_channels``: how many
    channels hold blob rows, named by the parameters of
    ``_params`` (each checkpoint's version of each is read once), None to expand every channel's;
    ``among``: a condition on ``thread_id`` every table is read under ("": every row).

    A blob row is dated by the first checkpoint (its id the least, byte by byte) of its thread and
    namespace whose ``channel_versions`` names its channel at its version: each checkpoint's version of
    each blob channel, the least id per version, one hash join of the blob rows on all four keys. Its bucket is
    that checkpoint's: the least bucket of those naming the version when the least id is dated (the ids that
    carry a time sort by it, and their buckets with them), none when it is not."""
    where = f"WHERE {among}" if among else ""
    versions = "checkpoint->'channel_versions'"  # NULL, or no key found, when it is not an object
    if blob_channels is None:
        kept = f", CASE WHEN jsonb_typeof({versions}) = 'object' THEN {versions} END AS cv"
        named = ("SELECT thread_id, checkpoint_ns, v.key, v.value, checkpoint_id, b "
                 "FROM cp CROSS JOIN LATERAL jsonb_each_text(cv) v")
    else:
        kept = "".join(f", {versions}->>%s AS v{i}" for i in range(blob_channels))
        named = " UNION ALL ".join(f"SELECT thread_id, checkpoint_ns, %s, v{i}, checkpoint_id, b FROM cp WHERE v{i} IS NOT NULL"
                                   for i in range(blob_channels)) or f"SELECT {', '.join([NO_TEXT] * 5)}, {NO_INT} WHERE false"
    return f"""
    WITH cp AS MATERIALIZED (
        SELECT thread_id, checkpoint_ns, checkpoint_id{kept},
               pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0) AS n,
               {_dated_by('checkpoint_id', width, since, now)} AS b
        FROM checkpoints {where}),
    first_of_version AS (
        SELECT thread_id, checkpoint_ns, channel, version,
               CASE WHEN min(checkpoint_id COLLATE "C") = min(checkpoint_id COLLATE "C") FILTER (WHERE b IS NOT NULL)
                    THEN min(b) END AS b
        FROM ({named}) named (thread_id, checkpoint_ns, channel, version, checkpoint_id, b) GROUP BY 1, 2, 3, 4)
    SELECT b, thread_id AS t, '{CHECKPOINT_KEY}' AS c, 'checkpoint' AS p, 1 AS k, n FROM cp
    UNION ALL SELECT {_KEPT_ABOVE_JOIN.format("f.b")}, bl.thread_id, bl.channel, 'blobs', 0,
        coalesce(octet_length(bl.blob), 0)
        FROM (SELECT * FROM checkpoint_blobs {where}) bl LEFT JOIN first_of_version f
          ON f.thread_id = bl.thread_id AND f.checkpoint_ns = bl.checkpoint_ns AND f.channel = bl.channel
         AND f.version = bl.version
    UNION ALL SELECT {_dated_by('checkpoint_id', width, since, now)}, thread_id, channel, 'writes', 0,
        coalesce(octet_length(blob), 0) FROM checkpoint_writes {where}
    """


def _params(channels: list[str]) -> list[str]:
    """The parameters of ``_dated`` for these blob channels: each twice (its version read, then named)."""
    return list(channels) * 2


_UUID6 = f"checkpoint_id ~ '{UUID6_HEAD_REGEX}'"
# The threads holding a uuid6 id past the cut (a parameter, twice), ids compared byte by byte.
_LIVE = (f'live AS (SELECT thread_id FROM checkpoints WHERE checkpoint_id COLLATE "C" > %s AND {_UUID6} '
         f'UNION SELECT thread_id FROM checkpoint_writes WHERE checkpoint_id COLLATE "C" > %s AND {_UUID6})')
_CUT = (f'SELECT max(i COLLATE "C") FROM (SELECT max(checkpoint_id COLLATE "C") AS i FROM checkpoints WHERE {_UUID6} '
        f'UNION ALL SELECT max(checkpoint_id COLLATE "C") FROM checkpoint_writes WHERE {_UUID6}) ids')
_TOTALS = f"""SELECT 'total', {NO_INT}, {NO_TEXT}, {NO_TEXT}, 'checkpoint', count(*),
        coalesce(sum(pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0)), 0) FROM checkpoints
    UNION ALL SELECT 'total', NULL, NULL, NULL, 'writes', 0, coalesce(sum(coalesce(octet_length(blob), 0)), 0)
        FROM checkpoint_writes
    UNION ALL SELECT 'total', NULL, NULL, NULL, 'blobs', 0, coalesce(sum(coalesce(octet_length(blob), 0)), 0)
        FROM checkpoint_blobs"""
_WORK_MEM = "SET LOCAL work_mem = '64MB'"  # this statement's transaction only
_BLOB_CHANNELS = "SELECT DISTINCT channel FROM checkpoint_blobs LIMIT %s"  # the channels that hold blob rows
_UNREAD = object()


# Each store's blob channels read last (``_blob_channels``), kept as long as the store is.
_HELD_CHANNELS: weakref.WeakKeyDictionary[Any, list[str] | None] = weakref.WeakKeyDictionary()


class PgGrowth(GrowthReader):
    """``growth_rows`` (a mixin of ``PgOperations``: needs ``store``, ``_query``, ``connection`` and ``target``)."""

    GROWTH_CHANNEL_BASIS = PG_CHANNEL_BASIS

    def _growth_all(self, bucket_seconds: int, since: int | None, top: int, now: float) -> GrowthRows:
        return growth_result(self._growth_read(bucket_seconds, since, now, lambda dated, _: growth_sql_grouping_sets(
            dated, None, top)), bucket_seconds, since, PG_CHANNEL_BASIS, now=now)

    def _growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]],
                      now: float) -> list[GrowthRows]:
        """Every ask from one statement (by thread, the top threads' rows read again, those threads alone)."""
        again = views_shape(asks)[1] == "top"
        found = self._growth_read(bucket_seconds, since, now, lambda dated, top_dated: growth_views_sql(
            dated, asks, True, top_dated if again else None), 2 if again else 1, checked=True)
        return growth_views_result(found, bucket_seconds, since, PG_CHANNEL_BASIS, asks, now)

    def _blob_channels(self, fresh: bool = True) -> list[str] | None:
        """The channels holding blob rows (None: more than ``MAX_BLOB_CHANNELS``), read again when ``fresh``,
        else those read last (a statement that finds blob rows of another channel reads them again)."""
        held = _HELD_CHANNELS.get(self.store, _UNREAD)
        if fresh or held is _UNREAD:
            channels = [r[0] for r in self._query(_BLOB_CHANNELS, [MAX_BLOB_CHANNELS + 1])]
            held = channels if len(channels) <= MAX_BLOB_CHANNELS else None
            _HELD_CHANNELS[self.store] = held
        return held

    def _growth_read(self, bucket_seconds: int, since: int | None, now: float, statement, reads: int = 1,
                     checked: bool = False) -> list[tuple]:
        """The rows of ``statement(dated, top_dated)`` over the store's dated rows and those of the top
        threads (``reads``: how many of the two it holds, for their parameters). ``checked``: its rows name
        the channel of every blob row (``(kind, b, t, c, p, ...)``), so the blob channels read last are
        used, and read again (and the statement run again) when a blob row of another one shows."""
        for fresh in ((False, True) if checked else (True,)):
            named = self._blob_channels(fresh)
            count = None if named is None else len(named)
            sql = statement(_dated(bucket_seconds, since, count, now),
                            _dated(bucket_seconds, since, count, now, "thread_id IN (SELECT grower FROM top_thread)"))
            try:
                with self.connection() as conn, conn.transaction():
                    conn.execute(_WORK_MEM)  # the dated blob rows are held in memory, not spilled to a temporary file
                    found = conn.execute(sql, _params(named or []) * reads).fetchall()
            except psycopg.Error as exc:
                raise read_error(exc, self.target) from None
            seen = {row[3] for row in found if row[4] == "blobs" and row[3] is not None}  # a blob's channel: NOT NULL
            if named is None or not seen - set(named):
                return found
        return found

    def growth_thread_rows(self, bucket_seconds: int = 86_400, cut: str | None = None,
                           now: float | None = None) -> ThreadGrowth:
        """The dated rows of every thread (``cut`` None) or of the threads holding a uuid6 id greater than
        ``cut``, with the store's greatest uuid6 id and totals, in one statement (see ``ThreadGrowth``)."""
        check_growth_args(bucket_seconds)
        now = time.time() if now is None else float(now)
        ahead = ahead_label(bucket_seconds, now)
        if cut is None:  # every thread's rows: they name every blob row's channel
            found = self._growth_read(bucket_seconds, None, now, lambda dated, _: thread_growth_sql(
                dated, "", _CUT, _TOTALS), checked=True)
            return thread_growth(found, "", ahead)
        # the threads written since the cut: few, every channel's versions compared
        dated = _dated(bucket_seconds, None, None, now, "thread_id IN (SELECT thread_id FROM live)")
        sql = thread_growth_sql(dated, _LIVE, None, _TOTALS)
        try:
            with self.connection() as conn, conn.transaction():
                conn.execute(_WORK_MEM)
                found = conn.execute(sql, [cut, cut]).fetchall()
        except psycopg.Error as exc:
            raise read_error(exc, self.target) from None
        return thread_growth(found, cut, ahead)

    def growth_change_token(self) -> str:
        """Equal for two reads only if no transaction began or ended in the cluster in between (the current
        snapshot: the oldest transaction running, the next id to be given and those running), so nothing was
        committed to the store; a transaction that writes anything anywhere moves it."""
        return str(self._query("SELECT txid_current_snapshot()::text")[0][0])

    def growth_fingerprint(self) -> tuple:
        """What growth depends on, summed: each table's rows, stored lengths and id range (see ``growth_rows``)."""
        return tuple(str(v) for v in self._query(
            """SELECT (SELECT row(count(*), sum(pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0)),
                                  min(checkpoint_id), max(checkpoint_id))::text FROM checkpoints),
                      (SELECT row(count(*), sum(octet_length(blob)), min(version), max(version))::text
                       FROM checkpoint_blobs),
                      (SELECT row(count(*), sum(octet_length(blob)), min(checkpoint_id), max(checkpoint_id))::text
                       FROM checkpoint_writes)""")[0])
