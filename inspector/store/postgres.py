"""Read-only access to LangGraph's PostgreSQL checkpoint schema (``PostgresSaver``'s tables).

Every session of the small pool runs with ``default_transaction_read_only=on``,
autocommit and a statement timeout, so the server itself refuses any write; a
role with ``SELECT`` rights is enough. Thread lists, timelines and sizes read
keys, JSONB metadata and blob *lengths*, never blob contents.

The checkpoint JSONB holds ``channel_versions`` and the primitive channel values;
other values live in ``checkpoint_blobs`` keyed by (channel, version), so a value
that did not change between checkpoints is stored once and shared.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from contextlib import contextmanager
from typing import Any

import psycopg

from . import delta
from .carried import Carried, decode_value
from .decode import Decoded, Problem, decode_typed
from .model import (
    BRANCH_PARENT_KEY,
    SHARED_BLOBS,
    THREAD_SORTS,
    BranchThread,
    CheckpointRow,
    CheckpointSizes,
    CheckpointState,
    Key,
    NotFound,
    StoreError,
    StoreTotals,
    ThreadSummary,
    WriteRecord,
    branch_of,
    sorted_branches,
)
from .records import (
    assemble_state,
    batches,
    checkpoint_not_found,
    full_row,
    like_pattern,
    sql_delta_history,
    sql_rebuilder,
    stream_writes,
    thread_not_found,
    thread_summaries,
    titles_from,
    write_records,
)
from .pg_connect import PgTarget, check_schema, one_line, open_pool, parse_pg_url, read_error
from .pg_export import PgExport
from .pg_retention import PgRetention
from .pg_sizes import pg_field_sizes

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
# Blob rows at channel versions: every row's length, its contents only for the channels asked for (NULL: all).
_BLOBS_AT_VERSIONS = """
    SELECT bl.channel, bl.version, bl.type, octet_length(bl.blob),
           CASE WHEN %(channels)s::text[] IS NULL OR bl.channel = ANY(%(channels)s::text[]) THEN bl.blob END
    FROM unnest(%(names)s::text[], %(versions)s::text[]) AS v(channel, version)
    JOIN checkpoint_blobs bl
      ON bl.thread_id = %(thread)s AND bl.checkpoint_ns = %(ns)s AND bl.channel = v.channel AND bl.version = v.version
"""


@dataclass(frozen=True)
class _Blob:
    """One blob row: its type, stored length and decoded value (None for ``empty`` or when not fetched)."""

    type: str | None
    size: int
    decoded: Decoded | None


def _refs(checkpoint: Any) -> set[tuple[str, str]]:
    """The ``(channel, version)`` blob rows a checkpoint's JSONB references."""
    versions = (checkpoint or {}).get("channel_versions") if isinstance(checkpoint, dict) else None
    return {(str(name), str(version)) for name, version in (versions or {}).items()}


# Per checkpoint row ``c``: the bytes of the blobs it references, its write channels and write
# bytes; index lookups (one per channel version, one range of writes).
_SIDE_SIZES_OF_C = """
    LEFT JOIN LATERAL (
        SELECT sum((SELECT octet_length(bl.blob) FROM checkpoint_blobs bl
                    WHERE bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
                      AND bl.channel = v.key AND bl.version = v.value)) AS bytes
        FROM jsonb_each_text(c.checkpoint -> 'channel_versions') AS v) blobs ON true
    LEFT JOIN LATERAL (
        SELECT array_agg(channel ORDER BY task_path, task_id, idx) AS channels, sum(octet_length(blob)) AS bytes
        FROM checkpoint_writes w
        WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id
    ) writes ON true"""


class PostgresStore(PgRetention, PgExport):
    """A LangGraph PostgreSQL checkpoint database, read through read-only sessions."""

    kind = "postgres"
    read_only = True
    size_accounting = SHARED_BLOBS
    warning: str | None = None

    def __init__(self, url: str, statement_timeout_ms: int = 30_000, pool_size: int = 4,
                 schema: delta.SchemaSource | None = None) -> None:
        self.url = url
        self.schema = schema
        self.target: PgTarget = parse_pg_url(url, statement_timeout_ms)
        self.identity = f"postgres:{self.target.where}" + (f"?schema={self.target.schema}" if self.target.schema else "")
        kwargs = self.target.connect_kwargs()
        try:
            with psycopg.connect(self.target.conninfo, connect_timeout=10, **kwargs) as conn:
                check_schema(conn, self.target)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {self.target.where}: {one_line(exc, self.target)}") from None
        self._pool = open_pool(self.target, pool_size)

    # -- lifecycle -------------------------------------------------------
    def close(self) -> None:
        self._pool.close()

    def __enter__(self) -> "PostgresStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled read-only session (autocommit, ``default_transaction_read_only=on``)."""
        with self._pool.connection() as conn:
            yield conn

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        try:
            with self._pool.connection() as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.Error as exc:
            raise read_error(exc, self.target) from None

    # -- threads ---------------------------------------------------------
    def _thread_filter(self, search: str | None) -> tuple[str, list[Any]]:
        if not search:
            return "", []
        like = like_pattern(search)
        return "WHERE thread_id ILIKE %s ESCAPE '\\' OR metadata::text ILIKE %s ESCAPE '\\'", [like, like]

    def count_threads(self, search: str | None = None) -> int:
        where, params = self._thread_filter(search)
        return self._query(f"SELECT count(DISTINCT thread_id) FROM checkpoints {where}", params)[0][0]

    def totals(self) -> StoreTotals:
        threads, checkpoints, own = self._query(
            """SELECT count(DISTINCT thread_id), count(*),
                      coalesce(sum(pg_column_size(checkpoint) + pg_column_size(metadata)), 0) FROM checkpoints""")[0]
        side = self._query(
            """SELECT (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs)
                    + (SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_writes)""")[0][0]
        return StoreTotals(threads, checkpoints, int(own) + int(side))

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest") -> list[ThreadSummary]:
        """The page's threads are ranked first (newest and most checkpoints from keys alone, stored bytes
        from every row's and blob's length), then only their summaries are computed."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        where, params = self._thread_filter(search)
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

    def _titles(self, ids: list[str]) -> dict[str, str]:
        """The newest ``title`` each thread's tasks wrote: a small write, not a state blob."""
        if not ids:
            return {}
        rows = self._query(
            """
            SELECT DISTINCT ON (thread_id) thread_id, type, blob FROM checkpoint_writes
            WHERE channel = 'title' AND checkpoint_ns = '' AND thread_id = ANY(%s)
            ORDER BY thread_id, checkpoint_id DESC, task_path DESC, task_id DESC, idx DESC
            """,
            [ids],
        )
        return titles_from(rows)

    # -- timeline --------------------------------------------------------
    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        rows = self.history(thread_id, None)
        if not rows:
            raise thread_not_found(thread_id)
        return rows

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        """Full rows: PostgreSQL keeps metadata as JSONB beside the keys, so reading it costs nothing extra."""
        if after is None:
            return self.timeline(thread_id)
        rows = self._rows_where(thread_id, "c.checkpoint_id > %s", [after])
        if not rows and not self._query("SELECT 1 FROM checkpoints WHERE thread_id = %s LIMIT 1", [thread_id]):
            raise thread_not_found(thread_id)
        return rows

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        keys = list(keys)
        if not keys:
            return []
        condition = "(c.checkpoint_ns, c.checkpoint_id) IN (SELECT * FROM unnest(%s::text[], %s::text[]))"
        return self._rows_where(thread_id, condition, [[ns for ns, _ in keys], [cid for _, cid in keys]])

    def _rows_where(self, thread_id: str, condition: str, params: list[Any]) -> list[CheckpointRow]:
        """Timeline rows of a few checkpoints (a page, the newest ones), lengths looked up per row."""
        return self._timeline_rows(thread_id, self._query(
            f"""SELECT c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id,
                       pg_column_size(c.checkpoint) + pg_column_size(c.metadata) + coalesce(blobs.bytes, 0),
                       c.metadata, writes.channels, writes.bytes
                FROM checkpoints c {_SIDE_SIZES_OF_C}
                WHERE c.thread_id = %s AND {condition}
                ORDER BY c.checkpoint_id DESC, c.checkpoint_ns""",
            [thread_id, *params],
        ))

    def history(
        self,
        thread_id: str,
        ns: str | None = "",
        *,
        before: str | None = None,
        limit: int | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[CheckpointRow]:
        """See ``Store.history``. The filters run in SQL (``metadata -> key = value``); with a
        ``limit`` the page's keys are chosen first and only the page's blob and write
        lengths are read."""
        where, params = ["thread_id = %s"], [thread_id]
        if ns is not None:
            where.append("checkpoint_ns = %s")
            params.append(ns)
        if before is not None:
            where.append("checkpoint_id < %s")
            params.append(before)
        for key, value in (filter or {}).items():
            if not isinstance(key, str):
                raise StoreError(f"metadata filter key {key!r} is not a plain name")
            try:
                text = json.dumps(value, ensure_ascii=False)
            except (TypeError, ValueError):
                raise StoreError(f"metadata filter value for {key!r} is not JSON") from None
            where.append("metadata -> %s::text = %s::jsonb")
            params += [key, text]
        conditions = " AND ".join(where)
        if limit is None:
            rows = self._query(
                f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id,
                           pg_column_size(checkpoint) + pg_column_size(metadata), metadata,
                           checkpoint -> 'channel_versions'
                    FROM checkpoints WHERE {conditions} ORDER BY checkpoint_id DESC, checkpoint_ns""",
                params,
            )
            rows = self._with_side_sizes(thread_id, ns, rows)
        else:
            rows = self._query(
                f"""SELECT c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id,
                           pg_column_size(c.checkpoint) + pg_column_size(c.metadata) + coalesce(blobs.bytes, 0),
                           c.metadata, writes.channels, writes.bytes
                    FROM (SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE {conditions}
                          ORDER BY checkpoint_id DESC, checkpoint_ns LIMIT %s) page
                    JOIN checkpoints c ON c.thread_id = %s AND c.checkpoint_ns = page.checkpoint_ns
                                      AND c.checkpoint_id = page.checkpoint_id
                    {_SIDE_SIZES_OF_C}
                    ORDER BY c.checkpoint_id DESC, c.checkpoint_ns""",
                [*params, max(int(limit), 0), thread_id],
            )
        return self._timeline_rows(thread_id, rows)

    @staticmethod
    def _timeline_rows(thread_id: str, rows: list[tuple]) -> list[CheckpointRow]:
        """``(ns, id, parent, bytes, metadata, write channels, write bytes)`` tuples as timeline rows."""
        return [full_row(thread_id, row_ns, cid, parent, int(size or 0), (tuple(dict.fromkeys(channels or ())), int(wbytes or 0)),
                         meta if isinstance(meta, dict) else {"value": meta})
                for row_ns, cid, parent, size, meta, channels, wbytes in rows]

    def _with_side_sizes(self, thread_id: str, ns: str | None, rows: list[tuple]) -> list[tuple]:
        """Checkpoint rows ``(ns, id, parent, own bytes, metadata, channel_versions)`` as
        ``(ns, id, parent, bytes with referenced blobs, metadata, write channels, write bytes)``,
        from one pass over the thread's (or namespace's) blob and write lengths."""
        ns_clause, params = ("", [thread_id]) if ns is None else ("AND checkpoint_ns = %s", [thread_id, ns])
        blob_sizes = {
            (row_ns, channel, version): int(size or 0)
            for row_ns, channel, version, size in self._query(
                f"""SELECT checkpoint_ns, channel, version, octet_length(blob) FROM checkpoint_blobs
                    WHERE thread_id = %s {ns_clause}""",
                params,
            )
        }
        writes = {
            (row_ns, cid): (channels, size)
            for row_ns, cid, channels, size in self._query(
                f"""
                SELECT checkpoint_ns, checkpoint_id, array_agg(channel ORDER BY task_path, task_id, idx),
                       sum(octet_length(blob))
                FROM checkpoint_writes WHERE thread_id = %s {ns_clause} GROUP BY checkpoint_ns, checkpoint_id
                """,
                params,
            )
        }
        return [
            (row_ns, cid, parent,
             (size or 0) + sum(blob_sizes.get((row_ns, ch, str(v)), 0) for ch, v in (versions or {}).items()),
             meta, *writes.get((row_ns, cid), ((), 0)))
            for row_ns, cid, parent, size, meta, versions in rows
        ]

    # -- sizes -----------------------------------------------------------
    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel sizes computed in SQL (blob lengths and md5; contents never fetched); see ``pg_sizes``."""
        return pg_field_sizes(self._query, thread_id, ns)

    def iter_field_sizes(self, thread_id: str, ns: str | None = None,
                         keys: Collection[Key] | None = None) -> Iterator[CheckpointSizes]:
        """The server computes lengths and hashes; only those small rows come back, so one query serves."""
        rows = pg_field_sizes(self._query, thread_id, ns)
        wanted = None if keys is None else set(keys)
        return iter([r for r in rows if wanted is None or (r.checkpoint_ns, r.checkpoint_id) in wanted])

    # -- state -----------------------------------------------------------
    _CHECKPOINT_COLUMNS = ("checkpoint_id, parent_checkpoint_id, checkpoint, metadata, "
                           "pg_column_size(checkpoint) + pg_column_size(metadata)")

    def _checkpoint_row(self, thread_id: str, checkpoint_id: str | None, ns: str) -> tuple:
        select = f"SELECT {self._CHECKPOINT_COLUMNS} FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s"
        if checkpoint_id is None:
            rows = self._query(select + " ORDER BY checkpoint_id DESC LIMIT 1", [thread_id, ns])
        else:
            rows = self._query(select + " AND checkpoint_id = %s", [thread_id, ns, checkpoint_id])
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return rows[0]

    def writes(self, thread_id: str, checkpoint_id: str, ns: str = "") -> tuple[list[WriteRecord], list[Problem]]:
        return write_records(self._write_rows(thread_id, ns, [checkpoint_id]).get(checkpoint_id, []))

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        ids = [r[0] for r in self._query(
            "SELECT DISTINCT checkpoint_id FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = %s "
            "ORDER BY checkpoint_id", [thread_id, ns])]
        return stream_writes(ids, checkpoint_ids, lambda batch: self._write_rows(thread_id, ns, batch))

    def _write_rows(self, thread_id: str, ns: str, ids: list[str]) -> dict[str, list[tuple]]:
        grouped: dict[str, list[tuple]] = {}
        for cid, *row in self._query(
            """SELECT checkpoint_id, task_id, task_path, idx, channel, type, blob FROM checkpoint_writes
               WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)
               ORDER BY checkpoint_id, task_path, task_id, idx""",
            [thread_id, ns, ids],
        ):
            grouped.setdefault(cid, []).append(tuple(row))
        return grouped

    def _blobs(self, thread_id: str, ns: str, refs: set[tuple[str, str]], channels: Collection[str] | None,
               known: dict[tuple[str, str], _Blob], carry: dict[str, Carried] | None = None) -> dict[tuple[str, str], _Blob]:
        """The blob rows ``refs`` names, decoded once each (those in ``known`` are not read again);
        channels outside ``channels`` are measured, not fetched. ``carry``: each channel's last decoded
        version, whose items a newer version that stores them again reuses (updated in place)."""
        wanted = [ref for ref in refs if ref not in known]
        found = {ref: known[ref] for ref in refs if ref in known}
        if wanted:
            rows = self._query(_BLOBS_AT_VERSIONS, {
                "channels": None if channels is None else list(channels), "names": [c for c, _ in wanted],
                "versions": [v for _, v in wanted], "thread": thread_id, "ns": ns,
            })
            for name, version, type_tag, size, blob in sorted(rows, key=lambda r: (r[0], r[1])):
                if type_tag == "empty" or blob is None:
                    decoded = None
                elif type_tag == "msgpack" and carry is not None:
                    decoded, carry[name] = decode_value(bytes(blob), 0, len(blob), name, carry.get(name))
                else:
                    decoded = decode_typed(type_tag, blob, name)
                found[(name, version)] = _Blob(type_tag, int(size or 0), decoded)
        return found

    def _assemble(self, thread_id: str, ns: str, row: tuple, blobs: dict[tuple[str, str], _Blob],
                  write_rows: list[tuple], channels: Collection[str] | None = None,
                  carried: CheckpointState | None = None) -> CheckpointState:
        cid, parent, checkpoint, metadata, own_bytes = row
        checkpoint = checkpoint if isinstance(checkpoint, dict) else {}
        metadata = metadata if isinstance(metadata, dict) else {"value": metadata}
        header = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        channel_values: dict[str, Any] = {}
        channel_bytes: dict[str, int] = {}
        problems: list[Problem] = []
        for name, value in (checkpoint.get("channel_values") or {}).items():
            if channels is None or name in channels:
                channel_values[name] = value
                channel_bytes[name] = len(json.dumps(value))
        blob_bytes = 0
        for name, version in (header.get("channel_versions") or {}).items():
            blob = blobs.get((name, str(version)))
            if blob is None:
                continue
            blob_bytes += blob.size
            if blob.decoded is None:
                continue
            channel_values[name] = blob.decoded.value
            channel_bytes[name] = blob.size
            problems.extend(blob.decoded.problems)
        writes, write_problems = write_records(write_rows)
        return assemble_state(
            thread_id=thread_id,
            ns=ns,
            checkpoint_id=cid,
            parent=parent,
            header=header,
            channel_values=channel_values,
            channel_bytes=channel_bytes,
            metadata=metadata,
            writes=writes,
            problems=problems + write_problems,
            stored_bytes=int(own_bytes or 0) + blob_bytes,
            rebuild=sql_rebuilder(self, thread_id, ns, parent, carried),
            channels=channels,
        )

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        row = self._checkpoint_row(thread_id, checkpoint_id, ns)
        blobs = self._blobs(thread_id, ns, _refs(row[2]), None, {})
        return self._assemble(thread_id, ns, row, blobs, self._write_rows(thread_id, ns, [row[0]]).get(row[0], []))

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        listed = self._query(
            """SELECT checkpoint_id, pg_column_size(checkpoint) FROM checkpoints
               WHERE thread_id = %s AND checkpoint_ns = %s ORDER BY checkpoint_id""",
            [thread_id, ns],
        )
        if not listed:
            if not self._query("SELECT 1 FROM checkpoints WHERE thread_id = %s LIMIT 1", [thread_id]):
                raise thread_not_found(thread_id)
            raise NotFound(f"no checkpoints in namespace {ns!r} for thread {thread_id!r}")
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        order = [cid for cid, _ in listed if wanted is None or cid in wanted]
        return self._stream_states(thread_id, ns, order, channels)

    def _stream_states(self, thread_id: str, ns: str, order: list[str],
                       channels: Collection[str] | None) -> Iterator[CheckpointState]:
        """Batches of checkpoints; a blob row shared with the checkpoint before is decoded once."""
        previous: CheckpointState | None = None
        known: dict[tuple[str, str], _Blob] = {}
        carry: dict[str, Carried] = {}
        for batch in batches(order, lambda _: 1):
            rows = self._query(
                f"""SELECT {self._CHECKPOINT_COLUMNS} FROM checkpoints
                    WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s) ORDER BY checkpoint_id""",
                [thread_id, ns, batch],
            )
            refs = set().union(*(_refs(row[2]) for row in rows)) if rows else set()
            blobs = self._blobs(thread_id, ns, refs, channels, known, carry)
            writes = self._write_rows(thread_id, ns, batch)
            for row in rows:
                previous = self._assemble(thread_id, ns, row, blobs, writes.get(row[0], []), channels, previous)
                yield previous
            last = _refs(rows[-1][2]) if rows else set()
            known = {ref: blob for ref, blob in blobs.items() if ref in last}

    # -- branches --------------------------------------------------------
    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        rows = self._query(
            "SELECT thread_id, metadata FROM checkpoints "
            "WHERE checkpoint_ns = '' AND parent_checkpoint_id IS NULL AND metadata->>%s = %s",
            [BRANCH_PARENT_KEY, thread_id],
        )
        return sorted_branches(b for tid, meta in rows if (b := branch_of(tid, meta)) is not None)

    # -- delta channels ----------------------------------------------------
    def delta_history(
        self, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str = ""
    ) -> dict[str, delta.DeltaHistory]:
        """See ``Store.delta_history``: one query per ancestor, writes read only for the channels asked."""
        rows = self._query(
            "SELECT parent_checkpoint_id FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = %s",
            [thread_id, ns, checkpoint_id],
        )
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return sql_delta_history(self, thread_id, ns, rows[0][0], list(channels))

    def _ancestors(self, thread_id: str, ns: str, parent: str | None, channels: list[str]) -> Iterator[delta.Ancestor]:
        """Checkpoints from ``parent`` upwards, with the stored values of ``channels``: non-empty blobs,
        else primitives kept inline in the checkpoint row (a snapshot leaves only a ``true`` marker there)."""
        seen: set[str] = set()
        while parent and parent not in seen:
            seen.add(parent)
            rows = self._query(
                """
                SELECT c.parent_checkpoint_id, bl.channel, bl.type, bl.blob,
                       (SELECT jsonb_object_agg(v.key, v.value) FROM jsonb_each(c.checkpoint -> 'channel_values') v
                        WHERE v.key = ANY(%s))
                FROM checkpoints c
                LEFT JOIN checkpoint_blobs bl
                  ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
                 AND bl.channel = ANY(%s) AND bl.type <> 'empty'
                 AND bl.version = c.checkpoint -> 'channel_versions' ->> bl.channel
                WHERE c.thread_id = %s AND c.checkpoint_ns = %s AND c.checkpoint_id = %s
                """,
                [channels, channels, thread_id, ns, parent],
            )
            if not rows:
                return
            stored = dict(rows[0][4] or {})
            stored.update(
                (name, decode_typed(type_tag, blob, name).value) for _, name, type_tag, blob, _ in rows if name is not None
            )
            yield delta.Ancestor(parent, stored)
            parent = rows[0][0]

    def _channel_writes(self, thread_id: str, ns: str, cids: list[str], channels: list[str]) -> list[delta.ChannelWrite]:
        rows = self._query(
            """SELECT checkpoint_id, task_path, task_id, idx, channel, type, blob FROM checkpoint_writes
               WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = ANY(%s) AND channel = ANY(%s)""",
            [thread_id, ns, cids, channels],
        )
        return [
            delta.ChannelWrite(cid, path or "", task_id, idx, channel, decode_typed(type_tag, blob, channel).value)
            for cid, path, task_id, idx, channel, type_tag, blob in rows
        ]
