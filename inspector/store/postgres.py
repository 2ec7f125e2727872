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
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg_pool import ConnectionPool

from . import delta
from .decode import Problem, decode_typed
from .model import (
    BRANCH_PARENT_KEY,
    SHARED_BLOBS,
    BranchThread,
    CheckpointRow,
    CheckpointSizes,
    CheckpointState,
    NotFound,
    StoreError,
    ThreadSummary,
    WriteRecord,
    branch_of,
    checkpoint_time,
    sorted_branches,
)
from .records import (
    assemble_state,
    checkpoint_not_found,
    like_pattern,
    sql_rebuilder,
    thread_summaries,
    titles_from,
    write_records,
)
from .pg_connect import PgTarget, check_schema, one_line, parse_pg_url
from .pg_sizes import pg_field_sizes

_BLOBS_AT_VERSIONS = """
    SELECT bl.channel, bl.type, bl.blob
    FROM unnest(%s::text[], %s::text[]) AS v(channel, version)
    JOIN checkpoint_blobs bl
      ON bl.thread_id = %s AND bl.checkpoint_ns = %s AND bl.channel = v.channel AND bl.version = v.version
"""


class PostgresStore:
    """A LangGraph PostgreSQL checkpoint database, read through read-only sessions."""

    kind = "postgres"
    read_only = True
    size_accounting = SHARED_BLOBS
    warning: str | None = None

    def __init__(self, url: str, statement_timeout_ms: int = 30_000, pool_size: int = 4) -> None:
        self.url = url
        self.target: PgTarget = parse_pg_url(url, statement_timeout_ms)
        kwargs = self.target.connect_kwargs()
        try:
            with psycopg.connect(self.target.conninfo, connect_timeout=10, **kwargs) as conn:
                check_schema(conn, self.target)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to PostgreSQL at {self.target.where}: {one_line(exc, self.target)}") from None
        self._pool = ConnectionPool(
            self.target.conninfo, min_size=1, max_size=pool_size, kwargs=kwargs, open=False, name="inspector-ro"
        )
        self._pool.open(wait=True, timeout=15)

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
            raise StoreError(f"reading PostgreSQL at {self.target.where} failed: {one_line(exc, self.target)}") from None

    # -- threads ---------------------------------------------------------
    def _thread_filter(self, search: str | None) -> tuple[str, list[Any]]:
        if not search:
            return "", []
        like = like_pattern(search)
        return "WHERE thread_id ILIKE %s ESCAPE '\\' OR metadata::text ILIKE %s ESCAPE '\\'", [like, like]

    def count_threads(self, search: str | None = None) -> int:
        where, params = self._thread_filter(search)
        return self._query(f"SELECT count(DISTINCT thread_id) FROM checkpoints {where}", params)[0][0]

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        where, params = self._thread_filter(search)
        rows = self._query(
            f"""
            SELECT thread_id, count(*), max(checkpoint_id) FILTER (WHERE checkpoint_ns = ''),
                   sum(pg_column_size(checkpoint) + pg_column_size(metadata)),
                   count(DISTINCT checkpoint_ns), max(checkpoint_id)
            FROM checkpoints {where}
            GROUP BY thread_id
            ORDER BY max(checkpoint_id) DESC, thread_id
            LIMIT %s OFFSET %s
            """,
            [*params, limit, offset],
        )
        ids = [r[0] for r in rows]
        return thread_summaries(rows, self._side_bytes_by_thread(ids), self._titles(ids))

    def _side_bytes_by_thread(self, ids: list[str]) -> dict[str, int]:
        """Blob and write bytes per thread; each shared blob row counted once."""
        if not ids:
            return {}
        rows = self._query(
            """
            SELECT thread_id, sum(n) FROM (
                SELECT thread_id, coalesce(octet_length(blob), 0) AS n FROM checkpoint_blobs WHERE thread_id = ANY(%s)
                UNION ALL
                SELECT thread_id, octet_length(blob) FROM checkpoint_writes WHERE thread_id = ANY(%s)
            ) sizes GROUP BY thread_id
            """,
            [ids, ids],
        )
        return {tid: int(total or 0) for tid, total in rows}

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
        rows = self._query(
            """
            SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id,
                   pg_column_size(checkpoint) + pg_column_size(metadata), metadata,
                   checkpoint -> 'channel_versions'
            FROM checkpoints c WHERE thread_id = %s
            ORDER BY checkpoint_id DESC, checkpoint_ns
            """,
            [thread_id],
        )
        if not rows:
            raise NotFound(f"no thread {thread_id!r} in this store")
        blob_sizes = {
            (ns, channel, version): int(size or 0)
            for ns, channel, version, size in self._query(
                "SELECT checkpoint_ns, channel, version, octet_length(blob) FROM checkpoint_blobs WHERE thread_id = %s",
                [thread_id],
            )
        }
        writes = {
            (ns, cid): (channels, size)
            for ns, cid, channels, size in self._query(
                """
                SELECT checkpoint_ns, checkpoint_id, array_agg(channel ORDER BY task_path, task_id, idx),
                       sum(octet_length(blob))
                FROM checkpoint_writes WHERE thread_id = %s GROUP BY checkpoint_ns, checkpoint_id
                """,
                [thread_id],
            )
        }
        timeline = []
        for ns, cid, parent, size, meta, versions in rows:
            meta = meta if isinstance(meta, dict) else {"value": meta}
            size += sum(blob_sizes.get((ns, ch, str(v)), 0) for ch, v in (versions or {}).items())
            channels, wbytes = writes.get((ns, cid), ((), 0))
            step = meta.get("step")
            timeline.append(
                CheckpointRow(
                    thread_id=thread_id,
                    checkpoint_ns=ns,
                    checkpoint_id=cid,
                    parent_checkpoint_id=parent,
                    step=step if isinstance(step, int) else None,
                    source=meta.get("source"),
                    created_at=checkpoint_time(cid),
                    stored_bytes=int(size or 0),
                    writes_bytes=int(wbytes or 0),
                    write_channels=tuple(dict.fromkeys(channels)),
                    metadata=meta,
                )
            )
        return timeline

    # -- sizes -----------------------------------------------------------
    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel sizes computed in SQL (blob lengths and md5; contents never fetched); see ``pg_sizes``."""
        return pg_field_sizes(self._query, thread_id, ns)

    # -- state -----------------------------------------------------------
    def _checkpoint_row(self, thread_id: str, checkpoint_id: str | None, ns: str) -> tuple:
        select = (
            "SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata, "
            "pg_column_size(checkpoint) + pg_column_size(metadata) FROM checkpoints "
            "WHERE thread_id = %s AND checkpoint_ns = %s"
        )
        if checkpoint_id is None:
            rows = self._query(select + " ORDER BY checkpoint_id DESC LIMIT 1", [thread_id, ns])
        else:
            rows = self._query(select + " AND checkpoint_id = %s", [thread_id, ns, checkpoint_id])
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return rows[0]

    def writes(self, thread_id: str, checkpoint_id: str, ns: str = "") -> tuple[list[WriteRecord], list[Problem]]:
        rows = self._query(
            """SELECT task_id, task_path, idx, channel, type, blob FROM checkpoint_writes
               WHERE thread_id = %s AND checkpoint_ns = %s AND checkpoint_id = %s
               ORDER BY task_path, task_id, idx""",
            [thread_id, ns, checkpoint_id],
        )
        return write_records(rows)

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        cid, parent, checkpoint, metadata, own_bytes = self._checkpoint_row(thread_id, checkpoint_id, ns)
        checkpoint = checkpoint if isinstance(checkpoint, dict) else {}
        metadata = metadata if isinstance(metadata, dict) else {"value": metadata}
        header = {k: v for k, v in checkpoint.items() if k != "channel_values"}
        inline = checkpoint.get("channel_values") or {}
        channel_values: dict[str, Any] = {}
        channel_bytes: dict[str, int] = {}
        problems: list[Problem] = []
        for name, value in inline.items():
            channel_values[name] = value
            channel_bytes[name] = len(json.dumps(value))
        blob_bytes = 0
        versions = header.get("channel_versions") or {}
        names = list(versions)
        blob_rows = self._query(_BLOBS_AT_VERSIONS, [names, [str(versions[n]) for n in names], thread_id, ns])
        for name, type_tag, blob in blob_rows:
            blob_bytes += len(blob or b"")
            if type_tag == "empty":
                continue
            decoded = decode_typed(type_tag, blob, name)
            channel_values[name] = decoded.value
            channel_bytes[name] = len(blob or b"")
            problems.extend(decoded.problems)
        writes, write_problems = self.writes(thread_id, cid, ns)
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
            rebuild=sql_rebuilder(self, thread_id, ns, parent),
        )

    # -- branches --------------------------------------------------------
    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        rows = self._query(
            "SELECT thread_id, metadata FROM checkpoints "
            "WHERE checkpoint_ns = '' AND parent_checkpoint_id IS NULL AND metadata->>%s = %s",
            [BRANCH_PARENT_KEY, thread_id],
        )
        return sorted_branches(b for tid, meta in rows if (b := branch_of(tid, meta)) is not None)

    # -- delta channels ----------------------------------------------------
    def _ancestors(self, thread_id: str, ns: str, parent: str | None, channels: list[str]) -> Iterator[delta.Ancestor]:
        """Checkpoints from ``parent`` upwards, with the stored values of ``channels`` (non-empty blobs)."""
        seen: set[str] = set()
        while parent and parent not in seen:
            seen.add(parent)
            rows = self._query(
                """
                SELECT c.parent_checkpoint_id, bl.channel, bl.type, bl.blob
                FROM checkpoints c
                LEFT JOIN checkpoint_blobs bl
                  ON bl.thread_id = c.thread_id AND bl.checkpoint_ns = c.checkpoint_ns
                 AND bl.channel = ANY(%s) AND bl.type <> 'empty'
                 AND bl.version = c.checkpoint -> 'channel_versions' ->> bl.channel
                WHERE c.thread_id = %s AND c.checkpoint_ns = %s AND c.checkpoint_id = %s
                """,
                [channels, thread_id, ns, parent],
            )
            if not rows:
                return
            stored = {
                name: decode_typed(type_tag, blob, name).value for _, name, type_tag, blob in rows if name is not None
            }
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
