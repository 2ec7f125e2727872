"""Read-only access to LangGraph's SQLite checkpoint schema (``SqliteSaver``'s tables).

The file is opened through a ``file:...?mode=ro`` URI with ``query_only`` on, so no
statement can write; a WAL database stays readable while an agent writes to it.
Listing threads and timelines reads keys, lengths and metadata, never state blobs.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from . import delta
from .decode import Problem, decode_checkpoint_blob, decode_typed
from .measure import measure_checkpoint_blob
from .model import (
    BRANCH_PARENT_KEY,
    PER_CHECKPOINT_COPY,
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
    sql_delta_history,
    sql_rebuilder,
    thread_summaries,
    titles_from,
    write_records,
)
from .sqlite_connect import ReadOnlySqlite
from .sqlite_export import SqliteExport
from .sqlite_retention import SqliteRetention

# Each thread's first root checkpoint (uuid6 ids sort by time), found on the primary key's index, whose
# metadata mentions the branch key; the value is compared after decoding. No state blob is read.
_BRANCH_ROOTS = """
    SELECT c.thread_id, c.metadata FROM checkpoints c
    JOIN (SELECT thread_id, min(checkpoint_id) AS cid FROM checkpoints WHERE checkpoint_ns = '' GROUP BY thread_id) first
      ON c.thread_id = first.thread_id AND c.checkpoint_ns = '' AND c.checkpoint_id = first.cid
    WHERE instr(CAST(c.metadata AS BLOB), ?) > 0
"""

# The write channels (joined by char 31) and write bytes of checkpoint row ``c``: index lookups.
_WRITES_OF_C = """
    (SELECT group_concat(channel, char(31)) FROM writes w
     WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id),
    (SELECT sum(length(value)) FROM writes w
     WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id)"""


def _metadata(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    try:
        value = json.loads(bytes(raw) if not isinstance(raw, str) else raw)
    except (ValueError, TypeError):
        return {"__undecodable__": True}
    return value if isinstance(value, dict) else {"value": value}


def _metadata_equals(key: str, value: Any) -> tuple[str, list[Any]]:
    """A SQL condition: the metadata's top-level ``key`` holds a JSON value equal to ``value``."""
    if not isinstance(key, str) or '"' in key:
        raise StoreError(f"metadata filter key {key!r} is not a plain name")
    meta, path = "CAST(metadata AS TEXT)", f'$."{key}"'
    if value is None:
        return f"json_type({meta}, ?) = 'null'", [path]
    if isinstance(value, bool):
        return f"json_type({meta}, ?) = ?", [path, "true" if value else "false"]
    if isinstance(value, (int, float)):
        return f"json_type({meta}, ?) IN ('integer', 'real') AND json_extract({meta}, ?) = ?", [path, path, value]
    if isinstance(value, str):
        return f"json_type({meta}, ?) = 'text' AND json_extract({meta}, ?) = ?", [path, path, value]
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        raise StoreError(f"metadata filter value for {key!r} is not JSON") from None
    kind = "object" if isinstance(value, dict) else "array"
    return f"json_type({meta}, ?) = '{kind}' AND json_extract({meta}, ?) = json(?)", [path, path, text]


class SqliteStore(SqliteRetention, SqliteExport):
    """A LangGraph SQLite checkpoint database, opened read-only."""

    kind = "sqlite"
    read_only = True
    size_accounting = PER_CHECKPOINT_COPY

    def __init__(self, path: str | Path, url: str | None = None) -> None:
        self.path = Path(path).expanduser()
        self.url = url or f"sqlite:///{self.path}"
        self._db = ReadOnlySqlite(self.path)

    @property
    def _conn(self) -> sqlite3.Connection:
        """The read-only connection to the file now at ``path`` (see ``sqlite_connect``)."""
        return self._db.connection()

    @property
    def _writes_have_task_path(self) -> bool:
        return self._db.writes_have_task_path

    # -- lifecycle -------------------------------------------------------
    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "SqliteStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        try:
            return self._conn.execute(sql, tuple(params)).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None

    # -- threads ---------------------------------------------------------
    def _thread_filter(self, search: str | None) -> tuple[str, list[Any]]:
        if not search:
            return "", []
        like = like_pattern(search)
        return (
            "WHERE thread_id IN (SELECT DISTINCT thread_id FROM checkpoints "
            "WHERE thread_id LIKE ? ESCAPE '\\' OR CAST(metadata AS TEXT) LIKE ? ESCAPE '\\')",
            [like, like],
        )

    def count_threads(self, search: str | None = None) -> int:
        where, params = self._thread_filter(search)
        return self._query(f"SELECT count(DISTINCT thread_id) FROM checkpoints {where}", params)[0][0]

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0) -> list[ThreadSummary]:
        where, params = self._thread_filter(search)
        rows = self._query(
            f"""
            SELECT thread_id, count(*), max(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END),
                   sum(length(checkpoint) + coalesce(length(metadata), 0)), count(DISTINCT checkpoint_ns), max(checkpoint_id)
            FROM checkpoints {where}
            GROUP BY thread_id
            ORDER BY max(checkpoint_id) DESC, thread_id
            LIMIT ? OFFSET ?
            """,
            [*params, limit, offset],
        )
        ids = [r[0] for r in rows]
        return thread_summaries(rows, self._writes_bytes_by_thread(ids), self._titles(ids))

    def _in_clause(self, ids: list[str]) -> str:
        return ",".join("?" * len(ids))

    def _writes_bytes_by_thread(self, ids: list[str]) -> dict[str, int]:
        if not ids:
            return {}
        rows = self._query(
            f"SELECT thread_id, sum(length(value)) FROM writes WHERE thread_id IN ({self._in_clause(ids)}) GROUP BY thread_id",
            ids,
        )
        return {tid: total or 0 for tid, total in rows}

    def _titles(self, ids: list[str]) -> dict[str, str]:
        """The newest ``title`` each thread's tasks wrote: a small write, not a state blob."""
        if not ids:
            return {}
        rows = self._query(
            f"""
            SELECT w.thread_id, w.type, w.value FROM writes w
            JOIN (SELECT thread_id, max(checkpoint_id) AS cid FROM writes
                  WHERE channel = 'title' AND checkpoint_ns = '' AND thread_id IN ({self._in_clause(ids)})
                  GROUP BY thread_id) newest
              ON w.thread_id = newest.thread_id AND w.checkpoint_id = newest.cid
            WHERE w.channel = 'title' AND w.checkpoint_ns = ''
            """,
            ids,
        )
        return titles_from(rows)

    # -- timeline --------------------------------------------------------
    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        rows = self.history(thread_id, None)
        if not rows:
            raise NotFound(f"no thread {thread_id!r} in this store")
        return rows

    def history(
        self,
        thread_id: str,
        ns: str | None = "",
        *,
        before: str | None = None,
        limit: int | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[CheckpointRow]:
        """See ``Store.history``. The filters run in SQL; with a ``limit`` the page's keys are
        chosen from the primary-key index first, so only the page's metadata is read."""
        where, params = ["thread_id = ?"], [thread_id]
        if ns is not None:
            where.append("checkpoint_ns = ?")
            params.append(ns)
        if before is not None:
            where.append("checkpoint_id < ?")
            params.append(before)
        for key, value in (filter or {}).items():
            clause, values = _metadata_equals(key, value)
            where.append(clause)
            params.extend(values)
        conditions = " AND ".join(where)
        if limit is None:
            rows = self._query(
                f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, length(checkpoint), metadata
                    FROM checkpoints WHERE {conditions} ORDER BY checkpoint_id DESC, checkpoint_ns""",
                params,
            )
            writes = self._writes_by_checkpoint(thread_id, ns)
            rows = [(*row, *writes.get((row[0], row[1]), (None, 0))) for row in rows]
        else:
            rows = self._query(
                f"""SELECT c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, length(c.checkpoint), c.metadata,
                           {_WRITES_OF_C}
                    FROM (SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE {conditions}
                          ORDER BY checkpoint_id DESC, checkpoint_ns LIMIT ?) page
                    JOIN checkpoints c ON c.thread_id = ? AND c.checkpoint_ns = page.checkpoint_ns
                                      AND c.checkpoint_id = page.checkpoint_id
                    ORDER BY c.checkpoint_id DESC, c.checkpoint_ns""",
                [*params, max(int(limit), 0), thread_id],
            )
        timeline = []
        for row_ns, cid, parent, size, raw_meta, channels, wbytes in rows:
            meta = _metadata(raw_meta)
            step = meta.get("step")
            timeline.append(
                CheckpointRow(
                    thread_id=thread_id,
                    checkpoint_ns=row_ns,
                    checkpoint_id=cid,
                    parent_checkpoint_id=parent,
                    step=step if isinstance(step, int) else None,
                    source=meta.get("source"),
                    created_at=checkpoint_time(cid),
                    stored_bytes=(size or 0) + len(raw_meta or b""),
                    writes_bytes=wbytes or 0,
                    write_channels=tuple(dict.fromkeys(channels.split("\x1f"))) if channels else (),
                    metadata=meta,
                )
            )
        return timeline

    def _writes_by_checkpoint(self, thread_id: str, ns: str | None) -> dict[tuple[str, str], tuple[str, int]]:
        """``(ns, checkpoint_id) -> (channels joined by char 31, bytes)`` over the thread (or one namespace)."""
        ns_clause, params = ("", [thread_id]) if ns is None else ("AND checkpoint_ns = ?", [thread_id, ns])
        rows = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, group_concat(channel, char(31)), sum(length(value))
                FROM writes WHERE thread_id = ? {ns_clause} GROUP BY checkpoint_ns, checkpoint_id""",
            params,
        )
        return {(row_ns, cid): (channels, size) for row_ns, cid, channels, size in rows}

    # -- sizes -----------------------------------------------------------
    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel stored sizes of every checkpoint, oldest first; values are never decoded.

        Each checkpoint blob holds its own copy of every channel, so sizes add up
        per checkpoint (``size_accounting = "per-checkpoint-copy"``).
        """
        ns_clause, params = ("", [thread_id]) if ns is None else ("AND checkpoint_ns = ?", [thread_id, ns])
        writes = dict(
            ((wns, cid), size or 0)
            for wns, cid, size in self._query(
                f"""SELECT checkpoint_ns, checkpoint_id, sum(length(value)) FROM writes
                    WHERE thread_id = ? {ns_clause} GROUP BY checkpoint_ns, checkpoint_id""",
                params,
            )
        )
        sql = f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata
                  FROM checkpoints WHERE thread_id = ? {ns_clause} ORDER BY checkpoint_ns, checkpoint_id"""
        # primary-key order: SQLite streams the rows instead of sorting the blobs
        try:
            rows = [self._checkpoint_sizes(thread_id, writes, *row) for row in self._conn.execute(sql, params)]
            rows.sort(key=lambda r: (r.checkpoint_id, r.checkpoint_ns))
        except sqlite3.DatabaseError as exc:
            raise self._db.read_error(exc) from None
        if not rows and not self._query("SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1", [thread_id]):
            raise NotFound(f"no thread {thread_id!r} in this store")
        return rows

    @staticmethod
    def _checkpoint_sizes(thread_id, writes, ns, cid, parent, type_tag, blob, raw_meta) -> CheckpointSizes:
        measured = measure_checkpoint_blob(type_tag, blob)
        meta = _metadata(raw_meta)
        step = meta.get("step")
        return CheckpointSizes(
            thread_id=thread_id,
            checkpoint_ns=ns,
            checkpoint_id=cid,
            parent_checkpoint_id=parent,
            step=step if isinstance(step, int) else None,
            source=meta.get("source"),
            stored_bytes=len(blob or b"") + len(raw_meta or b""),
            writes_bytes=writes.get((ns, cid), 0),
            channels=measured.channels,
            problems=tuple(measured.problems),
        )

    # -- state -----------------------------------------------------------
    def _checkpoint_row(self, thread_id: str, checkpoint_id: str | None, ns: str) -> tuple:
        if checkpoint_id is None:
            rows = self._query(
                """SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints
                   WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id DESC LIMIT 1""",
                [thread_id, ns],
            )
        else:
            rows = self._query(
                """SELECT checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints
                   WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?""",
                [thread_id, ns, checkpoint_id],
            )
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return rows[0]

    def writes(self, thread_id: str, checkpoint_id: str, ns: str = "") -> tuple[list[WriteRecord], list[Problem]]:
        task_path = "task_path" if self._writes_have_task_path else "''"
        rows = self._query(
            f"""SELECT task_id, {task_path}, idx, channel, type, value FROM writes
                WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?
                ORDER BY task_path, task_id, idx""",
            [thread_id, ns, checkpoint_id],
        )
        return write_records(rows)

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        cid, parent, type_tag, blob, raw_meta = self._checkpoint_row(thread_id, checkpoint_id, ns)
        decoded = decode_checkpoint_blob(type_tag, blob)
        writes, write_problems = self.writes(thread_id, cid, ns)
        return assemble_state(
            thread_id=thread_id,
            ns=ns,
            checkpoint_id=cid,
            parent=parent,
            header=decoded.header,
            channel_values=decoded.channel_values,
            channel_bytes=decoded.channel_bytes,
            metadata=_metadata(raw_meta),
            writes=writes,
            problems=decoded.problems + write_problems,
            stored_bytes=len(blob or b"") + len(raw_meta or b""),
            rebuild=sql_rebuilder(self, thread_id, ns, parent),
        )

    # -- branches --------------------------------------------------------
    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        rows = self._query(_BRANCH_ROOTS, [f'"{BRANCH_PARENT_KEY}"'.encode()])
        found = (branch_of(tid, _metadata(raw)) for tid, raw in rows)
        return sorted_branches(b for b in found if b is not None and b.parent_thread_id == thread_id)

    # -- delta channels ----------------------------------------------------
    def delta_history(
        self, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str = ""
    ) -> dict[str, delta.DeltaHistory]:
        """See ``Store.delta_history``: ancestors decoded one at a time, writes read only for the channels asked."""
        rows = self._query(
            "SELECT parent_checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
            [thread_id, ns, checkpoint_id],
        )
        if not rows:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return sql_delta_history(self, thread_id, ns, rows[0][0], list(channels))

    def _ancestors(self, thread_id: str, ns: str, parent: str | None, channels: list[str]) -> Iterator[delta.Ancestor]:
        """Checkpoints from ``parent`` upwards, each decoded only when the walk reaches it."""
        seen: set[str] = set()
        while parent and parent not in seen:
            seen.add(parent)
            rows = self._query(
                "SELECT parent_checkpoint_id, type, checkpoint FROM checkpoints "
                "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
                [thread_id, ns, parent],
            )
            if not rows:
                return
            next_parent, type_tag, blob = rows[0]
            stored = decode_checkpoint_blob(type_tag, blob).channel_values
            yield delta.Ancestor(parent, {k: stored[k] for k in channels if k in stored})
            parent = next_parent

    def _channel_writes(self, thread_id: str, ns: str, cids: list[str], channels: list[str]) -> list[delta.ChannelWrite]:
        task_path = "task_path" if self._writes_have_task_path else "''"
        out: list[delta.ChannelWrite] = []
        for start in range(0, len(cids), 500):
            chunk = cids[start : start + 500]
            rows = self._query(
                f"""SELECT checkpoint_id, {task_path}, task_id, idx, channel, type, value FROM writes
                    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({self._in_clause(chunk)})
                    AND channel IN ({self._in_clause(channels)})""",
                [thread_id, ns, *chunk, *channels],
            )
            for cid, path, task_id, idx, channel, type_tag, value in rows:
                decoded = decode_typed(type_tag, value, channel).value
                out.append(delta.ChannelWrite(cid, path or "", task_id, idx, channel, decoded))
        return out
