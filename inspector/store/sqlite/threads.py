"""Listing and ranking the threads of a SQLite store, and the branches DeerFlow records between them.

Rankings and summaries come from keys, lengths and small ``title`` writes; no state blob is read.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..model import (
    BRANCH_PARENT_KEY,
    THREAD_SORTS,
    BranchThread,
    StoreError,
    StoreTotals,
    ThreadSummary,
    branch_of,
    sorted_branches,
)
from ..records import like_pattern, thread_summaries, titles_from
from ..state_sizes import SQLITE_NEWEST_STATES, NewestStateSizes, summarize
from .queries import OWN_BYTES, in_clause, metadata

_THREAD_ORDER = {
    "newest": "max(checkpoint_id) DESC, thread_id",
    "checkpoints": "count(*) DESC, max(checkpoint_id) DESC, thread_id",
}

# Each thread's first root checkpoint (uuid6 ids sort by time), found on the primary key's index, whose
# metadata mentions the branch key; the value is compared after decoding. No state blob is read.
_BRANCH_ROOTS = """
    SELECT c.thread_id, c.metadata FROM checkpoints c
    JOIN (SELECT thread_id, min(checkpoint_id) AS cid FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) first
      ON c.thread_id = first.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = first.cid
    WHERE instr(CAST(c.metadata AS BLOB), ?) > 0
"""


# A checkpoint the thread search matches on: its thread id or its stored metadata holds the text.
_MATCHES = "(thread_id LIKE ? ESCAPE '\\' OR CAST(metadata AS TEXT) LIKE ? ESCAPE '\\')"


class SqliteThreads:
    """Thread listing, totals and branches (a mixin of ``SqliteStore``: needs ``_query``)."""

    def _thread_filter(self, search: str | None) -> tuple[str, list[Any]]:
        if not search:
            return "", []
        like = like_pattern(search)
        return f"WHERE thread_id IN (SELECT DISTINCT thread_id FROM checkpoints WHERE {_MATCHES})", [like, like]

    def count_threads(self, search: str | None = None) -> int:
        where, params = self._thread_filter(search)
        return self._query(f"SELECT count(DISTINCT thread_id) FROM checkpoints {where}", params)[0][0]

    def search_metadata(self, search: str, thread_ids: Sequence[str] | None = None,
                        newest_only: bool = False) -> list[tuple[str, dict[str, Any]]]:
        if thread_ids is not None and not thread_ids:
            return []
        like = like_pattern(search)
        where, params = _MATCHES, [like, like]
        if thread_ids is not None:
            where += f" AND thread_id IN ({in_clause(list(thread_ids))})"
            params += list(thread_ids)
        # SQLite takes a bare column of a max() aggregate from the row holding the max
        columns, group = ("thread_id, max(checkpoint_id), metadata", "GROUP BY thread_id") if newest_only else (
            "thread_id, checkpoint_id, metadata", "")
        rows = self._query(f"SELECT {columns} FROM checkpoints WHERE {where} {group}", params)
        return [(tid, metadata(raw)) for tid, _, raw in rows]

    def totals(self) -> StoreTotals:
        threads, checkpoints, own = self._query(
            f"SELECT count(DISTINCT thread_id), count(*), coalesce(sum({OWN_BYTES}), 0) FROM checkpoints")[0]
        writes = self._query("SELECT coalesce(sum(length(value)), 0) FROM writes")[0][0]
        return StoreTotals(threads, checkpoints, own + writes)

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest") -> list[ThreadSummary]:
        """The page's threads are ranked first (newest and most checkpoints from the primary-key index alone,
        stored bytes from every row's lengths), then only their summaries are computed."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        where, params = self._thread_filter(search)
        if sort == "stored":
            ranked = self._query(
                f"""
                SELECT c.thread_id
                FROM (SELECT thread_id, sum({OWN_BYTES}) AS own FROM checkpoints {where} GROUP BY thread_id) c
                LEFT JOIN (SELECT thread_id, sum(length(value)) AS n FROM writes GROUP BY thread_id) w
                  ON w.thread_id = c.thread_id
                ORDER BY c.own + coalesce(w.n, 0) DESC, c.thread_id
                LIMIT ? OFFSET ?
                """,
                [*params, limit, offset],
            )
        else:
            ranked = self._query(
                f"SELECT thread_id FROM checkpoints {where} GROUP BY thread_id "
                f"ORDER BY {_THREAD_ORDER[sort]} LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
        ids = [r[0] for r in ranked]
        if not ids:
            return []
        match, params = f"thread_id IN ({in_clause(ids)})", ids
        rows = {r[0]: r for r in self._query(
            f"""SELECT thread_id, count(*), max(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END) AS checkpoint_id,
                       sum({OWN_BYTES}), count(DISTINCT checkpoint_ns), max(checkpoint_id)
                FROM checkpoints WHERE {match} GROUP BY thread_id""",
            params,
        )}
        return thread_summaries([rows[tid] for tid in ids if tid in rows], self._writes_bytes_by_thread(ids),
                                self._titles(ids))

    def _writes_bytes_by_thread(self, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        rows = self._query(f"SELECT thread_id, sum(length(value)) FROM writes WHERE thread_id IN ({in_clause(ids)}) "
                           "GROUP BY thread_id", ids)
        return {tid: total or 0 for tid, total in rows}

    def _titles(self, ids: list[str] | None) -> dict[str, str]:
        """The newest ``title`` each thread's tasks wrote (of ``ids``; None: every thread): a small write,
        not a state blob."""
        if ids is not None and not ids:
            return {}
        among, params = "", []
        if ids is not None:
            among, params = f"AND thread_id IN ({in_clause(ids)})", list(ids)
        rows = self._query(
            f"""
            SELECT w.thread_id, w.type, w.value FROM writes w
            JOIN (SELECT thread_id, max(checkpoint_id) AS cid FROM writes
                  WHERE channel = 'title' AND checkpoint_ns = '' {among}
                  GROUP BY thread_id) newest
              ON w.thread_id = newest.thread_id AND w.checkpoint_id = newest.cid
            WHERE w.channel = 'title' AND w.checkpoint_ns = ''
            """,
            params,
        )
        return titles_from(rows)

    def newest_state_sizes(self, threshold: int) -> NewestStateSizes:
        return summarize(self._query(SQLITE_NEWEST_STATES), threshold)

    def thread_titles(self) -> dict[str, str]:
        return self._titles(None)

    def checkpoint_id_threads(self, search: str) -> set[str]:
        rows = self._query("SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_id LIKE ? ESCAPE '\\'",
                           [like_pattern(search)])
        return {r[0] for r in rows}

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        rows = self._query(_BRANCH_ROOTS, [f'"{BRANCH_PARENT_KEY}"'.encode()])
        found = (branch_of(tid, metadata(raw)) for tid, raw in rows)
        return sorted_branches(b for b in found if b is not None and b.parent_thread_id == thread_id)
