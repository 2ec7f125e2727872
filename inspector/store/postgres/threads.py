"""Listing and ranking the threads of a PostgreSQL store, and the branches DeerFlow records between them.

Rankings and summaries come from keys, lengths and small ``title`` writes; no blob content is read.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..model import BRANCH_PARENT_KEY, BranchThread, StoreTotals, WriteKey, branch_of, sorted_branches
from ..not_utf8 import is_not_utf8
from ..records import like_pattern, newest_writes_from, titles_from
from ..sql_threads import SqlThreads
from ..state_sizes import PG_NEWEST_STATES

_THREAD_COLUMNS = """thread_id, count(*), max(checkpoint_id) FILTER (WHERE checkpoint_ns = ''),
    sum(pg_column_size(checkpoint) + pg_column_size(metadata)) AS own, count(DISTINCT checkpoint_ns), max(checkpoint_id)"""
# Every thread's bytes beside its checkpoint rows: blob rows (each once) and writes, from lengths only.
_SIDE_BYTES = """
    SELECT thread_id, sum(n) AS n FROM (
        SELECT thread_id, coalesce(octet_length(blob), 0) AS n FROM checkpoint_blobs {blob_where}
        UNION ALL
        SELECT thread_id, octet_length(blob) FROM checkpoint_writes {write_where}
    ) sizes GROUP BY thread_id
"""


# A checkpoint the thread search matches on: its thread id or its stored metadata holds the text.
_MATCHES = "(thread_id ILIKE %s ESCAPE '\\' OR metadata::text ILIKE %s ESCAPE '\\')"


def _unheld(search: str) -> bool:
    """No PostgreSQL text holds ``search``: bytes that are not UTF-8, or a NUL."""
    return is_not_utf8(search) or "\x00" in search


# A page of threads ranked by stored bytes: each checkpoint row's size, its blob rows and its writes.
_RANK_STORED = f"""
    WITH c AS (SELECT thread_id, sum(pg_column_size(checkpoint) + pg_column_size(metadata)) AS own
               FROM checkpoints {{where}} GROUP BY thread_id),
         side AS ({_SIDE_BYTES.format(blob_where="", write_where="")})
    SELECT c.thread_id FROM c LEFT JOIN side ON side.thread_id = c.thread_id
    ORDER BY c.own + coalesce(side.n, 0) DESC, c.thread_id
    LIMIT %s OFFSET %s
"""


class PgThreads(SqlThreads):
    """Thread listing, totals and branches (a mixin of ``PostgresStore``: needs ``_query``)."""

    RANK_STORED = _RANK_STORED
    THREAD_COLUMNS = _THREAD_COLUMNS
    NEWEST_STATES = PG_NEWEST_STATES

    def _among(self, ids: Sequence[str]) -> tuple[str, list[Any]]:
        return "thread_id = ANY(%s)", [[t for t in ids if not is_not_utf8(t)]]

    def _holds_text(self, text: str) -> bool:
        return not is_not_utf8(text)

    def _search_condition(self, search: str) -> tuple[str, list[Any]]:
        if _unheld(search):  # PostgreSQL text cannot hold such bytes: nothing holds the text
            return "false", []
        like = like_pattern(search)
        return _MATCHES, [like, like]

    def newest_write_keys(self, thread_ids: Sequence[str] | None = None) -> dict[str, tuple[str, list[WriteKey]]]:
        if thread_ids is not None and not thread_ids:
            return {}
        among, params, join = self._newest_among(thread_ids)
        rows = self._query(
            f"""SELECT n.thread_id, n.cid, w.task_id, w.task_path, w.idx, w.channel, octet_length(w.blob)
                FROM (SELECT DISTINCT ON (thread_id) thread_id, checkpoint_id AS cid FROM checkpoints
                      WHERE checkpoint_ns = '' {among} ORDER BY thread_id, checkpoint_id DESC) n
                {join} checkpoint_writes w ON w.thread_id = n.thread_id AND w.checkpoint_ns = ''
                   AND w.checkpoint_id = n.cid
                ORDER BY n.thread_id, w.task_path, w.task_id, w.idx""", params)
        return newest_writes_from(rows)

    def search_metadata(self, search: str, thread_ids: Sequence[str] | None = None,
                        newest_only: bool = False) -> list[tuple[str, dict[str, Any]]]:
        if (thread_ids is not None and not thread_ids) or _unheld(search):
            return []
        like = like_pattern(search)
        where, params = _MATCHES, [like, like]
        if thread_ids is not None:
            where += " AND thread_id = ANY(%s)"
            params.append(list(thread_ids))
        sql = (f"SELECT DISTINCT ON (thread_id) thread_id, metadata FROM checkpoints WHERE {where} "
               "ORDER BY thread_id, checkpoint_id DESC") if newest_only else (
            f"SELECT thread_id, metadata FROM checkpoints WHERE {where}")
        return [(tid, meta if isinstance(meta, dict) else {"value": meta}) for tid, meta in self._query(sql, params)]

    def totals(self) -> StoreTotals:
        threads, checkpoints, own = self._query(
            """SELECT count(DISTINCT thread_id), count(*),
                      coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) FROM checkpoints""")[0]
        side = self._query(
            """SELECT (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs)
                    + (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes)""")[0][0]
        return StoreTotals(threads, checkpoints, int(own) + int(side))

    def _side_bytes_by_thread(self, ids: list[str]) -> dict[str, int]:
        """Blob and write bytes per thread; each shared blob row counted once."""
        if not ids:
            return {}
        sql = _SIDE_BYTES.format(blob_where="WHERE thread_id = ANY(%s)", write_where="WHERE thread_id = ANY(%s)")
        return {tid: int(total or 0) for tid, total in self._query(sql, [ids, ids])}

    def _titles(self, ids: list[str] | None) -> dict[str, str]:
        """The newest ``title`` each thread's tasks wrote (of ``ids``; None: every thread): a small write,
        not a state blob."""
        if ids is not None and not ids:
            return {}
        among = "AND thread_id = ANY(%s)" if ids is not None else ""
        rows = self._query(
            f"""
            SELECT DISTINCT ON (thread_id) thread_id, type, blob FROM checkpoint_writes
            WHERE channel = 'title' AND checkpoint_ns = '' {among}
            ORDER BY thread_id, checkpoint_id DESC, task_path DESC, task_id DESC, idx DESC
            """,
            [ids] if ids is not None else [],
        )
        return titles_from(rows)

    def id_threads(self, search: str) -> set[str]:
        if _unheld(search):
            return set()
        like = like_pattern(search)
        rows = self._query("SELECT DISTINCT thread_id FROM checkpoints WHERE thread_id ILIKE %s ESCAPE '\\' "
                           "OR checkpoint_id ILIKE %s ESCAPE '\\'", [like, like])
        return {r[0] for r in rows}

    def checkpoint_id_threads(self, search: str) -> set[str]:
        if _unheld(search):
            return set()
        rows = self._query("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_id ILIKE %s ESCAPE '\\'",
                           [like_pattern(search)])
        return {r[0] for r in rows}

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        rows = self._query(
            "SELECT thread_id, metadata FROM checkpoints "
            "WHERE checkpoint_ns = '' AND parent_checkpoint_id IS NULL AND metadata->>%s = %s",
            [BRANCH_PARENT_KEY, thread_id],
        )
        return sorted_branches(b for tid, meta in rows if (b := branch_of(tid, meta)) is not None)
