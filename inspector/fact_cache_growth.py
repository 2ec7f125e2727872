"""The analysis cache's growth tables: each thread's stored bytes per day, channel and part, as a store
held them when they were last read whole (``operations.growth_summaries``), and the greatest uuid6 id
the store held then (the cut: a thread holding an id past it was written since).

A mixin of ``fact_cache.SqlFactCache``: both backends run the same SQL over their own three tables, so a
second dashboard process, or the next CLI run, sums these rows in the cache's database instead of dating
the store's rows again. ``GROWTH_DAYS``: one row per thread and day (its checkpoints and bytes, and the
day's channels and parts packed as msgpack); ``GROWTH_CELLS``: every thread's rows summed per day, channel
and part; ``GROWTH_CUTS``: the cut. Ids and channel names are stored as ``not_utf8.token`` (valid text
whatever bytes they hold). Rows are replaced per store, whole, and are lengths and counts only: no value
from the data. Rows that do not read back as written raise ``WrongShape`` (the caller reads the store instead).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import msgpack

from .fact_fingerprints import WrongShape
from .store.not_utf8 import TOKEN_PREFIX, from_token, token


def unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, use_list=True)


def _read(convert: Any, rows: Any) -> Any:
    """``convert(rows)``, or ``WrongShape`` when the rows are not what this module writes."""
    try:
        return convert(rows)
    except Exception as exc:
        raise WrongShape(f"growth rows that do not read back ({type(exc).__name__})") from None

GROWTH_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS {days} (
        store TEXT NOT NULL, thread TEXT NOT NULL, day BIGINT NOT NULL, k BIGINT NOT NULL, n BIGINT NOT NULL,
        detail {blob} NOT NULL, PRIMARY KEY (store, thread, day)){without_rowid}""",
    """CREATE TABLE IF NOT EXISTS {cells} (
        store TEXT NOT NULL, day BIGINT, channel TEXT, part TEXT NOT NULL, r BIGINT NOT NULL, k BIGINT NOT NULL,
        n BIGINT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS {cells}_by_store ON {cells} (store)",
    "CREATE TABLE IF NOT EXISTS {cuts} (store TEXT PRIMARY KEY, cut TEXT NOT NULL, threads BIGINT NOT NULL)",
)
RANK_AHEAD = 64  # threads ranked past the top, so that ties with the last are seen without a second query
UNTIMED = -(1 << 62)  # the day of a thread's rows that carry no time


class Cell(NamedTuple):
    rows: int  # per-thread rows summed
    day: int | None
    channel: Any
    part: str
    checkpoints: int
    bytes: int


class GrowthTables:
    """Per-thread growth rows of each store (see the module's docstring)."""

    GROWTH_CELLS = GROWTH_DAYS = GROWTH_CUTS = UPSERT_CUT = ""
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
        return None if found is None else _read(lambda f: (from_token(f[0]), int(f[1])), found)

    def replace_growth_rows(self, store: str, cut: str, rows: list[tuple]) -> None:
        """The store's rows ``(day, thread, channel, part, checkpoints, bytes)`` (day None: not dated) and cut,
        replacing what was held."""
        m = self.MARK
        days: dict[tuple, list] = {}
        cells: dict[tuple, list[int]] = {}
        for day, thread, channel, part, k, n in rows:
            channel = _token(channel)
            entry = days.setdefault((_token(thread), UNTIMED if day is None else day), [0, 0, []])
            entry[0] += k
            entry[1] += n
            entry[2].append((channel, part, k, n))
            cell = cells.setdefault((day, channel, part), [0, 0, 0])
            cell[0] += 1
            cell[1] += k
            cell[2] += n
        packer = msgpack.Packer(use_bin_type=True)
        day_rows = [(store, thread, day, k, n, packer.pack(detail)) for (thread, day), (k, n, detail) in days.items()]
        cell_rows = [(store, day, channel, part, r, k, n) for (day, channel, part), (r, k, n) in cells.items()]
        threads = len({thread for thread, _ in days})

        def write(conn: Any) -> None:
            with self._transaction(conn):
                for table in (self.GROWTH_DAYS, self.GROWTH_CELLS):
                    conn.execute(f"DELETE FROM {table} WHERE store = {m}", [store])
                self._execute_many(conn, f"INSERT INTO {self.GROWTH_DAYS} VALUES ({', '.join([m] * 6)})", day_rows)
                self._execute_many(conn, f"INSERT INTO {self.GROWTH_CELLS} VALUES ({', '.join([m] * 7)})", cell_rows)
                conn.execute(self.UPSERT_CUT, [store, token(cut), threads])

        self._run(write)

    def _not_live(self, live: list[Any]) -> tuple[str, list[Any]]:
        if not live:
            return "", []
        sql, params = self._threads_match([token(t) for t in live], negate=True)
        return f" AND {sql}", params

    def _details(self, conn: Any, store: str, threads: list[Any] | None, window: str) -> list[tuple]:
        """``(day, thread, channel, part, k, n)`` of the held rows of ``threads`` (None: every thread)."""
        m = self.MARK
        among, params = ("", []) if threads is None else self._threads_match([token(t) for t in threads], False)
        found = conn.execute(f"SELECT day, thread, detail FROM {self.GROWTH_DAYS} WHERE store = {m} AND {window}"
                             f"{' AND ' + among if among else ''}", [store, *params]).fetchall()
        return _read(lambda rows: [(day, thread, channel, part, int(k), int(n)) for day, thread, detail in rows
                                   for channel, part, k, n in unpack(bytes(detail))], found)

    def growth_cells(self, store: str, live: list[Any]) -> list[Cell]:
        """The held rows of every thread but ``live``, summed per day (None: not dated), channel and part."""
        m = self.MARK

        def read(conn: Any) -> tuple[list, list]:
            every = conn.execute(f"SELECT r, day, channel, part, k, n FROM {self.GROWTH_CELLS} WHERE store = {m}",
                                 [store]).fetchall()
            return every, (self._details(conn, store, live, "1 = 1") if live else [])

        every, gone = self._run(read)
        cells = _read(lambda rows: {(day, channel, part): [int(r), int(k), int(n)] for r, day, channel, part, k, n in rows},
                      every)
        for day, _, channel, part, k, n in gone:
            cell = cells.setdefault((None if day == UNTIMED else day, channel, part), [0, 0, 0])  # never missing
            cell[0] -= 1
            cell[1] -= int(k)
            cell[2] -= int(n)
        return _read(lambda held: [Cell(r, None if day is None else int(day), from_token(channel), part, k, n)
                                   for (day, channel, part), (r, k, n) in held.items() if r > 0], cells)

    def growth_top_threads(self, store: str, live: list[Any], since: int | None, top: int) -> list[tuple[Any, int, int]]:
        """The held threads (not ``live``) that stored most in the window: the ``top`` largest and every thread
        tied with the last of them, as ``(thread, checkpoints, bytes)``."""
        m = self.MARK
        among, params = self._not_live(live)
        grouped = (f"SELECT thread, sum(k) AS k, sum(n) AS n FROM {self.GROWTH_DAYS} WHERE store = {m} "
                   f"AND {_window(since)}{among} GROUP BY thread")

        def read(conn: Any) -> list[tuple]:
            ahead = conn.execute(f"{grouped} ORDER BY n DESC LIMIT {int(top) + RANK_AHEAD}", [store, *params]).fetchall()
            if len(ahead) < top + RANK_AHEAD or ahead[top - 1][2] > ahead[-1][2]:
                return ahead
            return conn.execute(f"SELECT thread, k, n FROM ({grouped}) g WHERE n >= {m}",
                                [store, *params, ahead[top - 1][2]]).fetchall()

        return _read(lambda rows: [(from_token(thread), int(k), int(n)) for thread, k, n in rows], self._run(read))

    def growth_thread_cells(self, store: str, threads: list[Any] | None, since: int | None) -> list[tuple]:
        """The held rows of ``threads`` (None: every thread) in the window, per day, thread and part:
        ``(day, thread, part, k, n)``."""
        if threads is not None and not threads:
            return []
        summed: dict[tuple, list[int]] = {}
        for day, thread, _, part, k, n in self._run(lambda conn: self._details(conn, store, threads, _window(since))):
            entry = summed.setdefault(_read(lambda d: (int(d[0]), from_token(d[1]), d[2]), (day, thread, part)), [0, 0])
            entry[0] += k
            entry[1] += n
        return [(day, thread, part, k, n) for (day, thread, part), (k, n) in summed.items()]


def _token(text: Any) -> str:
    """``token``, at the cost of two checks for the plain ASCII ids nearly every store holds."""
    if type(text) is str and text.isascii() and not text.startswith(TOKEN_PREFIX):
        return text
    return token(text)


def _window(since: int | None) -> str:
    """The dated days from ``since`` (None: every dated day)."""
    return f"day > {UNTIMED}" if since is None else f"day >= {int(since)}"
