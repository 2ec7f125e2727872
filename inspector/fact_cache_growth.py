"""The analysis cache's growth tables: each thread's stored bytes per day, channel and part, as a store
held them when they were last read whole (``operations.growth_summaries``), and the greatest uuid6 id
the store held then (the cut: a thread holding an id past it was written since).

A mixin of ``fact_cache.SqlFactCache``: both backends run the same SQL over their own two tables
(``GROWTH_ROWS``, ``GROWTH_CUTS``), so a second dashboard process, or the next CLI run, sums these rows
in the cache's database instead of dating the store's rows again. Ids and channel names are stored as
``not_utf8.token`` (valid text whatever bytes they hold). Rows are replaced per store, whole, and are
lengths and counts only: no value from the data.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .store.not_utf8 import from_token, token

GROWTH_SCHEMA = (  # {rows}: per thread; {cells}: all threads summed (r: rows summed); {days}: per thread and day
    """CREATE TABLE IF NOT EXISTS {rows} (
        store TEXT NOT NULL, thread TEXT NOT NULL, day BIGINT, channel TEXT, part TEXT NOT NULL,
        k BIGINT NOT NULL, n BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS {rows}_by_thread ON {rows} (store, thread)",
    """CREATE TABLE IF NOT EXISTS {cells} (
        store TEXT NOT NULL, day BIGINT, channel TEXT, part TEXT NOT NULL, r BIGINT NOT NULL, k BIGINT NOT NULL,
        n BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS {cells}_by_store ON {cells} (store)",
    """CREATE TABLE IF NOT EXISTS {days} (
        store TEXT NOT NULL, thread TEXT NOT NULL, day BIGINT NOT NULL, k BIGINT NOT NULL, n BIGINT NOT NULL,
        PRIMARY KEY (store, thread, day)){without_rowid}""",
    "CREATE TABLE IF NOT EXISTS {cuts} (store TEXT PRIMARY KEY, cut TEXT NOT NULL, threads BIGINT NOT NULL)",
)
RANK_AHEAD = 64  # threads ranked past the top, so that ties with the last are seen without a second query


class Cell(NamedTuple):
    rows: int  # per-thread rows summed
    day: int | None
    channel: Any
    part: str
    checkpoints: int
    bytes: int


class GrowthTables:
    """Per-thread growth rows of each store (see the module's docstring)."""

    GROWTH_ROWS = GROWTH_CELLS = GROWTH_DAYS = GROWTH_CUTS = UPSERT_CUT = ""
    MARK = ""

    def _run(self, action: Any) -> Any:  # provided by the backend
        raise NotImplementedError

    def _transaction(self, conn: Any) -> Any:  # provided by the backend
        raise NotImplementedError

    def _threads_match(self, tokens: list[str], negate: bool) -> tuple[str, list[Any]]:
        """A condition on ``thread``: among ``tokens`` (or, ``negate``, not among them)."""
        raise NotImplementedError

    def _execute_many(self, conn: Any, sql: str, rows: list[tuple]) -> None:
        conn.executemany(sql, rows)

    def growth_cut(self, store: str) -> tuple[str, int] | None:
        """The cut of the store's rows (the greatest uuid6 id it held when they were read) and how many
        threads they hold; None when the cache holds none."""
        m = self.MARK
        found = self._run(lambda conn: conn.execute(
            f"SELECT cut, threads FROM {self.GROWTH_CUTS} WHERE store = {m}", [store]).fetchone())
        return None if found is None else (from_token(found[0]), int(found[1]))

    def replace_growth_rows(self, store: str, cut: str, rows: list[tuple]) -> None:
        """The store's rows ``(day, thread, channel, part, checkpoints, bytes)`` and cut, replacing what was held."""
        m = self.MARK
        packed = [(store, token(thread), day, token(channel), part, k, n) for day, thread, channel, part, k, n in rows]
        threads = len({r[1] for r in packed})

        def write(conn: Any) -> None:
            with self._transaction(conn):
                for table in (self.GROWTH_ROWS, self.GROWTH_CELLS, self.GROWTH_DAYS):
                    conn.execute(f"DELETE FROM {table} WHERE store = {m}", [store])
                self._execute_many(conn, f"INSERT INTO {self.GROWTH_ROWS} VALUES ({', '.join([m] * 7)})", packed)
                conn.execute(f"INSERT INTO {self.GROWTH_CELLS} SELECT store, day, channel, part, count(*), sum(k), "
                             f"sum(n) FROM {self.GROWTH_ROWS} WHERE store = {m} GROUP BY store, day, channel, part",
                             [store])
                conn.execute(f"INSERT INTO {self.GROWTH_DAYS} SELECT store, thread, day, sum(k), sum(n) "
                             f"FROM {self.GROWTH_ROWS} WHERE store = {m} AND day IS NOT NULL "
                             "GROUP BY store, thread, day", [store])
                conn.execute(self.UPSERT_CUT, [store, token(cut), threads])

        self._run(write)

    def _not_live(self, live: list[Any]) -> tuple[str, list[Any]]:
        if not live:
            return "", []
        sql, params = self._threads_match([token(t) for t in live], negate=True)
        return f" AND {sql}", params

    def growth_cells(self, store: str, live: list[Any]) -> list[Cell]:
        """The held rows of every thread but ``live``, summed per day (None: not dated), channel and part."""
        m = self.MARK

        def read(conn: Any) -> tuple[list, list]:
            every = conn.execute(f"SELECT r, day, channel, part, k, n FROM {self.GROWTH_CELLS} WHERE store = {m}",
                                 [store]).fetchall()
            if not live:
                return every, []
            among, params = self._threads_match([token(t) for t in live], negate=False)
            gone = conn.execute(f"SELECT count(*), day, channel, part, sum(k), sum(n) FROM {self.GROWTH_ROWS} "
                                f"WHERE store = {m} AND {among} GROUP BY day, channel, part", [store, *params]).fetchall()
            return every, gone

        every, gone = self._run(read)
        cells = {(day, channel, part): [int(r), int(k), int(n)] for r, day, channel, part, k, n in every}
        for r, day, channel, part, k, n in gone:
            cell = cells.setdefault((day, channel, part), [0, 0, 0])  # never missing, unless the rows were changed
            cell[0] -= int(r)
            cell[1] -= int(k)
            cell[2] -= int(n)
        return [Cell(r, None if day is None else int(day), from_token(channel), part, k, n)
                for (day, channel, part), (r, k, n) in cells.items() if r > 0]

    def growth_top_threads(self, store: str, live: list[Any], since: int | None, top: int) -> list[tuple[Any, int, int]]:
        """The held threads (not ``live``) that stored most in the window: the ``top`` largest and every thread
        tied with the last of them, as ``(thread, checkpoints, bytes)``."""
        m = self.MARK
        among, params = self._not_live(live)
        window = "" if since is None else f" AND day >= {int(since)}"
        grouped = (f"SELECT thread, sum(k) AS k, sum(n) AS n FROM {self.GROWTH_DAYS} WHERE store = {m}{window}"
                   f"{among} GROUP BY thread")

        def read(conn: Any) -> list[tuple]:
            ahead = conn.execute(f"{grouped} ORDER BY n DESC LIMIT {int(top) + RANK_AHEAD}", [store, *params]).fetchall()
            if len(ahead) < top + RANK_AHEAD or ahead[top - 1][2] > ahead[-1][2]:
                return ahead
            return conn.execute(f"SELECT thread, k, n FROM ({grouped}) g WHERE n >= {m}",
                                [store, *params, ahead[top - 1][2]]).fetchall()

        return [(from_token(thread), int(k), int(n)) for thread, k, n in self._run(read)]

    def growth_thread_cells(self, store: str, threads: list[Any] | None, since: int | None) -> list[tuple]:
        """The held rows of ``threads`` (None: every thread) in the window, per day, thread and part:
        ``(day, thread, part, k, n)``."""
        if threads is not None and not threads:
            return []
        m = self.MARK
        among, params = ("", []) if threads is None else self._threads_match([token(t) for t in threads], negate=False)
        window = "day IS NOT NULL" if since is None else f"day >= {int(since)}"
        found = self._run(lambda conn: conn.execute(
            f"SELECT day, thread, part, sum(k), sum(n) FROM {self.GROWTH_ROWS} WHERE store = {m} AND {window} "
            f"{'AND ' + among if among else ''} GROUP BY day, thread, part", [store, *params]).fetchall())
        return [(int(day), from_token(thread), part, int(k), int(n)) for day, thread, part, k, n in found]
