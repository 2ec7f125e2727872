"""Rows no checkpoint needs, as the stores find them: ``Store.orphan_rows``.

Writes stored against a checkpoint that is not in the store (and threads whose every checkpoint is
gone while writes remain), PostgreSQL blob rows no checkpoint's ``channel_versions`` names, and, where
an app keeps its own thread table beside the checkpoints (DeerFlow's ``threads_meta``, LangGraph Agent
Server's ``thread``) and the role may read it, threads only one side knows. Counts and bytes from
lengths; no value is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .apps import APP_THREAD_TABLES as APP_THREAD_TABLES  # the apps' thread tables, where the backends read them
from .not_utf8 import decode, is_blob


@dataclass(frozen=True)
class OrphanThread:
    thread_id: str
    rows: int
    bytes: int
    gone: bool = False  # orphaned writes of a thread with no checkpoint left at all
    blob: bool = False  # an id stored as a BLOB (bytea): ``thread_id`` is its bytes read as text, shown marked


def thread_id_of(value: object) -> tuple[str, bool]:
    """A thread id as read from a table, and whether it was stored as bytes (a BLOB, bytea). Bytes are read as
    ``not_utf8.decode`` reads them (lossless: bytes that are not UTF-8 are named as ``not_utf8.shown`` names any
    such id), never as Python's ``b'...'``."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return decode(bytes(value)), True
    if is_blob(value):  # as the SQLite store reads a BLOB in a thread_id column (``not_utf8.from_blob``)
        return value[1:], True
    return str(value), False


def app_knows(dialect: str, bytes_ids: bool = False) -> str:
    """SQL: the app's row ``{a}`` names the thread of checkpoint row ``{c}`` (fill both with ``str.format``), as the
    app compares. SQLite: the ids as stored, so a BLOB equals no text (``'a' = X'61'`` is false) and the app,
    binding text, never finds it. PostgreSQL: a text (varchar, uuid) id as text; a ``bytea`` id against the
    checkpoint id's UTF-8, so the index on the app's key still serves and bytes that are not UTF-8 equal no
    checkpoint id (text never equals bytea)."""
    if dialect == "sqlite":
        return "{a}.thread_id = {c}.thread_id"
    return "{a}.thread_id = convert_to({c}.thread_id, 'UTF8')" if bytes_ids else "{a}.thread_id::text = {c}.thread_id"


@dataclass(frozen=True)
class OrphanSet:
    """One kind of leftover: how many rows and bytes in all, and the largest ``threads`` by bytes."""

    kind: str  # "writes", "blobs", "app-without-checkpoints", "checkpoints-unknown-to-app"
    rows: int
    bytes: int
    thread_count: int
    threads: list[OrphanThread] = field(default_factory=list)
    table: str | None = None  # the app's thread table, for the app kinds
    app: str | None = None
    # PostgreSQL: the app table's thread_id is bytea, matched to a checkpoint's text id by that id's UTF-8
    # (``convert_to``), as the app that wrote it compares; bytes that are not UTF-8 match no checkpoint
    bytes_ids: bool = False


@dataclass(frozen=True)
class OrphanRows:
    dialect: str
    sets: list[OrphanSet]
    app_tables: list[tuple[str, str]]  # (app, table) found and readable
    limit: int
