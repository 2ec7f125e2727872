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

from ...store.not_utf8 import from_blob
from ...store.sqlite.connect import BUCKET_FUNCTION as _BUCKET_FUNCTION
from ...store.sqlite.queries import OWN_BYTES
from ..growth_rows import (
    CHECKPOINT_KEY,
    UUID6_HEAD_GLOB,
    GrowthRows,
    ThreadGrowth,
    ahead_label,
    check_growth_args,
    growth_result,
    growth_sql,
    id_range_bucket,
    thread_growth,
    thread_growth_sql,
)
from ..growth_views import GrowthReader, growth_views_result, growth_views_sql

SQLITE_CHANNEL_BASIS = (
    "SQLite keeps every channel value inside one msgpack blob per checkpoint, so its bytes are not split by "
    f"channel without reading it: they are counted under {CHECKPOINT_KEY!r}; per channel are the writes' "
    "bytes (what each node wrote, stored against the checkpoint its step started from)."
)
# a uuid6 id is text (an id stored as a BLOB, whatever its bytes spell, is not dated: it compares with no text)
_UUID6 = f"typeof(checkpoint_id) = 'text' AND checkpoint_id GLOB '{UUID6_HEAD_GLOB}*'"
# The threads holding a uuid6 id past the cut (a parameter, twice): written since the rows were last read.
_LIVE = (f"live AS (SELECT thread_id FROM checkpoints WHERE checkpoint_id > ? AND {_UUID6} "
         f"UNION SELECT thread_id FROM writes WHERE checkpoint_id > ? AND {_UUID6})")
_CUT = (f"SELECT max(i) FROM (SELECT max(checkpoint_id) AS i FROM checkpoints WHERE {_UUID6} "
        f"UNION ALL SELECT max(checkpoint_id) FROM writes WHERE {_UUID6})")
_TOTALS = (f"SELECT 'total', NULL, NULL, NULL, 'checkpoint', count(*), coalesce(sum({OWN_BYTES}), 0) FROM checkpoints "
           "UNION ALL SELECT 'total', NULL, NULL, NULL, 'writes', 0, coalesce(sum(length(value)), 0) FROM writes")


def _dated(width: int, since: int | None, now: float, among: str = "") -> str:
    """The dated rows, ``now``'s bucket split at ``now`` (``compared_edges``); ``among``: a condition both
    tables are read under ("": every row)."""
    since_sql = "NULL" if since is None else str(int(since))
    # the id's first 18 characters: the text the GLOB checked (ASCII), never bytes that are not UTF-8
    fallback = f"{_BUCKET_FUNCTION}(substr(checkpoint_id, 1, 18), {width}, {since_sql})"
    bucket = (f"CASE WHEN {_UUID6} THEN "
              f"{id_range_bucket('checkpoint_id', width, since, now, fallback)} END")
    return (f"SELECT {bucket} AS b, thread_id AS t, '{CHECKPOINT_KEY}' AS c, 'checkpoint' AS p, 1 AS k, "
            f"{OWN_BYTES} AS n FROM checkpoints {among} "
            f"UNION ALL SELECT {bucket}, thread_id, channel, 'writes', 0, coalesce(length(value), 0) FROM writes {among}")


def _read_keys(rows: list[tuple]) -> list[tuple]:
    """Growth rows as the other readers name ids: a thread id or channel stored as a BLOB (the rows hold keys and
    numbers, no value) as ``not_utf8.from_blob`` reads it, never ``bytes``."""
    return [tuple(from_blob(v) if type(v) is bytes else v for v in row) if bytes in map(type, row) else row
            for row in rows]


class SqliteGrowth(GrowthReader):
    """``growth_rows`` (a mixin of ``SqliteOperations``: needs ``_conn`` and ``_db``)."""

    GROWTH_CHANNEL_BASIS = SQLITE_CHANNEL_BASIS

    def _growth_all(self, bucket_seconds: int, since: int | None, top: int, now: float) -> GrowthRows:
        found = _read_keys(self._query(growth_sql(_dated(bucket_seconds, since, now), None, top)))
        return growth_result(found, bucket_seconds, since, SQLITE_CHANNEL_BASIS, None, top, now)

    def _growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]],
                      now: float) -> list[GrowthRows]:
        found = _read_keys(self._query(growth_views_sql(_dated(bucket_seconds, since, now), asks)))
        return growth_views_result(found, bucket_seconds, since, SQLITE_CHANNEL_BASIS, asks, now)

    def growth_thread_rows(self, bucket_seconds: int = 86_400, cut: str | None = None,
                           now: float | None = None) -> ThreadGrowth:
        """The dated rows of every thread (``cut`` None) or of the threads holding a uuid6 id greater than
        ``cut``, with the store's greatest uuid6 id and totals, in one statement (see ``ThreadGrowth``)."""
        check_growth_args(bucket_seconds)
        now = time.time() if now is None else float(now)
        among = "" if cut is None else "WHERE thread_id IN (SELECT thread_id FROM live)"
        sql = thread_growth_sql(_dated(bucket_seconds, None, now, among), "" if cut is None else _LIVE,
                                _CUT if cut is None else None, _TOTALS)
        return thread_growth(_read_keys(self._query(sql, [] if cut is None else [cut, cut])), cut or "",
                             ahead_label(bucket_seconds, now))

    def growth_change_token(self) -> tuple:
        """Equal for two reads of this store only if no connection committed to the file in between: the file
        and connection read and SQLite's ``data_version`` on it (a commit by any other connection moves it)."""
        conn = self._conn
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None
        return (self._db.file_identity, id(conn), version)

    def growth_fingerprint(self) -> tuple:
        """What growth depends on, summed: each table's rows, stored lengths and id range (see ``growth_rows``; the ids
        quoted, so an id stored as a BLOB is one JSON holds)."""
        return tuple(self._query(
            f"""SELECT (SELECT json_array(count(*), coalesce(sum({OWN_BYTES}), 0), quote(min(checkpoint_id)),
                                          quote(max(checkpoint_id))) FROM checkpoints),
                       (SELECT json_array(count(*), coalesce(sum(length(value)), 0), quote(min(checkpoint_id)),
                                          quote(max(checkpoint_id))) FROM writes)""")[0])
