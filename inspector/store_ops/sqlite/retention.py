"""``RetentionReader`` for LangGraph's SQLite schema: keys, lengths and page footprints, streamed.

A reader opens its own read-only connection and holds one read transaction, so
what it streams is one consistent view while an agent keeps writing. Rows are
read in primary-key order (thread, namespace, checkpoint; by their bytes, even where a table declares its
id columns ``NOCASE``) without their blobs:
``length()`` of a blob comes from the record header, so only the leaf pages are
visited. Metadata sits after the checkpoint blob, so it is read only for
namespace roots (which carry DeerFlow's branch keys and a subgraph's
``parents``) and for the checkpoints the planner asks about.

Footprints follow ``pages``: a row's cell and overflow pages, its entry
in each index, with leaf pages packed as VACUUM packs them. How full those pages
are in this file is measured with ``dbstat`` when SQLite has it (per b-tree,
filtered by name); that measurement also gives the slack VACUUM returns on its
own.
"""

from __future__ import annotations

import json
import sqlite3
import urllib.parse
from dataclasses import dataclass
from itertools import groupby
from pathlib import Path
from typing import Any, Iterator, Sequence

from ...store.depth import json_object
from ...store.model import BranchThread, StoreError
from ...store.not_utf8 import order_key, stored_bytes
from ...store.sql_reading import Closing
from ...store.sqlite.connect import bound, ids_among, iter_ids, read_text
from ..retention_keys import CheckpointKeys, Key, StorageFacts, StrayWrites, ThreadKeys, branch_link
from . import pages

INTERRUPT_CHANNEL = "__interrupt__"
# dbstat visits every page of a b-tree; past this size only the indexes are measured.
DBSTAT_MAX_TABLE_BYTES = 2_000_000_000
SAMPLE_ROWS = 256

_CHECKPOINT_KEYS = """
    SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, rowid,
           length(CAST(type AS BLOB)), length(checkpoint), length(metadata),
           CASE WHEN parent_checkpoint_id IS NULL THEN metadata END
    FROM checkpoints {where}
    ORDER BY thread_id COLLATE BINARY, checkpoint_ns COLLATE BINARY, checkpoint_id COLLATE BINARY
"""

_WRITE_KEYS = """
    SELECT thread_id, checkpoint_ns, checkpoint_id, rowid, length(CAST(task_id AS BLOB)), {task_path}, idx,
           length(CAST(channel AS BLOB)), length(CAST(type AS BLOB)), length(value), channel = '__interrupt__'
    FROM writes {where}
    ORDER BY thread_id COLLATE BINARY, checkpoint_ns COLLATE BINARY, checkpoint_id COLLATE BINARY
"""


# Each table's columns in record order, and their kinds: t(ext), b(lob), i(nteger).
_CHECKPOINT_COLUMNS = ("thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "type", "checkpoint",
                       "metadata")
_CHECKPOINT_KINDS = "tttttbb"
_WRITE_COLUMNS = ("thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "task_path", "idx", "channel", "type",
                  "value")
_WRITE_KINDS = "tttttittb"


def _checkpoint_lengths(row: tuple) -> tuple:
    """Column lengths (the integer itself for ``i`` columns, None for NULL) of a ``_CHECKPOINT_KEYS`` row."""
    return (_utf8_len(row[0]), _utf8_len(row[1]), _utf8_len(row[2]), _utf8_len(row[3]), row[5], row[6], row[7])


def _write_lengths(row: tuple) -> tuple:
    return (_utf8_len(row[0]), _utf8_len(row[1]), _utf8_len(row[2]), row[4], row[5], row[6], row[7], row[8], row[9])


def _utf8_len(value: str | None) -> int | None:
    return None if value is None else len(stored_bytes(value))


def _json(raw: Any) -> dict[str, Any] | None:
    return json_object(raw)


@dataclass(frozen=True)
class _Btree:
    """How one b-tree's leaf pages are used now; ``None`` fields were not measured.

    LangGraph appends rows, so a table's leaves are as full now as VACUUM leaves
    them: their measured density is the one to use. Index entries arrive in key
    order across threads, so an index's leaves are half-empty until VACUUM copies
    them in order: the difference is slack VACUUM returns on its own.
    """

    name: str
    is_table: bool
    mean_cell: float
    leaf_pages: int | None = None
    interior_pages: int | None = None
    leaf_used: int | None = None

    def density(self, model: pages.PageModel) -> float:
        if self.is_table and self.leaf_pages and self.leaf_used:
            return self.leaf_used / self.leaf_pages
        return model.leaf_density(self.mean_cell)

    @property
    def interior_ratio(self) -> float:
        if not self.leaf_pages or self.interior_pages is None:
            return 0.0
        return self.interior_pages / self.leaf_pages

    def slack_pages(self, model: pages.PageModel) -> float:
        """Leaf pages VACUUM gives back by packing this index."""
        if self.is_table or self.leaf_pages is None or self.leaf_used is None:
            return 0.0
        return max(0.0, self.leaf_pages - self.leaf_used / self.density(model))


class SqliteRetentionReader(Closing):
    """Retention keys of one SQLite checkpoint database, on a connection of its own."""

    def __init__(self, path: Path, writes_have_task_path: bool = True) -> None:
        self.path = path
        self._task_path = "length(CAST(task_path AS BLOB))" if writes_have_task_path else "0"
        uri = f"file:{urllib.parse.quote(str(path))}?mode=ro"
        try:
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
            self._conn.text_factory = read_text
            self._conn.execute("PRAGMA query_only = ON")
            self._conn.execute("BEGIN")  # one read transaction: one consistent view
            page_size = self._conn.execute("PRAGMA page_size").fetchone()[0]
            self._page_count = self._conn.execute("PRAGMA page_count").fetchone()[0]
            self._free_pages = self._conn.execute("PRAGMA freelist_count").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"reading {path} failed: {exc}") from None
        self.model = pages.PageModel(page_size, _reserved_bytes(path))
        self.notes: list[str] = []
        self._indexes = self._index_columns()
        self._btrees = self._measure()
        self._sizers: tuple[_RowSizer, _RowSizer] | None = None

    # -- lifecycle -------------------------------------------------------
    def close(self) -> None:
        try:
            self._conn.rollback()
        finally:
            self._conn.close()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> Iterator[tuple]:
        """The rows of ``sql`` as they stream, ids stored as BLOBs read as the store reads them (``iter_ids``)."""
        try:
            return iter_ids(self._conn.execute(*bound(sql, params)))
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"reading {self.path} failed: {exc}") from None

    # -- measuring the file -------------------------------------------------
    def _index_columns(self) -> dict[str, tuple[str, list[str]]]:
        """Indexes on LangGraph's two tables: name -> (table, key columns)."""
        indexes = {}
        for name, table in list(self._query(
            "SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('checkpoints', 'writes')"
        )):
            columns = [row[2] for row in self._query("SELECT * FROM pragma_index_info(?)", [name])]
            indexes[name] = (table, columns)
        return indexes

    def _measure(self) -> dict[str, _Btree]:
        names = ["checkpoints", "writes", *self._indexes]
        measured: dict[str, _Btree] = {}
        file_bytes = self._page_count * self.model.page_size
        for name in names:
            is_table = name in ("checkpoints", "writes")
            stats = None if is_table and file_bytes > DBSTAT_MAX_TABLE_BYTES else self._dbstat(name, is_table)
            measured[name] = stats or _Btree(name, is_table, self._sampled_mean_cell(name) if is_table else 64.0)
        if file_bytes > DBSTAT_MAX_TABLE_BYTES:
            self.notes.append("the file is over 2 GB: how full its table pages are was estimated from a sample, "
                              "not measured")
        return measured

    def _dbstat(self, name: str, is_table: bool) -> _Btree | None:
        try:
            rows = self._conn.execute(
                "SELECT pagetype, count(*), sum(ncell), sum(pgsize - unused - 8) FROM dbstat WHERE name = ? "
                "GROUP BY pagetype", [name]).fetchall()
        except sqlite3.DatabaseError:
            if "dbstat" not in " ".join(self.notes):
                self.notes.append("this SQLite has no dbstat table: half-empty pages VACUUM would pack are not "
                                  "counted, only free pages")
            return None
        by_type = {kind: (count, cells or 0, used or 0) for kind, count, cells, used in rows}
        leaf_pages, leaf_cells, leaf_used = by_type.get("leaf", (0, 0, 0))
        return _Btree(name, is_table, leaf_used / leaf_cells if leaf_cells else 64.0, leaf_pages,
                      by_type.get("internal", (0, 0, 0))[0], leaf_used)

    def _sampled_mean_cell(self, table: str) -> float:
        """The mean leaf cell of a few rows spread over the table, from their lengths."""
        top = next(self._query(f"SELECT max(rowid) FROM {table}"))[0] or 0
        step = max(1, top // SAMPLE_ROWS)
        ids = json.dumps(list(range(1, top + 1, step))[:SAMPLE_ROWS])
        where = "WHERE rowid IN (SELECT value FROM json_each(?))"
        if table == "checkpoints":
            rows = self._query(_CHECKPOINT_KEYS.format(where=where), [ids])
            cells = [self.model.table_row(pages.record_len(_CHECKPOINT_KINDS, _checkpoint_lengths(r)), r[4]).cell
                     for r in rows]
        else:
            rows = self._query(_WRITE_KEYS.format(where=where, task_path=self._task_path), [ids])
            cells = [self.model.table_row(pages.record_len(_WRITE_KINDS, _write_lengths(r)), r[3]).cell for r in rows]
        return sum(cells) / len(cells) if cells else 64.0

    def facts(self) -> StorageFacts:
        slack = sum(b.slack_pages(self.model) for b in self._btrees.values())
        free = int((self._free_pages + slack) * self.model.page_size)
        return StorageFacts("sqlite", self._page_count * self.model.page_size, free, None, tuple(self.notes))

    # -- footprints ------------------------------------------------------
    def _sizer(self, table: str, columns: tuple[str, ...], kinds: str) -> "_RowSizer":
        indexes = [(tuple(columns.index(c) if c in columns else -1 for c in index_columns), self._btrees[name])
                   for name, (indexed, index_columns) in self._indexes.items() if indexed == table]
        return _RowSizer(self.model, kinds, self._btrees[table], indexes)

    # -- streaming ---------------------------------------------------------
    # -- streaming ---------------------------------------------------------
    def _filter(self, thread_ids: Sequence[str] | None) -> tuple[str, list[Any]]:
        if thread_ids is None:
            return "", []
        among, params = ids_among("thread_id", thread_ids)
        return f"WHERE {among}", params

    def threads(self, thread_ids: Sequence[str] | None = None) -> Iterator[ThreadKeys]:
        where, params = self._filter(thread_ids)
        checkpoints = self._query(_CHECKPOINT_KEYS.format(where=where), params)
        writes = groupby(self._query(_WRITE_KEYS.format(where=where, task_path=self._task_path), params),
                         key=lambda r: r[0])
        pending = next(writes, None)
        for thread_id, rows in groupby(checkpoints, key=lambda r: r[0]):
            while pending is not None and order_key(pending[0]) < order_key(thread_id):  # SQLite's order
                pending = next(writes, None)  # writes of a thread without checkpoints: not this plan's
            thread_writes: list[tuple] = []
            if pending is not None and pending[0] == thread_id:
                thread_writes = list(pending[1])
                pending = next(writes, None)
            yield self._thread(thread_id, list(rows), thread_writes)

    def _thread(self, thread_id: str, rows: list[tuple], writes: list[tuple]) -> ThreadKeys:
        if self._sizers is None:
            self._sizers = (self._sizer("checkpoints", _CHECKPOINT_COLUMNS, _CHECKPOINT_KINDS),
                            self._sizer("writes", _WRITE_COLUMNS, _WRITE_KINDS))
        checkpoint_size, write_size = self._sizers
        sums: dict[Key, list] = {}
        for row in writes:
            entry = sums.setdefault((row[1], row[2]), [0, 0, 0.0, False])
            entry[0] += 1
            entry[1] += row[9] or 0
            entry[2] += write_size(_write_lengths(row), row[3])
            entry[3] = entry[3] or bool(row[10])
        checkpoints = []
        for row in rows:
            count, wbytes, wfoot, interrupt = sums.pop((row[1], row[2]), (0, 0, 0.0, False))
            checkpoints.append(CheckpointKeys(
                checkpoint_ns=row[1], checkpoint_id=row[2], parent_checkpoint_id=row[3],
                stored_bytes=(row[6] or 0) + (row[7] or 0), footprint=checkpoint_size(_checkpoint_lengths(row), row[4]),
                writes=count, writes_bytes=wbytes, writes_footprint=wfoot, interrupt=interrupt,
                metadata=_json(row[8]) if row[8] is not None else None,
            ))
        stray: dict[str, list] = {}
        for (ns, _), (count, wbytes, wfoot, _) in sums.items():
            entry = stray.setdefault(ns, [0, 0, 0.0])
            entry[0] += count
            entry[1] += wbytes
            entry[2] += wfoot
        return ThreadKeys(thread_id, checkpoints, [], [StrayWrites(ns, *v) for ns, v in stray.items()])

    # -- metadata ------------------------------------------------------------
    def metadata(self, thread_id: str, keys: Sequence[Key]) -> dict[Key, dict[str, Any]]:
        found: dict[Key, dict[str, Any]] = {}
        by_ns: dict[str, list[str]] = {}
        for ns, cid in keys:
            by_ns.setdefault(ns, []).append(cid)
        for ns, ids in by_ns.items():
            for start in range(0, len(ids), 500):
                among, params = ids_among("checkpoint_id", ids[start:start + 500])
                for cid, raw in self._query(
                    f"SELECT checkpoint_id, metadata FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
                    f"AND {among}", [thread_id, ns, *params]):
                    value = _json(raw)
                    if value is not None:
                        found[(ns, cid)] = value
        return found

    def branch_links(self) -> list[BranchThread]:
        links = []
        for thread_id, raw in self._query(
            "SELECT thread_id, metadata FROM checkpoints WHERE parent_checkpoint_id IS NULL AND checkpoint_ns = '' "
            "AND CAST(metadata AS TEXT) LIKE '%branch_parent_checkpoint_id%'"):
            link = branch_link(thread_id, _json(raw))
            if link is not None:
                links.append(link)
        return links


def _reserved_bytes(path: Path) -> int:
    """Bytes reserved at the end of each page (header offset 20), 0 when unreadable."""
    try:
        with path.open("rb") as fh:
            header = fh.read(21)
        return header[20] if len(header) > 20 else 0
    except OSError:
        return 0


class _RowSizer:
    """Bytes a row of one table takes once VACUUM packed the file: its cell and overflow pages, and its
    entry in each index, from the row's column lengths."""

    def __init__(self, model: pages.PageModel, kinds: str, table: _Btree,
                 indexes: list[tuple[tuple[int, ...], _Btree]]) -> None:
        self.model, self.kinds = model, kinds
        self.table_factor = model.page_size / table.density(model) * (1 + table.interior_ratio)
        self.indexes = [(positions, "".join(kinds[p] if p >= 0 else "t" for p in positions) + "i",
                         model.page_size / tree.density(model) * (1 + tree.interior_ratio))
                        for positions, tree in indexes]

    def __call__(self, lengths: tuple, rowid: int) -> float:
        model = self.model
        row = model.table_row(pages.record_len(self.kinds, lengths), rowid)
        total = row.cell * self.table_factor + row.overflow_pages * model.page_size
        for positions, key_kinds, factor in self.indexes:
            key = tuple(lengths[p] if p >= 0 else None for p in positions) + (rowid,)
            entry = model.index_entry(pages.record_len(key_kinds, key))
            total += entry.cell * factor + entry.overflow_pages * model.page_size
        return total


class SqliteRetention:
    """``Operations.retention_reader`` for ``SqliteOperations``."""

    path: Path
    _writes_have_task_path: bool

    def retention_reader(self) -> SqliteRetentionReader:
        """Keys, lengths and page footprints for retention planning, on a read-only connection of its own."""
        return SqliteRetentionReader(self.path, self._writes_have_task_path)
