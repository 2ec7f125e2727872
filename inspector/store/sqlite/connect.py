"""The read-only connection under ``SqliteStore``: opened ``mode=ro`` with ``query_only``, and reopened
when the file at the path is no longer the file it opened.

An open SQLite connection keeps reading the file it opened even after that file
was deleted or replaced (an agent's store restored from a backup, a demo
regenerated): every read first compares the path's identity (device, inode, and the
file's birth time where the system keeps one, so an inode number used again by a new
file is another file) with the opened one. A replaced file is reopened and checked again; a missing file is
one clear ``StoreError`` until it is back. A file locked by a writer (rollback
journal mode) waits ``BUSY_TIMEOUT_SECONDS``, then says so; the next read tries again.
"""

from __future__ import annotations

import ctypes
import functools
import json
import os
import re
import sqlite3
import struct
import sys
import threading
import urllib.parse
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..id_dating import bucket_of
from ..model import StoreError
from ..not_utf8 import from_blob, is_blob, is_not_utf8, stored_bytes

REQUIRED_TABLES = {"checkpoints", "writes"}
# Text columns read losslessly: bytes that are not UTF-8 become lone surrogates (``not_utf8``), so an id
# written as invalid text by raw SQL is a str unequal to every valid id, and ``bound`` binds it back by its bytes.
read_text = functools.partial(str, encoding="utf-8", errors="surrogateescape")  # ``not_utf8.decode``, called from C
BUSY_TIMEOUT_SECONDS = 5.0
# Result columns holding ids (by name, a table's prefix and an aggregate such as ``max(checkpoint_id)`` allowed): a
# BLOB there (raw SQL can store one) is read as ``not_utf8.from_blob`` reads it, an id like any other, never ``bytes``.
_ID_COLUMN = re.compile(r"(?:(?:max|min)\()?(?:\w+\.)?(?:thread_id|checkpoint_ns|checkpoint_id|parent_checkpoint_id)\)?",
                        re.IGNORECASE)


@functools.lru_cache(maxsize=1024)
def _is_id_column(name: str) -> bool:
    return _ID_COLUMN.fullmatch(name) is not None


def id_positions(description: Any) -> tuple[int, ...]:
    """The result columns (of a cursor's ``description``) that hold ids."""
    return tuple(i for i, column in enumerate(description or ()) if _is_id_column(column[0]))


def read_ids(cursor: sqlite3.Cursor) -> list[tuple]:
    """Every row of ``cursor``, a BLOB in an id column read as ``from_blob`` reads it: the rows as fetched when none
    holds one (as in nearly every store), checked column by column, never a call per row."""
    rows = cursor.fetchall()
    positions = id_positions(cursor.description)
    if not positions or not rows or all(bytes not in {type(row[i]) for row in rows} for i in positions):
        return rows
    return [_ids_read(row, positions) for row in rows]


def iter_ids(cursor: sqlite3.Cursor) -> Iterator[tuple]:
    """``read_ids`` for a cursor read as it streams."""
    positions = id_positions(cursor.description)
    return (_ids_read(row, positions) for row in cursor) if positions else iter(cursor)


def _ids_read(row: tuple, positions: tuple[int, ...]) -> tuple:
    if all(type(row[i]) is not bytes for i in positions):
        return row
    return tuple(from_blob(v) if i in positions and type(v) is bytes else v for i, v in enumerate(row))


def bound(sql: str, params: Iterable[Any] = ()) -> tuple[str, tuple]:
    """``sql`` and ``params`` ready to execute: a text parameter that is not UTF-8 (an id read by ``read_text``)
    is bound as its stored bytes, its placeholder turned into ``CAST(? AS TEXT)``, so it equals exactly the
    text it was read from and nothing else; an id stored as bytes (``read_ids``) is bound as those bytes, a BLOB.
    Every other statement is returned as it is."""
    params = tuple(params)
    bad = {i for i, p in enumerate(params) if type(p) is str and is_not_utf8(p)}
    if not bad:
        return sql, params
    if all(is_blob(params[i]) for i in bad):
        return sql, tuple(stored_bytes(p) if j in bad else p for j, p in enumerate(params))
    out, n, quote, i = [], 0, "", 0
    while i < len(sql):  # the positional placeholders, outside quoted literals, identifiers and comments
        ch = sql[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        elif ch == "[":
            quote = "]"
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = len(sql) if end < 0 else end
            out.append(sql[i:end])
            i = end
            continue
        elif ch == "?":
            out.append("CAST(? AS TEXT)" if n in bad and not is_blob(params[n]) else "?")
            n, i = n + 1, i + 1
            continue
        out.append(ch)
        i += 1
    return "".join(out), tuple(stored_bytes(p) if j in bad else p for j, p in enumerate(params))


def ids_among(column: str, ids: Iterable[str]) -> tuple[str, list[Any]]:
    """A condition ``column`` is one of ``ids`` (any number, one parameter: a JSON list), and its parameters;
    an id that is not UTF-8 has no JSON form, and one holding a NUL does not survive ``json_each`` (SQLite's JSON
    text ends there), so each gets a placeholder of its own (bound by ``bound``)."""
    ids = list(ids)
    bad = [i for i in ids if _bound_alone(i)]
    good = json.dumps([i for i in ids if not _bound_alone(i)]) if bad else json.dumps(ids)
    condition = f"{column} IN (SELECT value FROM json_each(?))"
    if not bad:
        return condition, [good]
    return f"({condition} OR {column} IN ({','.join('?' * len(bad))}))", [good, *bad]


def _bound_alone(text: str) -> bool:
    """Whether ``ids_among`` binds ``text`` by a placeholder of its own (not UTF-8, or holding a NUL)."""
    return is_not_utf8(text) or "\x00" in text


def _ro_uri(path: Path) -> str:
    return f"file:{urllib.parse.quote(str(path))}?mode=ro"


def _identity(path: Path) -> tuple[int, int, int] | None:
    """(device, inode, birth time in ns or 0 where the system keeps none) of the file at ``path``."""
    try:
        stat = path.stat()
    except OSError:
        return None
    born = getattr(stat, "st_birthtime_ns", None) or int(getattr(stat, "st_birthtime", 0) * 1e9) or _statx_birth_ns(path)
    return (stat.st_dev, stat.st_ino, born)


_STATX_BTIME, _AT_FDCWD, _STATX_SIZE = 0x800, -100, 256


@functools.lru_cache(maxsize=1)
def _statx() -> object | None:
    """Linux's ``statx`` from the C library (glibc 2.28+), which reports a file's birth time; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).statx
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_char_p]
    function.restype = ctypes.c_int
    return function


def _statx_birth_ns(path: Path) -> int:
    """The file's birth time in ns as ``statx`` reports it (``struct statx``: ``stx_mask`` at 0, ``stx_btime`` at
    80), or 0 when the call or the file system gives none."""
    function = _statx()
    if function is None:
        return 0
    buffer = ctypes.create_string_buffer(_STATX_SIZE)
    if function(_AT_FDCWD, os.fsencode(path), 0, _STATX_BTIME, buffer) != 0:  # type: ignore[operator]
        return 0
    mask, = struct.unpack_from("=I", buffer, 0)
    if not mask & _STATX_BTIME:
        return 0
    seconds, nanoseconds = struct.unpack_from("=qI", buffer, 80)
    return seconds * 1_000_000_000 + nanoseconds


def _is_lock(exc: sqlite3.DatabaseError) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in str(exc) or "busy" in str(exc))


BUCKET_FUNCTION = "inspector_growth_bucket"  # id_dating.bucket_of(id, width, since), for growth's statements


class ReadOnlySqlite:
    """One read-only connection to the SQLite file at ``path``, following the file if it is replaced."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._identity: tuple[int, int, int] | None = None
        self.writes_have_task_path = False
        self._open()

    def _open(self) -> None:
        identity = _identity(self.path)
        if identity is None or not self.path.is_file():
            raise StoreError(f"no SQLite database at {self.path}")
        try:
            conn = sqlite3.connect(_ro_uri(self.path), uri=True, check_same_thread=False, timeout=BUSY_TIMEOUT_SECONDS)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path} is not a readable SQLite database ({exc})") from None
        conn.text_factory = read_text
        # registered once, here: SQLite refuses to add a function while another thread's statement runs
        conn.create_function(BUCKET_FUNCTION, 3, bucket_of, deterministic=True)
        try:
            conn.execute("PRAGMA query_only = ON")
            self.check_tables(conn, {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")})
        except sqlite3.DatabaseError as exc:
            conn.close()
            if _is_lock(exc):
                raise self.read_error(exc) from None
            raise StoreError(f"{self.path} is not a readable SQLite database ({exc})") from None
        except StoreError:
            conn.close()
            raise
        self._conn, self._identity = conn, identity

    def check_tables(self, conn: sqlite3.Connection, tables: set[str]) -> None:
        """Raise ``StoreError`` unless the file holds the tables this connection reads (``tables``: all it holds)."""
        missing = REQUIRED_TABLES - tables
        if missing:
            held = ("; it holds a LangGraph memory store (table store): the Memory page and the memory command "
                    "read it") if "store" in tables else ""
            raise StoreError(f"{self.path} is not a LangGraph checkpoint database "
                             f"(missing tables: {', '.join(sorted(missing))}){held}")
        self.writes_have_task_path = "task_path" in {r[1] for r in conn.execute("PRAGMA table_info(writes)")}

    def connection(self) -> sqlite3.Connection:
        """The connection to the file now at ``path`` (reopened if the file was replaced)."""
        with self._lock:
            identity = _identity(self.path)
            if identity is None:
                raise StoreError(f"the SQLite file {self.path} is gone (deleted or moved); "
                                 "it is read again as soon as it is back")
            if identity != self._identity or self._conn is None:
                old, self._conn = self._conn, None
                if old is not None:
                    old.close()
                self._open()
            return self._conn  # type: ignore[return-value]

    @property
    def file_identity(self) -> tuple[int, int, int] | None:
        """The identity of the file the connection reads (it is reopened when the file is replaced):
        (device, inode, birth time in ns or 0)."""
        return self._identity

    def read_error(self, exc: sqlite3.DatabaseError) -> StoreError:
        """One line saying what went wrong, and whether trying again will help."""
        text = str(exc)
        if _is_lock(exc):
            return StoreError(f"the SQLite file {self.path} is locked by a writer ({text}) for more than "
                              f"{BUSY_TIMEOUT_SECONDS:g} s; try again in a moment")
        if _identity(self.path) != self._identity:
            return StoreError(f"the SQLite file {self.path} changed while it was read ({text}); "
                              "the next read opens the new file")
        return StoreError(f"reading {self.path} failed: {text}")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
