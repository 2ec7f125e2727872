"""Listing and ranking the threads of a SQLite store, and the branches DeerFlow records between them.

Rankings and summaries come from keys, lengths and small ``title`` writes; no state blob is read.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..model import BRANCH_PARENT_KEY, BranchThread, StoreTotals, WriteKey, branch_of, sorted_branches
from ..records import like_pattern, newest_writes_from, titles_from
from ..sql_threads import SqlThreads
from ..state_sizes import SQLITE_NEWEST_STATES
from .queries import OWN_BYTES, in_clause, metadata

# A page of threads ranked by stored bytes: each checkpoint row's lengths and its writes' values.
_RANK_STORED = f"""
    SELECT c.thread_id
    FROM (SELECT thread_id, sum({OWN_BYTES}) AS own FROM checkpoints {{where}} GROUP BY thread_id) c
    LEFT JOIN (SELECT thread_id, sum(length(value)) AS n FROM writes GROUP BY thread_id) w
      ON w.thread_id = c.thread_id
    ORDER BY c.own + coalesce(w.n, 0) DESC, c.thread_id
    LIMIT ? OFFSET ?
"""

# Each thread's first root checkpoint (uuid6 ids sort by time), found on the primary key's index, whose
# metadata mentions the branch key; the value is compared after decoding. No state blob is read.
_BRANCH_ROOTS = """
    SELECT c.thread_id, c.metadata FROM checkpoints c
    JOIN (SELECT thread_id, min(checkpoint_id) AS cid FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) first
      ON c.thread_id = first.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = first.cid
    WHERE instr(CAST(c.metadata AS BLOB), ?) > 0
"""


# A checkpoint the thread search matches on: its thread id or its stored metadata holds the text.
_SEARCHED = ("thread_id", "CAST(metadata AS TEXT)")


def _holding(columns: tuple[str, ...], search: str) -> tuple[str, list[Any]]:
    """SQL (and its parameters): one of ``columns`` holds ``search``, a plain substring, ASCII letters in any case.
    LIKE reads its pattern up to a NUL, so a search holding one is compared by ``instr`` instead."""
    if "\x00" in search:
        return "(" + " OR ".join(f"instr(lower({c}), lower(?)) > 0" for c in columns) + ")", [search] * len(columns)
    like = like_pattern(search)
    return "(" + " OR ".join(f"{c} LIKE ? ESCAPE '\\'" for c in columns) + ")", [like] * len(columns)


class SqliteThreads(SqlThreads):
    """Thread listing, totals and branches (a mixin of ``SqliteStore``: needs ``_query``)."""

    RANK_STORED = _RANK_STORED
    THREAD_COLUMNS = f"""thread_id, count(*), max(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END) AS checkpoint_id,
        sum({OWN_BYTES}), count(DISTINCT checkpoint_ns), max(checkpoint_id)"""
    NEWEST_STATES = SQLITE_NEWEST_STATES

    def _among(self, ids: Sequence[str]) -> tuple[str, list[Any]]:
        return (f"thread_id IN ({in_clause(list(ids))})" if ids else "0"), list(ids)

    def _search_condition(self, search: str) -> tuple[str, list[Any]]:
        matches, matched = _holding(_SEARCHED, search)
        return f"thread_id IN (SELECT DISTINCT thread_id FROM checkpoints WHERE {matches})", matched

    def newest_write_keys(self, thread_ids: Sequence[str] | None = None) -> dict[str, tuple[str, list[WriteKey]]]:
        if thread_ids is not None and not thread_ids:
            return {}
        among, params, join = self._newest_among(thread_ids)
        task_path = "w.task_path" if self._writes_have_task_path else "''"
        rows = self._query(
            f"""SELECT n.thread_id, n.cid AS checkpoint_id, w.task_id, {task_path}, w.idx, w.channel, length(w.value)
                FROM (SELECT thread_id, max(checkpoint_id) AS cid FROM checkpoints WHERE checkpoint_ns = '' {among}
                      GROUP BY thread_id) n
                {join} writes w ON w.thread_id = n.thread_id AND w.checkpoint_ns = '' AND w.checkpoint_id = n.cid
                ORDER BY n.thread_id, {task_path}, w.task_id, w.idx""", params)
        return newest_writes_from(rows)

    def search_metadata(self, search: str, thread_ids: Sequence[str] | None = None,
                        newest_only: bool = False) -> list[tuple[str, dict[str, Any]]]:
        if thread_ids is not None and not thread_ids:
            return []
        where, params = _holding(_SEARCHED, search)
        if thread_ids is not None:
            among, ids = self._among(thread_ids)
            where, params = f"{where} AND {among}", params + ids
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

    def _side_bytes_by_thread(self, ids: list[str]) -> dict[str, int]:
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

    def id_threads(self, search: str) -> set[str]:
        where, params = _holding(("thread_id", "checkpoint_id"), search)
        rows = self._query(f"SELECT DISTINCT thread_id FROM checkpoints WHERE {where}", params)
        return {r[0] for r in rows}

    def checkpoint_id_threads(self, search: str) -> set[str]:
        where, params = _holding(("checkpoint_id",), search)
        rows = self._query(f"SELECT DISTINCT thread_id FROM checkpoints WHERE {where}", params)
        return {r[0] for r in rows}

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        rows = self._query(_BRANCH_ROOTS, [f'"{BRANCH_PARENT_KEY}"'.encode()])
        found = (branch_of(tid, metadata(raw)) for tid, raw in rows)
        return sorted_branches(b for b in found if b is not None and b.parent_thread_id == thread_id)
