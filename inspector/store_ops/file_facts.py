"""What a store's files hold, as the database itself reports it: ``Operations.file_facts``.

SQLite: the database file and its ``-wal`` and ``-shm`` files, page size, free pages (what ``VACUUM``
would give back to the disk), bytes per table and index (``dbstat`` when the build has it; estimated
from stored lengths otherwise). PostgreSQL: each table's heap, TOAST and index bytes, live and dead
tuples and the last (auto)vacuum, from functions and statistics views a ``SELECT``-only role may read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class FileSize:
    name: str  # a file path (SQLite) or the database's name (PostgreSQL)
    bytes: int | None  # None: not there (a -wal file after a checkpoint, say)


@dataclass(frozen=True)
class RelationFacts:
    """One table or index: its bytes and, where the database keeps them, its tuple counts and vacuums."""

    name: str
    kind: str  # "table" or "index"
    table: str  # the table an index belongs to (a table's own name for a table)
    bytes: int  # everything it takes (a table: heap + TOAST + indexes on PostgreSQL; its pages on SQLite)
    heap_bytes: int | None = None
    toast_bytes: int | None = None
    index_bytes: int | None = None
    payload_bytes: int | None = None  # SQLite dbstat: bytes of row and key payload in those pages
    live_rows: int | None = None
    dead_rows: int | None = None
    last_vacuum: datetime | None = None
    last_autovacuum: datetime | None = None
    langgraph: bool = False  # one of LangGraph's checkpoint tables (or an index on one)


@dataclass(frozen=True)
class FileFacts:
    kind: str
    files: list[FileSize]
    total_bytes: int  # what the files (SQLite) or the database (PostgreSQL) take on disk
    relations: list[RelationFacts]
    basis: str  # where the per-table bytes come from
    page_size: int | None = None
    page_count: int | None = None
    free_pages: int | None = None
    free_bytes: int | None = None  # SQLite: what VACUUM would give back; PostgreSQL: None (see dead_rows)
    dead_rows: int | None = None
    problems: list[str] = field(default_factory=list)


LANGGRAPH_TABLES = {
    "sqlite": ("checkpoints", "writes"),
    "postgres": ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations"),
}
