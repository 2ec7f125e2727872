"""What a SQLite checkpoint holds (``Store.checkpoint_shapes``): each blob walked by its headers through
SQLite's incremental blob I/O, so only the pages the walk touches are read."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection

from ..model import StoreError
from ..shape_walk import BytesReader, ChunkedReader, stored_shapes
from ..shapes import CheckpointShapes
from .queries import metadata

ThreadKey = tuple[str, str, str]  # (thread id, namespace, checkpoint id)
_CHUNK = 300  # keys per statement (three parameters each, within SQLite's 999)


class SqliteShapes:
    """``checkpoint_shapes`` (a mixin of ``SqliteStore``: needs ``_query`` and ``_conn``)."""

    def checkpoint_shapes(self, keys: Collection[ThreadKey]) -> dict[ThreadKey, CheckpointShapes]:
        keys = list(dict.fromkeys(keys))
        found: dict[ThreadKey, CheckpointShapes] = {}
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start : start + _CHUNK]
            # each key looked up on the primary key (a row-value IN list would scan the table)
            keys_sql = f"WITH k(t, n, i) AS (VALUES {','.join(['(?, ?, ?)'] * len(chunk))}) "
            join = ("FROM k CROSS JOIN checkpoints c ON c.thread_id = k.t AND c.checkpoint_ns = k.n "
                    "AND c.checkpoint_id = k.i")
            params = [part for key in chunk for part in key]
            try:
                rows = self._query(keys_sql + "SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.rowid, c.type, "
                                   f"length(c.checkpoint), c.metadata {join}", params)
            except StoreError:  # a table without rowids: each blob read whole
                rows = [(t, n, c, None, *rest) for t, n, c, *rest in self._query(
                    keys_sql + "SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.type, length(c.checkpoint), "
                    f"c.metadata {join}", params)]
            for thread_id, ns, cid, rowid, type_tag, length, raw_meta in rows:
                key = (thread_id, ns, cid)
                found[key] = self._shapes_of(key, rowid, type_tag, length or 0, metadata(raw_meta))
        return found

    def _shapes_of(self, key: ThreadKey, rowid: int | None, type_tag: str | None, length: int,
                   meta: dict) -> CheckpointShapes:
        if rowid is not None:
            try:
                with self._conn.blobopen("checkpoints", "checkpoint", rowid, readonly=True) as blob:
                    return stored_shapes(type_tag, ChunkedReader(blob, length), meta)
            except sqlite3.Error:  # a value the blob API cannot open (NULL, a replaced file): read it whole
                pass
        rows = self._query("SELECT checkpoint FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ? "
                           "AND checkpoint_id = ?", list(key))
        raw = rows[0][0] if rows else b""
        raw = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else bytes(raw or b"")
        return stored_shapes(type_tag, BytesReader(raw), meta)
