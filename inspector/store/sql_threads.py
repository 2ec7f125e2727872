"""The thread listing's steps every SQL backend shares: counting, heads, ranking a page and summing it up.

A backend (``sqlite/threads``, ``postgres/threads``) supplies its dialect: ``_search_condition`` (which checkpoints
the thread search matches), ``_among`` (a ``thread_id`` list as a condition), ``RANK_STORED``
(a page of threads ranked by stored bytes: ``{where}`` the filter, the limit and offset its last two
parameters), ``THREAD_COLUMNS`` (a thread's summary row), ``NEWEST_STATES`` (see ``state_sizes``),
``_side_bytes_by_thread`` (bytes stored beside the checkpoint rows) and ``_titles``. Rankings come from keys
and lengths; no state blob is read.
"""

from __future__ import annotations

from typing import Any, Sequence

from .model import THREAD_SORTS, StoreError, ThreadHeads, ThreadSummary
from .records import thread_summaries
from .sql_reading import SqlDialect
from .state_sizes import NewestStateSizes, summarize

THREAD_ORDER = {
    "newest": "max(checkpoint_id) DESC, thread_id",
    "checkpoints": "count(*) DESC, max(checkpoint_id) DESC, thread_id",
}


class SqlThreads(SqlDialect):
    """``count_threads``, ``thread_heads``, ``threads``, ``thread_titles`` and ``newest_state_sizes`` over SQL."""

    RANK_STORED = ""
    THREAD_COLUMNS = ""
    NEWEST_STATES = ""

    def _among(self, ids: Sequence[str]) -> tuple[str, list[Any]]:
        raise NotImplementedError

    def _side_bytes_by_thread(self, ids: list[str]) -> dict[str, int]:
        raise NotImplementedError

    def _titles(self, ids: list[str] | None) -> dict[str, str]:
        raise NotImplementedError

    def _holds_text(self, text: str) -> bool:
        """Whether the store's text columns can hold ``text`` at all."""
        return True

    def _search_condition(self, search: str) -> tuple[str, list[Any]]:
        raise NotImplementedError

    def _thread_filter(self, search: str | None, only: Sequence[str] | None = None) -> tuple[str, list[Any]]:
        """The thread search (``search``: a thread id or metadata holds it) and ``only`` as a ``WHERE``."""
        conditions, params = [], []
        if search:
            condition, matched = self._search_condition(search)
            conditions.append(condition)
            params += matched
        if only is not None:
            among, ids = self._among(only)
            conditions.append(among)
            params += ids
        return (f"WHERE {' AND '.join(conditions)}" if conditions else ""), params

    def _newest_among(self, thread_ids: Sequence[str] | None) -> tuple[str, list[Any], str]:
        """How ``newest_write_keys`` narrows to ``thread_ids``: a condition, its parameters and the join of
        the writes (None: the threads whose newest checkpoint has writes)."""
        if thread_ids is None:
            return "", [], "JOIN"
        among, params = self._among(thread_ids)
        return f"AND {among}", params, "LEFT JOIN"

    def count_threads(self, search: str | None = None, only: Sequence[str] | None = None) -> int:
        where, params = self._thread_filter(search, only)
        return self._query(f"SELECT count(DISTINCT thread_id) FROM checkpoints {where}", params)[0][0]

    def thread_heads(self, since: str | None = None) -> ThreadHeads:
        among, params = (f"WHERE thread_id IN (SELECT DISTINCT thread_id FROM checkpoints WHERE checkpoint_id > {self.MARK})",
                         [since]) if since is not None and self._holds_text(since) else ("", [])
        rows = self._query(f"""SELECT 0, NULL AS thread_id, max(checkpoint_id) AS checkpoint_id, count(*) FROM checkpoints
                               UNION ALL
                               SELECT 1, thread_id, max(checkpoint_id), count(*) FROM checkpoints {among}
                               GROUP BY thread_id""", params)
        store = next(r for r in rows if r[0] == 0)
        return ThreadHeads({tid: (head, int(n)) for kind, tid, head, n in rows if kind == 1}, store[2], int(store[3]))

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest", only: Sequence[str] | None = None) -> list[ThreadSummary]:
        """The page's threads are ranked first (newest and most checkpoints from keys alone, stored bytes
        from every row's and blob's length), then only their summaries are computed."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        where, params = self._thread_filter(search, only)
        sql = self.RANK_STORED.replace("{where}", where) if sort == "stored" else (
            f"SELECT thread_id FROM checkpoints {where} GROUP BY thread_id "
            f"ORDER BY {THREAD_ORDER[sort]} LIMIT {self.MARK} OFFSET {self.MARK}")
        ids = [r[0] for r in self._query(sql, [*params, limit, offset])]
        if not ids:
            return []
        among, params = self._among(ids)
        rows = {r[0]: r for r in self._query(
            f"SELECT {self.THREAD_COLUMNS} FROM checkpoints WHERE {among} GROUP BY thread_id", params)}
        return thread_summaries([rows[tid] for tid in ids if tid in rows], self._side_bytes_by_thread(ids),
                                self._titles(ids))

    def thread_titles(self) -> dict[str, str]:
        return self._titles(None)

    def newest_state_sizes(self, threshold: int) -> NewestStateSizes:
        return summarize(self._query(self.NEWEST_STATES), threshold)
