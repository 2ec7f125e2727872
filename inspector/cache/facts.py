"""What every analysis cache backend offers (``FactCache``), and what they share: the error they raise, how
facts are encoded, and the SQL over their two tables (``SqlFactCache``). Backends: the embedded SQLite
file (``cache.embedded``, the default) and a PostgreSQL database several processes share
(``cache.postgres``, setting ``cache_url``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

import msgpack

from ..store.model import Key
from ..store.not_utf8 import from_token, token
from .fingerprints import FactSealer, Fingerprint, WrongShape
from .growth import GrowthTables
from .search import SearchTables

__all__ = ["CacheError", "FactCache", "Fingerprint", "SqlFactCache", "WrongShape", "pack", "unpack"]


class CacheError(Exception):
    """The cache cannot be used at all (its folder cannot be created, or it would be the store)."""


# Texts in a fact may be ids a hostile store holds (``not_utf8``: lone surrogates for bytes that are not UTF-8, or
# for an id stored as bytes): packed and read back as they are.
def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True, unicode_errors="surrogatepass")


def unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, strict_map_key=False, use_list=True, unicode_errors="surrogatepass")


def stored_keys(thread: str, keys: Iterable[Key]) -> tuple[str, dict[str, list[str]]]:
    """The thread and checkpoint keys as a cache stores them, by namespace: ids that are not UTF-8 (a
    hostile SQLite store's) as their ``not_utf8.token``, which every cache backend can hold as text."""
    by_ns: dict[str, list[str]] = {}
    for ns, cid in keys:
        by_ns.setdefault(token(ns), []).append(token(cid))
    return token(thread), by_ns


def stored_facts(thread: str, facts: dict[Key, Any]) -> tuple[str, list[tuple[str, str, Any]]]:
    """``facts`` as rows (namespace, checkpoint id, value) with ids as ``stored_keys`` writes them."""
    return token(thread), [(token(ns), token(cid), value) for (ns, cid), value in facts.items()]


def holds_masked_text(value: Any, redactor: Any) -> bool:
    """Whether a text of ``value`` (a key, a label, a name; not a ``Fingerprint``) is one the mask would change:
    such a fact is not stored, so no secret that is a name reaches the cache."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if redactor.text(item) != item:
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
    return False


def cache_errors() -> tuple[type[BaseException], ...]:
    """What a cache that cannot be read or written now raises (locked, its server gone, a fact that does not read
    back): whoever uses it goes on without it."""
    import sqlite3

    import psycopg

    return sqlite3.Error, OSError, psycopg.Error, WrongShape


def read_key(ns: str, cid: str) -> Key:
    """A key as a cache stored it, back as the store's ids."""
    return from_token(ns), from_token(cid)


@runtime_checkable
class FactCache(Protocol):
    """Per-checkpoint facts keyed by (store, thread, kind, namespace, checkpoint id).

    The store is named by ``Store.fact_identity()``: where it is and which store is there now (a file
    replaced at the same path, a database or table created again, is another store). Checkpoints never
    change, so a fact is never stale; a backend bounds itself by evicting whole threads, least recently
    used first. A stored fact that does not read back (bytes that are not a fact, a fingerprint sealed
    under another key) is left out of ``get``, as a miss, and dropped; each reader also checks the shape
    of what it gets, and replaces a fact of the wrong shape (``put``'s ``replacing``). ``notice`` is a
    message for the person when the cache had to be rebuilt (None otherwise).
    """

    notice: str | None

    def get(self, store: str, thread: str, kind: str, keys: Iterable[Key]) -> dict[Key, Any]:
        """The facts of ``kind`` stored for ``keys`` (missing keys left out); the thread is marked used."""
        ...

    def put(self, store: str, thread: str, kind: str, facts: dict[Key, Any], replacing: Iterable[Key] = ()) -> None:
        """Store facts (``Fingerprint`` values sealed); a fact already held is kept (it came from the same
        immutable checkpoint), but for the keys in ``replacing`` (held facts a reader found of the wrong
        shape). A fact holding a text the mask would change is not stored."""
        ...

    def stats(self) -> dict[str, int]:
        """``facts``, ``threads`` and ``bytes`` held."""
        ...

    def close(self) -> None: ...


class SqlFactCache(GrowthTables, SearchTables):
    """What both backends do with their two tables, in SQL either database runs: reading facts in chunks,
    storing them (a fact already there is kept), the per-thread byte counts and the eviction of whole
    threads, least recently used first. A backend names its tables and SQL dialect (``FACTS``, ``THREADS``,
    ``MARK``, ``LENGTH``, ``INSERT_FACT``, ``UPSERT_THREAD``), runs actions on its connection (``_run``),
    writes inside a transaction (``_transaction``) and matches a chunk of ids (``_ids_match``). The growth
    tables beside them: ``cache.growth``; the search index: ``cache.search``."""

    FACTS = THREADS = MARK = LENGTH = INSERT_FACT = UPSERT_THREAD = ""
    CHUNK = 400  # ids per query
    SUM_SECONDS = 10.0  # what the cache holds is summed again after this long (see ``_evict``)

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.notice: str | None = None
        self.hits = self.misses = 0  # facts found and keys asked for but not found, in this process
        self.unreadable = 0  # stored facts left out because they did not read back, in this process
        self._key = b""  # the per-cache key sealing fingerprints: set by the backend when it opens
        self._summed: tuple[float, int] | None = None  # (when, bytes) of the last sum of what the cache holds
        self._redactor: Any = None

    def _sealer(self, store: str, thread: str, kind: str, ns: str, cid: str) -> FactSealer:
        return FactSealer(self._key, (store, thread, kind, ns, cid))

    def _masks(self) -> Any:
        if self._redactor is None:
            from ..safety.redaction import redactor_for

            self._redactor = redactor_for()
        return self._redactor

    # -- what a backend provides ------------------------------------------------------------------
    def _run(self, action: Any) -> Any:
        """``action(conn)`` on the backend's connection, recovering the way the backend can."""
        raise NotImplementedError

    def _transaction(self, conn: Any) -> Any:
        """A context manager: the block's statements commit together, or none does."""
        raise NotImplementedError

    def _ids_match(self, ids: list[str]) -> tuple[str, list[Any]]:
        """A condition on ``checkpoint`` matching ``ids``, and its parameters."""
        raise NotImplementedError

    def _lock_eviction(self, conn: Any) -> None:
        """Called before a backend evicts: one process at a time where the facts are shared."""

    def _insert_facts(self, conn: Any, rows: list[tuple]) -> None:
        conn.executemany(self.INSERT_FACT, rows)

    # -- shared -----------------------------------------------------------------------------------
    def __enter__(self) -> "SqlFactCache":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the backend's connection (``_conn``, taken under ``_lock`` like every use of it)."""
        with self._lock:
            self._conn.close()

    def get(self, store: str, thread: str, kind: str, keys: Iterable[Key]) -> dict[Key, Any]:
        """The facts of ``kind`` stored for ``keys`` (missing keys are left out), and the thread marked used."""
        thread, by_ns = stored_keys(thread, keys)
        m = self.MARK

        def read(conn: Any) -> dict[Key, Any]:
            found: dict[Key, Any] = {}
            unreadable: list[tuple[str, str]] = []
            for ns, ids in by_ns.items():
                for start in range(0, len(ids), self.CHUNK):
                    match, params = self._ids_match(ids[start : start + self.CHUNK])
                    rows = conn.execute(
                        f"SELECT checkpoint, value FROM {self.FACTS} WHERE store = {m} AND thread = {m} AND kind = {m} "
                        f"AND ns = {m} AND {match}", [store, thread, kind, ns, *params]).fetchall()
                    for cid, value in rows:
                        try:
                            found[read_key(ns, cid)] = self._sealer(store, thread, kind, ns, cid).unpack(value)
                        except WrongShape:
                            self.unreadable += 1
                            unreadable.append((ns, cid))
            for ns, cid in unreadable:
                conn.execute(f"DELETE FROM {self.FACTS} WHERE store = {m} AND thread = {m} AND kind = {m} AND ns = {m} "
                             f"AND checkpoint = {m}", [store, thread, kind, ns, cid])
            if found:
                conn.execute(f"UPDATE {self.THREADS} SET used = {m} WHERE store = {m} AND thread = {m}",
                             [time.time(), store, thread])
            return found

        found = self._run(read)
        asked = sum(len(ids) for ids in by_ns.values())
        self.hits += len(found)
        self.misses += asked - len(found)
        return found

    def get_many(self, store: str, kind: str, wanted: dict[Any, Key]) -> dict[Any, Any]:
        """One fact of ``kind`` for each of several threads (``thread -> key``), read together (a page of the
        thread list) as ``get_threads`` reads them; missing ones left out."""
        found = self.get_threads(store, kind, [(thread, ns, cid) for thread, (ns, cid) in wanted.items()])
        return {thread: value for (thread, _, _), value in found.items()}

    def get_threads(self, store: str, kind: str, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], Any]:
        """``get`` for many threads at once (a page of the thread list): the facts of ``kind`` held for
        ``(thread, ns, checkpoint id)`` triples, one query per ``CHUNK`` threads, the threads marked used."""
        wanted = {(token(t), token(ns), token(cid)): (t, ns, cid) for t, ns, cid in keys}
        threads = sorted({t for t, _, _ in wanted})
        m = self.MARK

        def read(conn: Any) -> dict[tuple[str, str, str], Any]:
            found: dict[tuple[str, str, str], Any] = {}
            for start in range(0, len(threads), self.CHUNK):
                chunk = threads[start : start + self.CHUNK]
                among, params = self._threads_match(chunk, False)
                rows = conn.execute(f"SELECT thread, ns, checkpoint, value FROM {self.FACTS} WHERE store = {m} "
                                    f"AND kind = {m} AND {among}", [store, kind, *params]).fetchall()
                for t, ns, cid, value in rows:
                    if (t, ns, cid) not in wanted:
                        continue
                    try:
                        found[wanted[(t, ns, cid)]] = self._sealer(store, t, kind, ns, cid).unpack(value)
                    except WrongShape:  # read as a miss; the reader's put replaces it
                        self.unreadable += 1
                used = sorted({key[0] for key, asked in wanted.items() if asked in found} & set(chunk))
                if used:
                    among, params = self._threads_match(used, False)
                    conn.execute(f"UPDATE {self.THREADS} SET used = {m} WHERE store = {m} AND {among}",
                                 [time.time(), store, *params])
            return found

        found = self._run(read) if wanted else {}
        self.hits += len(found)
        self.misses += len(wanted) - len(found)
        return found

    def put(self, store: str, thread: str, kind: str, facts: dict[Key, Any], replacing: Iterable[Key] = ()) -> None:
        """Store facts, ``Fingerprint`` values sealed; a fact already held is kept (it was computed from the same
        immutable checkpoint), but for the keys in ``replacing``: held facts the reader found of the wrong shape.
        A fact holding a text the mask would change (``holds_masked_text``), or that cannot be packed, is not
        stored."""
        masks = self._masks()
        thread, listed = stored_facts(thread, {key: value for key, value in facts.items()
                                               if not holds_masked_text(value, masks)})
        rows = []
        for ns, cid, value in listed:
            try:
                rows.append((store, thread, ns, cid, kind, self._sealer(store, thread, kind, ns, cid).pack(value)))
            except (OverflowError, TypeError, ValueError):  # an integer msgpack cannot hold (a step of 2**64)
                continue
        _, dropped = stored_keys(thread, replacing)
        if not rows and not dropped:
            return
        rows.sort()
        m = self.MARK

        def write(conn: Any) -> None:
            with self._transaction(conn):
                for ns, ids in dropped.items():
                    for cid in ids:
                        conn.execute(f"DELETE FROM {self.FACTS} WHERE store = {m} AND thread = {m} AND kind = {m} "
                                     f"AND ns = {m} AND checkpoint = {m}", [store, thread, kind, ns, cid])
                self._insert_facts(conn, rows)
                size = conn.execute(f"SELECT coalesce(sum({self.LENGTH}(value)), 0) FROM {self.FACTS} "
                                    f"WHERE store = {m} AND thread = {m}", [store, thread]).fetchone()[0]
                conn.execute(self.UPSERT_THREAD, [store, thread, time.time(), size])
                self._evict(conn, keep=(store, thread), added=int(size))

        self._run(write)

    def put_threads(self, store: str, kind: str, facts: dict[tuple[str, str, str], Any]) -> None:
        """``put`` for many threads at once, in one transaction: facts keyed by ``(thread, ns, checkpoint id)``."""
        if not facts:
            return
        masks = self._masks()
        rows = []
        for (t, ns, cid), value in facts.items():
            if holds_masked_text(value, masks):  # as ``put``: a text the mask would change is not kept
                continue
            t, ns, cid = token(t), token(ns), token(cid)
            try:
                rows.append((store, t, ns, cid, kind, self._sealer(store, t, kind, ns, cid).pack(value)))
            except (OverflowError, TypeError, ValueError):  # what msgpack cannot hold
                continue
        if not rows:
            return
        threads = sorted({row[1] for row in rows})
        m = self.MARK

        def write(conn: Any) -> None:
            with self._transaction(conn):
                self._insert_facts(conn, rows)
                for thread in threads:
                    size = conn.execute(f"SELECT coalesce(sum({self.LENGTH}(value)), 0) FROM {self.FACTS} "
                                        f"WHERE store = {m} AND thread = {m}", [store, thread]).fetchone()[0]
                    conn.execute(self.UPSERT_THREAD, [store, thread, time.time(), size])
                self._evict(conn, keep=(store, threads[0]), added=sum(len(row[5]) for row in rows))

        self._run(write)

    def _evict(self, conn: Any, keep: tuple[str, str | None], added: int = 0) -> None:
        """Drop whole threads' facts, least recently used first, then whole stores' search indexes, searched
        least recently first, until the facts and the indexes fit in ``max_bytes``. What the cache holds is
        summed at most every ``SUM_SECONDS`` while this process's estimate (the last sum and what it stored
        since, ``added``) fits: a sum reads a row per thread."""
        m = self.MARK
        now = time.monotonic()
        if self._summed is not None and now - self._summed[0] < self.SUM_SECONDS:
            estimate = self._summed[1] + added
            if estimate <= self.max_bytes:
                self._summed = (self._summed[0], estimate)
                return
        total = conn.execute(f"SELECT coalesce(sum(bytes), 0) FROM {self.THREADS}").fetchone()[0] + self.search_bytes(conn)
        self._summed = (now, int(total))
        if total <= self.max_bytes:
            return
        self._summed = None  # summed again after evicting
        self._lock_eviction(conn)
        for store, thread, size in conn.execute(
                f"SELECT store, thread, bytes FROM {self.THREADS} ORDER BY used").fetchall():
            if total <= self.max_bytes * 0.9:
                break
            if (store, thread) == keep:
                continue
            conn.execute(f"DELETE FROM {self.FACTS} WHERE store = {m} AND thread = {m}", [store, thread])
            conn.execute(f"DELETE FROM {self.THREADS} WHERE store = {m} AND thread = {m}", [store, thread])
            total -= size
        if total > self.max_bytes * 0.9:
            self._evict_search(conn, total, self.max_bytes * 0.9, keep[0])

    def bound(self, store: str, added: int = 0) -> None:
        """Evict what no longer fits (see ``_evict``), keeping ``store``'s search index, after it grew by about
        ``added`` bytes."""
        def write(conn: Any) -> None:
            with self._transaction(conn):
                self._evict(conn, keep=(store, None), added=added)

        self._run(write)

    def stats(self) -> dict[str, int]:
        """``facts``, ``threads`` and ``bytes`` held (for tests and the benchmarks)."""
        def read(conn: Any) -> dict[str, int]:
            facts, size = conn.execute(f"SELECT count(*), coalesce(sum({self.LENGTH}(value)), 0) "
                                       f"FROM {self.FACTS}").fetchone()
            threads = conn.execute(f"SELECT count(*) FROM {self.THREADS}").fetchone()[0]
            return {"facts": int(facts), "bytes": int(size), "threads": int(threads)}

        return self._run(read)
