"""Read-only access to LangGraph's SQLite checkpoint schema (``SqliteSaver``'s tables).

The file is opened through a ``file:...?mode=ro`` URI with ``query_only`` on, so no
statement can write; a WAL database stays readable while an agent writes to it.
Listing threads and timelines reads keys, lengths and metadata, never state blobs.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Collection, Iterable, Iterator, Sequence

from . import delta
from .decode import DecodedCheckpoint, Problem, decode_checkpoint_blob, decode_typed
from .measure import MeasuredCheckpoint, measure_checkpoint_blob
from .model import (
    BRANCH_PARENT_KEY,
    PER_CHECKPOINT_COPY,
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
    keys_only_row,
    like_pattern,
    sql_delta_history,
    sql_rebuilder,
    step_and_source,
    stream_writes,
    thread_not_found,
    thread_summaries,
    titles_from,
    write_records,
)
from .sqlite_connect import ReadOnlySqlite
from .sqlite_export import SqliteExport
from .sqlite_retention import SqliteRetention

_OWN_BYTES = "length(checkpoint) + coalesce(length(metadata), 0)"
_THREAD_ORDER = {
    "newest": "max(checkpoint_id) DESC, thread_id",
    "checkpoints": "count(*) DESC, max(checkpoint_id) DESC, thread_id",
}

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


def _by_namespace(keys: Iterable[Key]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for ns, cid in keys:
        grouped.setdefault(ns, []).append(cid)
    return grouped


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

    def __init__(self, path: str | Path, url: str | None = None, schema: delta.SchemaSource | None = None) -> None:
        self.path = Path(path).expanduser()
        self.schema = schema
        self.url = url or f"sqlite:///{self.path}"
        self.identity = f"sqlite:{self.path.resolve()}"
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

    def totals(self) -> StoreTotals:
        threads, checkpoints, own = self._query(
            f"SELECT count(DISTINCT thread_id), count(*), coalesce(sum({_OWN_BYTES}), 0) FROM checkpoints")[0]
        writes = self._query("SELECT coalesce(sum(length(value)), 0) FROM writes")[0][0]
        return StoreTotals(threads, checkpoints, own + writes)

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest") -> list[ThreadSummary]:
        """The page's threads are ranked first (newest and most checkpoints from the primary-key index alone,
        stored bytes from every row's lengths), then only their summaries are computed."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        where, params = self._thread_filter(search)
        if sort == "stored":
            ranked = self._query(
                f"""
                SELECT c.thread_id FROM (SELECT thread_id, sum({_OWN_BYTES}) AS own FROM checkpoints {where}
                                         GROUP BY thread_id) c
                LEFT JOIN (SELECT thread_id, sum(length(value)) AS n FROM writes GROUP BY thread_id) w
                  ON w.thread_id = c.thread_id
                ORDER BY c.own + coalesce(w.n, 0) DESC, c.thread_id
                LIMIT ? OFFSET ?
                """,
                [*params, limit, offset],
            )
        else:
            ranked = self._query(
                f"SELECT thread_id FROM checkpoints {where} GROUP BY thread_id ORDER BY {_THREAD_ORDER[sort]} LIMIT ? OFFSET ?",
                [*params, limit, offset],
            )
        ids = [r[0] for r in ranked]
        if not ids:
            return []
        rows = {r[0]: r for r in self._query(
            f"""SELECT thread_id, count(*), max(CASE WHEN checkpoint_ns = '' THEN checkpoint_id END),
                       sum({_OWN_BYTES}), count(DISTINCT checkpoint_ns), max(checkpoint_id)
                FROM checkpoints WHERE thread_id IN ({self._in_clause(ids)}) GROUP BY thread_id""",
            ids,
        )}
        return thread_summaries([rows[tid] for tid in ids if tid in rows], self._writes_bytes_by_thread(ids), self._titles(ids))

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
    def _writes_summary(self, thread_id: str, where: str = "", params: Iterable[Any] = ()) -> dict[Key, tuple[tuple[str, ...], int]]:
        """``(ns, checkpoint id) -> (channels written, bytes)`` for the thread's writes matching ``where``."""
        return {
            (ns, cid): (tuple(dict.fromkeys(channels.split("\x1f"))) if channels else (), size or 0)
            for ns, cid, channels, size in self._query(
                f"""SELECT checkpoint_ns, checkpoint_id, group_concat(channel, char(31)), sum(length(value))
                    FROM writes WHERE thread_id = ? {where} GROUP BY checkpoint_ns, checkpoint_id""",
                [thread_id, *params],
            )
        }

    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        rows = self.history(thread_id, None)
        if not rows:
            raise thread_not_found(thread_id)
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
            writes = self._writes_summary(thread_id, *(("", []) if ns is None else ("AND checkpoint_ns = ?", [ns])))
            return [full_row(thread_id, row_ns, cid, parent, (size or 0) + len(raw_meta or b""),
                             writes.get((row_ns, cid), ((), 0)), _metadata(raw_meta))
                    for row_ns, cid, parent, size, raw_meta in rows]
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
        return [full_row(thread_id, row_ns, cid, parent, (size or 0) + len(raw_meta or b""),
                         (tuple(dict.fromkeys(channels.split("\x1f"))) if channels else (), wbytes or 0),
                         _metadata(raw_meta))
                for row_ns, cid, parent, size, raw_meta, channels, wbytes in rows]

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        where, params = ("AND checkpoint_id > ?", [after]) if after else ("", [])
        rows = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, {_OWN_BYTES},
                       CASE WHEN checkpoint_ns <> '' AND parent_checkpoint_id IS NULL THEN metadata END
                FROM checkpoints WHERE thread_id = ? {where} ORDER BY checkpoint_id DESC, checkpoint_ns""",
            [thread_id, *params],
        )
        if not rows and (not after or not self._has_thread(thread_id)):
            raise thread_not_found(thread_id)
        writes = self._writes_summary(thread_id, where, params)
        return [keys_only_row(thread_id, ns, cid, parent, size, writes.get((ns, cid), ((), 0)),
                              _metadata(meta).get("parents") if meta is not None else None)
                for ns, cid, parent, size, meta in rows]

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        out: list[CheckpointRow] = []
        for ns, ids in _by_namespace(keys).items():
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                where = f"AND checkpoint_ns = ? AND checkpoint_id IN ({self._in_clause(chunk)})"
                writes = self._writes_summary(thread_id, where, [ns, *chunk])
                out += [
                    full_row(thread_id, ns, cid, parent, size, writes.get((ns, cid), ((), 0)), _metadata(meta))
                    for cid, parent, size, meta in self._query(
                        f"""SELECT checkpoint_id, parent_checkpoint_id, {_OWN_BYTES}, metadata FROM checkpoints
                            WHERE thread_id = ? {where}""",
                        [thread_id, ns, *chunk],
                    )
                ]
        return sorted(out, key=lambda r: (r.checkpoint_id, r.checkpoint_ns), reverse=True)

    def _has_thread(self, thread_id: str) -> bool:
        return bool(self._query("SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1", [thread_id]))

    def _blob_rows(self, thread_id: str, ns: str, ids: list[str], columns: str) -> dict[str, tuple]:
        """``checkpoint id -> (columns...)`` for one batch of a namespace."""
        return {
            row[0]: row[1:]
            for row in self._query(
                f"""SELECT checkpoint_id, {columns} FROM checkpoints
                    WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({self._in_clause(ids)})""",
                [thread_id, ns, *ids],
            )
        }

    # -- sizes -----------------------------------------------------------
    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel stored sizes of every checkpoint, oldest first; values are never decoded.

        Each checkpoint blob holds its own copy of every channel, so sizes add up
        per checkpoint (``size_accounting = "per-checkpoint-copy"``).
        """
        return list(self.iter_field_sizes(thread_id, ns))

    def iter_field_sizes(self, thread_id: str, ns: str | None = None,
                         keys: Collection[Key] | None = None) -> Iterator[CheckpointSizes]:
        ns_clause, params = ("", [thread_id]) if ns is None else ("AND checkpoint_ns = ?", [thread_id, ns])
        listed = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, length(checkpoint) FROM checkpoints
                WHERE thread_id = ? {ns_clause}""",
            params,
        )
        if not listed and not self._has_thread(thread_id):
            raise thread_not_found(thread_id)
        wanted = None if keys is None else set(keys)
        order = sorted((r for r in listed if wanted is None or (r[0], r[1]) in wanted), key=lambda r: (r[1], r[0]))
        return self._stream_sizes(thread_id, ns_clause, params, order)

    def _stream_sizes(self, thread_id: str, ns_clause: str, params: list[Any], order: list[tuple]) -> Iterator[CheckpointSizes]:
        writes = {key: size for key, (_, size) in self._writes_summary(thread_id, ns_clause, params[1:]).items()}
        measured: dict[Key, MeasuredCheckpoint] = {}  # the newest measurement per namespace, for its children
        for batch in batches(order, lambda r: r[3] or 0):
            fetched: dict[Key, tuple] = {}
            for ns, ids in _by_namespace((r[0], r[1]) for r in batch).items():
                for cid, row in self._blob_rows(thread_id, ns, ids, "type, checkpoint, metadata").items():
                    fetched[(ns, cid)] = row
            for ns, cid, parent, _ in batch:
                if (ns, cid) not in fetched:  # deleted while streaming
                    continue
                type_tag, blob, raw_meta = fetched.pop((ns, cid))
                previous = measured.get((ns, parent)) if parent else None
                current = measure_checkpoint_blob(type_tag, blob, previous)
                measured = {(ns, cid): current, **{k: v for k, v in measured.items() if k[0] != ns}}
                step, source = step_and_source(_metadata(raw_meta))
                yield CheckpointSizes(
                    thread_id=thread_id,
                    checkpoint_ns=ns,
                    checkpoint_id=cid,
                    parent_checkpoint_id=parent,
                    step=step,
                    source=source,
                    stored_bytes=len(blob or b"") + len(raw_meta or b""),
                    writes_bytes=writes.get((ns, cid), 0),
                    channels=current.channels,
                    problems=tuple(current.problems),
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
        return write_records(self._write_rows(thread_id, ns, [checkpoint_id]).get(checkpoint_id, []))

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        ids = [r[0] for r in self._query(
            "SELECT DISTINCT checkpoint_id FROM writes WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id",
            [thread_id, ns])]
        return stream_writes(ids, checkpoint_ids, lambda batch: self._write_rows(thread_id, ns, batch))

    def _write_rows(self, thread_id: str, ns: str, ids: list[str]) -> dict[str, list[tuple]]:
        """``checkpoint id -> stored write rows`` in task order, for a batch of one namespace."""
        task_path = "task_path" if self._writes_have_task_path else "''"
        grouped: dict[str, list[tuple]] = {}
        for cid, *row in self._query(
            f"""SELECT checkpoint_id, task_id, {task_path}, idx, channel, type, value FROM writes
                WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id IN ({self._in_clause(ids)})
                ORDER BY checkpoint_id, {task_path}, task_id, idx""",
            [thread_id, ns, *ids],
        ):
            grouped.setdefault(cid, []).append(tuple(row))
        return grouped

    def _decoded(self, thread_id: str, ns: str, cid: str, parent: str | None, type_tag: str | None,
                 blob: bytes | None, raw_meta: Any, write_rows: list[tuple], channels: Collection[str] | None = None,
                 carried: tuple[CheckpointState, DecodedCheckpoint] | None = None) -> tuple[CheckpointState, DecodedCheckpoint]:
        """The state of one checkpoint row; ``carried``: its parent's state and blob, decoded just before."""
        parent_state, parent_blob = carried if carried is not None and carried[0].checkpoint_id == parent else (None, None)
        decoded = decode_checkpoint_blob(type_tag, blob, channels, parent_blob)
        writes, write_problems = write_records(write_rows)
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
            rebuild=sql_rebuilder(self, thread_id, ns, parent, parent_state),
            channels=channels,
        ), decoded

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        cid, parent, type_tag, blob, raw_meta = self._checkpoint_row(thread_id, checkpoint_id, ns)
        return self._decoded(thread_id, ns, cid, parent, type_tag, blob, raw_meta,
                             self._write_rows(thread_id, ns, [cid]).get(cid, []))[0]

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        listed = self._query(
            """SELECT checkpoint_id, parent_checkpoint_id, length(checkpoint) FROM checkpoints
               WHERE thread_id = ? AND checkpoint_ns = ? ORDER BY checkpoint_id""",
            [thread_id, ns],
        )
        if not listed:
            raise thread_not_found(thread_id) if not self._has_thread(thread_id) else NotFound(
                f"no checkpoints in namespace {ns!r} for thread {thread_id!r}")
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        order = [r for r in listed if wanted is None or r[0] in wanted]
        return self._stream_states(thread_id, ns, order, channels)

    def _stream_states(self, thread_id: str, ns: str, order: list[tuple],
                       channels: Collection[str] | None) -> Iterator[CheckpointState]:
        previous: tuple[CheckpointState, DecodedCheckpoint] | None = None
        for batch in batches(order, lambda r: r[2] or 0):
            ids = [r[0] for r in batch]
            fetched = self._blob_rows(thread_id, ns, ids, "type, checkpoint, metadata")
            writes = self._write_rows(thread_id, ns, ids)
            for cid, parent, _ in batch:
                if cid not in fetched:  # deleted while streaming
                    continue
                type_tag, blob, raw_meta = fetched.pop(cid)
                previous = self._decoded(thread_id, ns, cid, parent, type_tag, blob, raw_meta,
                                         writes.get(cid, []), channels, previous)
                yield previous[0]

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
