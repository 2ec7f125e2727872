"""``RetentionReader`` for LangGraph's PostgreSQL schema: keys, lengths and blob references.

A reader holds one pooled session in a read-only ``REPEATABLE READ`` transaction,
so every batch it reads sees the same snapshot while agents keep writing.
Threads are read in batches (ids first, then their checkpoints, writes and
blob rows), so memory follows the batch, not the store. Sizes are what the
server stores (``pg_column_size``: after compression); blob contents and
checkpoint values never leave the server, only ``channel_versions`` and the
few metadata keys planning needs.
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import ExitStack
from typing import Any, Iterator, Sequence

import psycopg

from ...store.model import BranchThread, StoreError
from ...store.not_utf8 import is_not_utf8
from ...store.postgres.connect import not_utf8_named, read_error
from ...store.sql_reading import Closing
from ..retention_keys import (
    BlobKeys,
    CheckpointKeys,
    Key,
    StorageFacts,
    StrayWrites,
    ThreadKeys,
    branch_link,
)

BATCH = 200
METADATA_KEYS = ("step", "source", "parents", "counters_since_delta_snapshot",
                 "branch_parent_thread_id", "branch_parent_checkpoint_id")

_THREAD_IDS = "SELECT DISTINCT thread_id FROM checkpoints {where}"

_CHECKPOINTS = f"""
    SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id,
           pg_column_size(checkpoint) + pg_column_size(metadata), checkpoint -> 'channel_versions',
           jsonb_strip_nulls(jsonb_build_object({", ".join(f"'{k}', metadata -> '{k}'" for k in METADATA_KEYS)}))
    FROM checkpoints WHERE thread_id = ANY(%s)
"""

_WRITES = """
    SELECT thread_id, checkpoint_ns, checkpoint_id, count(*), coalesce(sum(pg_column_size(blob)), 0),
           bool_or(channel = '__interrupt__')
    FROM checkpoint_writes WHERE thread_id = ANY(%s)
    GROUP BY thread_id, checkpoint_ns, checkpoint_id
"""

_BLOBS = """
    SELECT thread_id, checkpoint_ns, channel, version, coalesce(pg_column_size(blob), 0)
    FROM checkpoint_blobs WHERE thread_id = ANY(%s)
"""

_BRANCHES = """
    SELECT DISTINCT thread_id, metadata ->> 'branch_parent_thread_id', metadata ->> 'branch_parent_checkpoint_id'
    FROM checkpoints WHERE checkpoint_ns = '' AND metadata ? 'branch_parent_checkpoint_id'
"""

# the id columns whose collation is nondeterministic (an ICU collation with ``deterministic = false``, under
# which ``'a' = 'A'`` may hold); a database's default collation is always deterministic
_INEXACT_ID_COLUMNS = """
    SELECT a.attrelid::regclass::text, a.attname, co.collname
    FROM pg_attribute a JOIN pg_collation co ON co.oid = a.attcollation
    WHERE a.attrelid = ANY(ARRAY[to_regclass('checkpoints'), to_regclass('checkpoint_writes'),
                                 to_regclass('checkpoint_blobs')])
      AND a.attname IN ('thread_id', 'checkpoint_ns', 'checkpoint_id', 'channel', 'version')
      AND NOT a.attisdropped AND NOT co.collisdeterministic
"""

_TABLE_BYTES = """
    SELECT sum(pg_total_relation_size(to_regclass(name)))
    FROM unnest(ARRAY['checkpoints', 'checkpoint_writes', 'checkpoint_blobs']) AS name
"""


class PgRetentionReader(Closing):
    """Retention keys of one PostgreSQL checkpoint store, on one snapshot."""

    def __init__(self, store: Any) -> None:
        self._store = store
        self._stack = ExitStack()
        self._exact_ids: bool | None = None
        try:
            self._conn = self._stack.enter_context(store.connection())
            self._stack.enter_context(self._conn.transaction())
            self._conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        except psycopg.Error as exc:
            self._stack.close()
            raise self._error(exc) from None

    def _error(self, exc: psycopg.Error) -> StoreError:
        return read_error(exc, self._store.target)

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise self._error(exc) from None
        except UnicodeEncodeError:  # a text that is not UTF-8 bound to the query: no row can hold it
            raise not_utf8_named(params) from None

    # -- lifecycle -------------------------------------------------------
    def close(self) -> None:
        self._stack.close()


    # -- reading -----------------------------------------------------------
    def facts(self) -> StorageFacts:
        total = self._query(_TABLE_BYTES)[0][0]
        notes = ["sizes are what PostgreSQL stores per row (after compression); it reuses freed space "
                 "and returns it to the operating system only after VACUUM FULL"]
        inexact = self._query(_INEXACT_ID_COLUMNS)
        self._exact_ids = not inexact
        if inexact:
            named = ", ".join(f"{table}.{column} ({collation})" for table, column, collation in inexact[:3])
            notes.append(f"{named}{' and more' if len(inexact) > 3 else ''} compare with a nondeterministic "
                         'collation: the statements compare ids exactly (COLLATE "C"), so the tables\' primary keys '
                         "cannot serve them and each statement scans its table")
        return StorageFacts("postgres", int(total) if total is not None else None, 0, self._store.target.schema,
                            tuple(notes), exact_ids=self._exact())

    def threads(self, thread_ids: Sequence[str] | None = None) -> Iterator[ThreadKeys]:
        # DISTINCT as the bytes tell ids apart: under a nondeterministic collation it would keep one of 'a' and 'A'
        # (each batch then reads the rows of both and hands out those of the ids it holds, exactly)
        distinct = _THREAD_IDS.replace("thread_id", 'thread_id COLLATE "C"', 1) if not self._exact() else _THREAD_IDS
        if thread_ids is None:
            ids = sorted(r[0] for r in self._query(distinct.format(where="")))
        else:
            named = [t for t in thread_ids if not is_not_utf8(t)]  # PostgreSQL text holds no other: none of its threads
            wanted = set(named)  # exactly those: a nondeterministic collation's ANY also finds 'A' for 'a'
            ids = sorted(r[0] for r in self._query(distinct.format(where="WHERE thread_id = ANY(%s)"), [named])
                         if r[0] in wanted)
        for start in range(0, len(ids), BATCH):
            yield from self._batch(ids[start:start + BATCH])

    def _exact(self) -> bool:
        if self._exact_ids is None:
            self._exact_ids = not self._query(_INEXACT_ID_COLUMNS)
        return self._exact_ids

    def _batch(self, ids: list[str]) -> Iterator[ThreadKeys]:
        writes: dict[tuple[str, str, str], tuple[int, int, bool]] = {
            (tid, ns, cid): (int(n), int(size), bool(interrupt))
            for tid, ns, cid, n, size, interrupt in self._query(_WRITES, [ids])}
        blobs: dict[str, list[BlobKeys]] = defaultdict(list)
        for tid, ns, channel, version, size in self._query(_BLOBS, [ids]):
            blobs[tid].append(BlobKeys(ns, channel, version, int(size)))
        checkpoints: dict[str, list[CheckpointKeys]] = defaultdict(list)
        for tid, ns, cid, parent, size, versions, meta in self._query(_CHECKPOINTS, [ids]):
            count, wbytes, interrupt = writes.pop((tid, ns, cid), (0, 0, False))
            checkpoints[tid].append(CheckpointKeys(
                ns, cid, parent, int(size or 0), float(size or 0), count, wbytes, float(wbytes), interrupt,
                meta if isinstance(meta, dict) else {},
                {str(k): str(v) for k, v in (versions or {}).items()} if isinstance(versions, dict) else {}))
        stray: dict[str, dict[str, list[int]]] = defaultdict(dict)
        for (tid, ns, _), (count, wbytes, _) in writes.items():
            entry = stray[tid].setdefault(ns, [0, 0])
            entry[0] += count
            entry[1] += wbytes
        for tid in ids:
            strays = [StrayWrites(ns, n, b, float(b)) for ns, (n, b) in stray.get(tid, {}).items()]
            yield ThreadKeys(tid, sorted(checkpoints.get(tid, []), key=lambda c: (c.checkpoint_ns, c.checkpoint_id)),
                             blobs.get(tid, []), strays)

    def metadata(self, thread_id: str, keys: Sequence[Key]) -> dict[Key, dict[str, Any]]:
        if not keys:
            return {}
        rows = self._query(
            "SELECT c.checkpoint_ns, c.checkpoint_id, c.metadata FROM checkpoints c "
            "JOIN unnest(%s::text[], %s::text[]) AS k(ns, id) ON c.checkpoint_ns = k.ns AND c.checkpoint_id = k.id "
            "WHERE c.thread_id = %s", [[k[0] for k in keys], [k[1] for k in keys], thread_id])
        return {(ns, cid): meta for ns, cid, meta in rows if isinstance(meta, dict)}

    def branch_links(self) -> list[BranchThread]:
        links = []
        for tid, parent_thread, parent_checkpoint in self._query(_BRANCHES):
            link = branch_link(tid, {"branch_parent_thread_id": parent_thread,
                                     "branch_parent_checkpoint_id": parent_checkpoint})
            if link is not None:
                links.append(link)
        return links


class PgRetention:
    """``Operations.retention_reader`` for ``PgOperations``."""

    def retention_reader(self) -> PgRetentionReader:
        """Keys, stored lengths and blob references for retention planning, on one read-only snapshot."""
        return PgRetentionReader(self.store)
