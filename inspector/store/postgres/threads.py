"""Listing and ranking the threads of a PostgreSQL store, and the branches DeerFlow records between them.

Rankings and summaries come from keys, lengths and small ``title`` writes; no blob content is read.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..model import (
    BRANCH_PARENT_KEY,
    THREAD_SORTS,
    BranchThread,
    StoreError,
    StoreTotals,
    ThreadHeads,
    ThreadSummary,
    WriteKey,
    branch_of,
    sorted_branches,
)
from ..not_utf8 import is_not_utf8
from ..records import like_pattern, newest_writes_from, thread_summaries, titles_from
from ..state_sizes import PG_NEWEST_STATES, NewestStateSizes, summarize

_THREAD_COLUMNS = """thread_id, count(*), max(checkpoint_id) FILTER (WHERE checkpoint_ns = ''),
    sum(pg_column_size(checkpoint) + pg_column_size(metadata)) AS own, count(DISTINCT checkpoint_ns), max(checkpoint_id)"""
_THREAD_ORDER = {
    "newest": "max(checkpoint_id) DESC, thread_id",
    "checkpoints": "count(*) DESC, max(checkpoint_id) DESC, thread_id",
}
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


class PgThreads:
    """Thread listing, totals and branches (a mixin of ``PostgresStore``: needs ``_query``)."""

    def _thread_filter(self, search: str | None, only: Sequence[str] | None = None) -> tuple[str, list[Any]]:
        conditions, params = [], []
        if search:
            if _unheld(search):  # PostgreSQL text cannot hold such bytes: nothing holds the text
                return "WHERE false", []
            like = like_pattern(search)
            conditions.append(_MATCHES)
            params += [like, like]
        if only is not None:
            conditions.append("thread_id = ANY(%s)")
            params.append([t for t in only if not is_not_utf8(t)])
        return (f"WHERE {' AND '.join(conditions)}" if conditions else ""), params

    def count_threads(self, search: str | None = None, only: Sequence[str] | None = None) -> int:
        where, params = self._thread_filter(search, only)
        return self._query(f"SELECT count(DISTINCT thread_id) FROM checkpoints {where}", params)[0][0]

    def thread_heads(self, since: str | None = None) -> ThreadHeads:
        among, params = ("WHERE thread_id IN (SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_id > %s)",
                         [since]) if since is not None and not is_not_utf8(since) else ("", [])
        rows = self._query(f"""SELECT 0, NULL, max(checkpoint_id), count(*) FROM checkpoints
                               UNION ALL
                               (SELECT 1, thread_id, max(checkpoint_id), count(*) FROM checkpoints {among}
                                GROUP BY thread_id)""", params)
        store = next(r for r in rows if r[0] == 0)
        return ThreadHeads({tid: (head, int(n)) for kind, tid, head, n in rows if kind == 1}, store[2], int(store[3]))

    def newest_write_keys(self, thread_ids: Sequence[str] | None = None) -> dict[str, tuple[str, list[WriteKey]]]:
        if thread_ids is not None and not thread_ids:
            return {}
        among, params, join = "", [], "JOIN"
        if thread_ids is not None:
            among, params, join = "AND thread_id = ANY(%s)", [[t for t in thread_ids if not is_not_utf8(t)]], "LEFT JOIN"
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

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest", only: Sequence[str] | None = None) -> list[ThreadSummary]:
        """The page's threads are ranked first (newest and most checkpoints from keys alone, stored bytes
        from every row's and blob's length), then only their summaries are computed."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        where, params = self._thread_filter(search, only)
        if sort == "stored":
            ranked = self._query(
                f"""
                WITH c AS (SELECT thread_id, sum(pg_column_size(checkpoint) + pg_column_size(metadata)) AS own
                           FROM checkpoints {where} GROUP BY thread_id),
                     side AS ({_SIDE_BYTES.format(blob_where="", write_where="")})
                SELECT c.thread_id FROM c LEFT JOIN side ON side.thread_id = c.thread_id
                ORDER BY c.own + coalesce(side.n, 0) DESC, c.thread_id
                LIMIT %s OFFSET %s
                """,
                [*params, limit, offset],
            )
        else:
            ranked = self._query(
                f"""SELECT thread_id FROM checkpoints {where} GROUP BY thread_id
                    ORDER BY {_THREAD_ORDER[sort]} LIMIT %s OFFSET %s""",
                [*params, limit, offset],
            )
        ids = [r[0] for r in ranked]
        if not ids:
            return []
        rows = {r[0]: r for r in self._query(
            f"SELECT {_THREAD_COLUMNS} FROM checkpoints WHERE thread_id = ANY(%s) GROUP BY thread_id", [ids])}
        return thread_summaries([rows[tid] for tid in ids if tid in rows], self._side_bytes_by_thread(ids),
                                self._titles(ids))

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

    def newest_state_sizes(self, threshold: int) -> NewestStateSizes:
        return summarize(self._query(PG_NEWEST_STATES), threshold)

    def thread_titles(self) -> dict[str, str]:
        return self._titles(None)

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
