"""Rows no checkpoint needs, as the stores find them: ``Store.orphan_rows``.

Writes stored against a checkpoint that is not in the store (and threads whose every checkpoint is
gone while writes remain), PostgreSQL blob rows no checkpoint's ``channel_versions`` names, and, where
an app keeps its own thread table beside the checkpoints (DeerFlow's ``threads_meta``, LangGraph Agent
Server's ``thread``) and the role may read it, threads only one side knows. Counts and bytes from
lengths; no value is read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# (app, table): thread tables apps keep beside the checkpoint tables, each with a thread_id column
APP_THREAD_TABLES = (("DeerFlow", "threads_meta"), ("LangGraph Agent Server", "thread"))


@dataclass(frozen=True)
class OrphanThread:
    thread_id: str
    rows: int
    bytes: int
    gone: bool = False  # orphaned writes of a thread with no checkpoint left at all


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


@dataclass(frozen=True)
class OrphanRows:
    dialect: str
    sets: list[OrphanSet]
    app_tables: list[tuple[str, str]]  # (app, table) found and readable
    limit: int
