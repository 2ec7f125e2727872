"""The analysis cache's search index: each thread's masked texts (``search.texts``) with the checkpoint where
each appears, searched by SQLite's FTS5 in the embedded cache and by PostgreSQL's full-text search where
``cache_url`` points.

Tables (SQLite names; PostgreSQL's start ``inspector_cache_``): ``search_rows`` one row per text (thread,
checkpoint, step, field, kind, origin ``write`` or ``state``, digest, the masked text shown in a snippet);
``search_words`` its words (an FTS5 table without content of its own, rowid = the row's id; in PostgreSQL a
``tsvector`` column of the row, under a GIN index); ``search_threads`` what each thread was indexed up to (its
newest checkpoint id, its checkpoint rows, the newest root checkpoint whose writes were read);
``search_cuts`` per store: the greatest checkpoint id and the checkpoint rows the store held when the index
was last brought up to date, when it was last searched and its bytes. Ids are kept as ``not_utf8.token``.

Nothing here holds a secret's text, length or hash: texts are masked before they reach this module, their
marks bare, and the words searched leave the marks out. A store's index is kept whole: past ``cache_max_mb``
the facts go first (``facts``), then the indexes of the stores searched least recently.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any

from ..store.not_utf8 import from_token, token
from .fingerprints import WrongShape

_WORD = re.compile(r"[^\W_]+")
_MARK = re.compile(r"\[redacted [a-z0-9 -]{1,40}\]")


def words(shown: str) -> str:
    """The searched words of a kept text: lower-cased runs of letters and digits, marks left out (so neither a
    secret's mark nor its kind can be searched for)."""
    return " ".join(_WORD.findall(_MARK.sub(" ", shown))).lower()


# How much a hit in each kind of text weighs in a thread's rank (the best hit of a thread ranks it), and how much
# more a text holding the search as it was typed (``harbor-inspection.pdf``, not only its words) weighs.
WEIGHTS = {"title": 3.0, "file": 2.0, "tool call": 1.5}
AS_TYPED = 3.0
USED_SECONDS = 60.0  # how stale a store's "last searched" (what eviction orders by) may be
_WEIGHT_SQL = "(CASE r.kind " + " ".join(f"WHEN '{k}' THEN {w}" for k, w in WEIGHTS.items()) + " ELSE 1.0 END)"

SQLITE_SEARCH_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS search_rows (
        id INTEGER PRIMARY KEY, store TEXT NOT NULL, thread TEXT NOT NULL, checkpoint TEXT NOT NULL, step INTEGER,
        field TEXT NOT NULL, kind TEXT NOT NULL, origin TEXT NOT NULL, digest TEXT NOT NULL, shown TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS search_rows_by_thread ON search_rows (store, thread, origin)",
    "CREATE VIRTUAL TABLE IF NOT EXISTS search_words USING fts5(words, content='', "
    "tokenize='unicode61 remove_diacritics 2')",
    """CREATE TABLE IF NOT EXISTS search_threads (
        store TEXT NOT NULL, thread TEXT NOT NULL, head TEXT NOT NULL, rows INTEGER NOT NULL, upto TEXT,
        bytes INTEGER NOT NULL, PRIMARY KEY (store, thread)) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS search_cuts (
        store TEXT PRIMARY KEY, cut TEXT, rows INTEGER NOT NULL, used REAL NOT NULL)""",
)
POSTGRES_SEARCH_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS inspector_cache_search_rows (
        id BIGSERIAL PRIMARY KEY, store TEXT NOT NULL, thread TEXT NOT NULL, checkpoint TEXT NOT NULL, step BIGINT,
        field TEXT NOT NULL, kind TEXT NOT NULL, origin TEXT NOT NULL, digest TEXT NOT NULL, shown TEXT NOT NULL,
        words TSVECTOR NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS inspector_cache_search_rows_by_thread ON inspector_cache_search_rows (store, thread, origin)",
    "CREATE INDEX IF NOT EXISTS inspector_cache_search_rows_words ON inspector_cache_search_rows USING GIN (words)",
    """CREATE TABLE IF NOT EXISTS inspector_cache_search_threads (
        store TEXT NOT NULL, thread TEXT NOT NULL, head TEXT NOT NULL, rows BIGINT NOT NULL, upto TEXT,
        bytes BIGINT NOT NULL, PRIMARY KEY (store, thread))""",
    """CREATE TABLE IF NOT EXISTS inspector_cache_search_cuts (
        store TEXT PRIMARY KEY, cut TEXT, rows BIGINT NOT NULL, used DOUBLE PRECISION NOT NULL)""",
)


@dataclass(frozen=True)
class IndexRow:
    """One text of a thread as the index keeps it."""

    checkpoint: str
    step: int | None
    field: str
    kind: str
    origin: str  # ``write`` (read from the step's writes) or ``state`` (from the newest root state)
    digest: str
    shown: str  # masked


@dataclass(frozen=True)
class Indexed:
    """What a thread was indexed up to."""

    head: str  # its newest checkpoint id, any namespace
    rows: int  # its checkpoint rows
    upto: str | None  # the newest root checkpoint whose writes were read (its own, still pending, were not)


@dataclass(frozen=True)
class IndexHit:
    """A thread's best hit: its score (lower ranks first) and the row."""

    thread: str
    score: float
    ns: str
    row: IndexRow


def _row_bytes(row: IndexRow) -> int:
    return len(row.shown.encode("utf-8")) * 2 + 96  # the text, its words, the keys


class SearchTables:
    """The search index of each store (see the module's docstring): the SQL both backends share; the dialect
    (``_insert_rows``, ``_delete_rows``, ``_match``) is each backend's."""

    SEARCH_ROWS = SEARCH_THREADS = SEARCH_CUTS = ""
    MARK = ""
    _UNFLATTENED = ""  # what keeps a subquery a subquery (SQLite's FTS5 scores only outside an aggregate)

    def _run(self, action: Any) -> Any:  # provided by the backend
        raise NotImplementedError

    def _transaction(self, conn: Any) -> Any:  # provided by the backend
        raise NotImplementedError

    def _insert_rows(self, conn: Any, store: str, thread: str, rows: list[IndexRow]) -> None:
        raise NotImplementedError

    def _delete_rows(self, conn: Any, store: str, thread: str, origin: str | None) -> None:
        """Drop a thread's rows (of ``origin`` only, unless None) and their words."""
        raise NotImplementedError

    def _match(self, query: list[str]) -> tuple[str, str, list[Any]]:
        """``(FROM clause, score expression, parameters)`` of the rows ``r`` whose words hold every word of
        ``query`` (each as a word's beginning); a lower score ranks first."""
        raise NotImplementedError

    # -- what a thread and a store were indexed up to ------------------------------------------------
    def search_cut(self, store: str) -> tuple[str | None, int] | None:
        """The store's greatest checkpoint id and its checkpoint rows when its index was last brought up to date
        (None: never indexed)."""
        m = self.MARK
        found = self._run(lambda conn: conn.execute(
            f"SELECT cut, rows FROM {self.SEARCH_CUTS} WHERE store = {m}", [store]).fetchone())
        if found is None:
            return None
        return _read(lambda f: (None if f[0] is None else from_token(f[0]), int(f[1])), found)

    def set_search_cut(self, store: str, cut: str | None, rows: int) -> None:
        m = self.MARK
        self._run(lambda conn: self._upsert_cut(conn, store, None if cut is None else token(cut), rows, m))

    def _upsert_cut(self, conn: Any, store: str, cut: str | None, rows: int, m: str) -> None:
        with self._transaction(conn):
            conn.execute(f"DELETE FROM {self.SEARCH_CUTS} WHERE store = {m}", [store])
            conn.execute(f"INSERT INTO {self.SEARCH_CUTS} VALUES ({m}, {m}, {m}, {m})", [store, cut, rows, time.time()])

    def indexed_threads(self, store: str, threads: list[Any] | None = None) -> dict[Any, Indexed]:
        """What each thread of ``store`` was indexed up to (of ``threads``; None: every thread held)."""
        m = self.MARK
        if threads is not None and not threads:
            return {}

        def read(conn: Any) -> list[tuple]:
            sql = f"SELECT thread, head, rows, upto FROM {self.SEARCH_THREADS} WHERE store = {m}"
            if threads is None:
                return conn.execute(sql, [store]).fetchall()
            found = []
            tokens = [token(t) for t in threads]
            for start in range(0, len(tokens), 400):
                chunk = tokens[start : start + 400]
                found += conn.execute(f"{sql} AND thread IN ({', '.join([m] * len(chunk))})", [store, *chunk]).fetchall()
            return found

        return _read(lambda rows: {from_token(t): Indexed(from_token(h), int(n), None if u is None else from_token(u))
                                   for t, h, n, u in rows}, self._run(read))

    def written_digests(self, store: str, thread: Any) -> set[str]:
        """The digests of the texts read from a thread's writes."""
        m = self.MARK
        rows = self._run(lambda conn: conn.execute(
            f"SELECT digest FROM {self.SEARCH_ROWS} WHERE store = {m} AND thread = {m} AND origin = 'write'",
            [store, token(thread)]).fetchall())
        return {r[0] for r in rows}

    def index_thread(self, store: str, thread: Any, indexed: Indexed, written: list[IndexRow],
                     state: list[IndexRow]) -> int:
        """Add a thread's rows read from new writes and metadata, replace those read from its newest state, and
        note what it was indexed up to: one transaction. Returns about how many bytes the rows added take."""
        m = self.MARK
        tid = token(thread)
        added = sum(_row_bytes(r) for r in (*written, *state))

        def write(conn: Any) -> None:
            with self._transaction(conn):
                self._delete_rows(conn, store, tid, "state")
                self._insert_rows(conn, store, tid, [*written, *state])
                held = conn.execute(f"SELECT bytes FROM {self.SEARCH_THREADS} WHERE store = {m} AND thread = {m}",
                                    [store, tid]).fetchone()
                kept = 0 if held is None else int(held[0])
                conn.execute(f"DELETE FROM {self.SEARCH_THREADS} WHERE store = {m} AND thread = {m}", [store, tid])
                conn.execute(f"INSERT INTO {self.SEARCH_THREADS} VALUES ({', '.join([m] * 6)})",
                             [store, tid, token(indexed.head), indexed.rows,
                              None if indexed.upto is None else token(indexed.upto), kept + added])

        self._run(write)
        return added

    def forget_threads(self, store: str, threads: list[Any]) -> None:
        """Drop the rows of threads the store no longer holds (or that are indexed again from the start)."""
        m = self.MARK

        def write(conn: Any) -> None:
            with self._transaction(conn):
                for thread in threads:
                    tid = token(thread)
                    self._delete_rows(conn, store, tid, None)
                    conn.execute(f"DELETE FROM {self.SEARCH_THREADS} WHERE store = {m} AND thread = {m}", [store, tid])

        if threads:
            self._run(write)

    # -- searching --------------------------------------------------------------------------------
    def _weighed(self, typed: str) -> tuple[str, list[Any]]:
        """A row's weight: its kind's (``WEIGHTS``), ``AS_TYPED`` times more where its text holds ``typed``."""
        return (f"{_WEIGHT_SQL} * (CASE WHEN {self._holds('r.shown')} THEN {AS_TYPED} ELSE 1.0 END)",
                [typed.lower()])

    def _holds(self, column: str) -> str:
        """SQL: the column, lower-cased, holds the parameter (a substring)."""
        raise NotImplementedError

    def search_ranked(self, store: str, query: list[str], typed: str = "",
                      limit: int | None = None) -> list[tuple[Any, float]]:
        """The threads of ``store`` holding every word of ``query`` (as word beginnings) in one text, best
        first: ``(thread, score)``, the score of each thread's best text (its match weighted by ``_weighed``:
        its kind, and whether it holds the search as ``typed``)."""
        if not query:
            return []
        m = self.MARK
        source, score, params = self._match(query)
        weight, weighed = self._weighed(typed)
        limited = f" LIMIT {int(limit)}" if limit is not None else ""

        def read(conn: Any) -> list[tuple]:
            now = time.time()
            used = conn.execute(f"SELECT used FROM {self.SEARCH_CUTS} WHERE store = {m}", [store]).fetchone()
            if used is not None and now - float(used[0]) > USED_SECONDS:  # written at most once a minute
                conn.execute(f"UPDATE {self.SEARCH_CUTS} SET used = {m} WHERE store = {m}", [now, store])
            # (FTS5's rank functions cannot run inside an aggregate: each row's score is read first)
            return conn.execute(
                f"SELECT thread, min(s) AS best FROM (SELECT r.thread AS thread, {score} * {weight} AS s "
                f"FROM {source} AND r.store = {m}{self._UNFLATTENED}) scored GROUP BY thread ORDER BY best, thread{limited}",
                [*weighed, *params, store]).fetchall()

        return _read(lambda rows: [(from_token(t), float(s)) for t, s in rows], self._run(read))

    def search_best(self, store: str, query: list[str], threads: list[Any], typed: str = "") -> dict[Any, IndexHit]:
        """Each of ``threads``' best text holding every word of ``query`` (weighed as ``search_ranked`` weighs)."""
        if not query or not threads:
            return {}
        m = self.MARK
        source, score, params = self._match(query)
        weight, weighed = self._weighed(typed)
        tokens = [token(t) for t in threads]

        def read(conn: Any) -> list[tuple]:
            return conn.execute(
                f"SELECT r.thread, {score} * {weight} AS s, r.checkpoint, r.step, r.field, r.kind, r.origin, "
                f"r.digest, r.shown FROM {source} AND r.store = {m} AND r.thread IN ({', '.join([m] * len(tokens))})",
                [*weighed, *params, store, *tokens]).fetchall()

        best: dict[Any, IndexHit] = {}

        def convert(rows: list[tuple]) -> None:
            for thread, score_value, cid, step, field, kind, origin, digest, shown in rows:
                tid = from_token(thread)
                held = best.get(tid)
                if held is None or float(score_value) < held.score or (
                        float(score_value) == held.score and cid < token(held.row.checkpoint)):
                    best[tid] = IndexHit(tid, float(score_value), "", IndexRow(
                        from_token(cid), None if step is None else int(step), field, kind, origin, digest, shown))

        _read(convert, self._run(read))
        return best

    def search_bytes(self, conn: Any) -> int:
        """Bytes every store's index holds (an estimate kept with each thread's rows)."""
        return int(conn.execute(f"SELECT coalesce(sum(bytes), 0) FROM {self.SEARCH_THREADS}").fetchone()[0])

    def _evict_search(self, conn: Any, total: int, limit: float, keep: str) -> None:
        """Drop whole stores' indexes, searched least recently first, until ``total`` bytes fit ``limit``."""
        m = self.MARK
        sizes = dict(conn.execute(f"SELECT store, sum(bytes) FROM {self.SEARCH_THREADS} GROUP BY store").fetchall())
        for (store,) in conn.execute(f"SELECT store FROM {self.SEARCH_CUTS} ORDER BY used").fetchall():
            if total <= limit:
                break
            if store == keep:
                continue
            for table in (self.SEARCH_THREADS, self.SEARCH_CUTS):
                conn.execute(f"DELETE FROM {table} WHERE store = {m}", [store])
            self._delete_store_rows(conn, store)
            total -= int(sizes.get(store) or 0)

    def _delete_store_rows(self, conn: Any, store: str) -> None:
        raise NotImplementedError


def _read(convert: Any, rows: Any) -> Any:
    try:
        return convert(rows)
    except Exception as exc:
        raise WrongShape(f"search rows that do not read back ({type(exc).__name__})") from None


class SqliteSearch(SearchTables):
    """FTS5 over the embedded cache: the words in a table without content of its own, so a row's words are
    given again (recomputed from its kept text) to delete them."""

    SEARCH_ROWS, SEARCH_THREADS, SEARCH_CUTS = "search_rows", "search_threads", "search_cuts"
    _UNFLATTENED = " LIMIT -1"

    def _insert_rows(self, conn: Any, store: str, thread: str, rows: list[IndexRow]) -> None:
        for row in rows:
            cursor = conn.execute(
                "INSERT INTO search_rows (store, thread, checkpoint, step, field, kind, origin, digest, shown) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [store, thread, token(row.checkpoint), row.step, row.field, row.kind, row.origin, row.digest, row.shown])
            conn.execute("INSERT INTO search_words (rowid, words) VALUES (?, ?)", [cursor.lastrowid, words(row.shown)])

    def _delete_where(self, conn: Any, where: str, params: list[Any]) -> None:
        held = conn.execute(f"SELECT id, shown FROM search_rows WHERE {where}", params).fetchall()
        for rowid, shown in held:
            conn.execute("INSERT INTO search_words (search_words, rowid, words) VALUES ('delete', ?, ?)",
                         [rowid, words(shown)])
        if held:
            conn.execute(f"DELETE FROM search_rows WHERE {where}", params)

    def _delete_rows(self, conn: Any, store: str, thread: str, origin: str | None) -> None:
        where, params = "store = ? AND thread = ?", [store, thread]
        if origin is not None:
            where, params = where + " AND origin = ?", [*params, origin]
        self._delete_where(conn, where, params)

    def _delete_store_rows(self, conn: Any, store: str) -> None:
        self._delete_where(conn, "store = ?", [store])

    def _holds(self, column: str) -> str:
        return f"instr(lower({column}), ?) > 0"

    def _match(self, query: list[str]) -> tuple[str, str, list[Any]]:
        expression = " ".join(f'"{word}"*' for word in query)
        # (CROSS JOIN: SQLite reads the words' matches first, then each row by its id)
        return ("search_words CROSS JOIN search_rows r ON r.id = search_words.rowid WHERE search_words MATCH ?",
                "bm25(search_words)", [expression])


class PostgresSearch(SearchTables):
    """PostgreSQL's full-text search: a ``tsvector`` of each row's words (the ``simple`` configuration: no
    stemming, no stop words, so a word is found as it is written), under a GIN index."""

    SEARCH_ROWS = "inspector_cache_search_rows"
    SEARCH_THREADS, SEARCH_CUTS = "inspector_cache_search_threads", "inspector_cache_search_cuts"

    def _insert_rows(self, conn: Any, store: str, thread: str, rows: list[IndexRow]) -> None:
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO inspector_cache_search_rows (store, thread, checkpoint, step, field, kind, origin, digest, "
                "shown, words) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, to_tsvector('simple', %s))",
                [(store, thread, token(r.checkpoint), r.step, r.field, r.kind, r.origin, r.digest, r.shown,
                  words(r.shown)) for r in rows])

    def _delete_rows(self, conn: Any, store: str, thread: str, origin: str | None) -> None:
        if origin is None:
            conn.execute("DELETE FROM inspector_cache_search_rows WHERE store = %s AND thread = %s", [store, thread])
        else:
            conn.execute("DELETE FROM inspector_cache_search_rows WHERE store = %s AND thread = %s AND origin = %s",
                         [store, thread, origin])

    def _delete_store_rows(self, conn: Any, store: str) -> None:
        conn.execute("DELETE FROM inspector_cache_search_rows WHERE store = %s", [store])

    def _holds(self, column: str) -> str:
        return f"strpos(lower({column}), %s) > 0"

    def _match(self, query: list[str]) -> tuple[str, str, list[Any]]:
        expression = " & ".join(f"{word}:*" for word in query)
        return ("inspector_cache_search_rows r, to_tsquery('simple', %s) q WHERE r.words @@ q",
                "(-ts_rank(r.words, q, 2))", [expression])  # 2: divided by the text's length, as bm25 weighs it
