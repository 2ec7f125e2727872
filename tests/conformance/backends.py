"""Throwaway stores for the read adapter: LangGraph's saver writes, ``open_store`` reads.

``sqlite_pair(folder)`` makes a fresh SQLite file; ``postgres_pair(server)`` a fresh schema
on the test server, written by the superuser and read as the SELECT-only role. Each yields
``(writer, store)`` and removes everything on exit.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from conftest import READONLY_ROLE, PgServer
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from psycopg import sql
from psycopg.rows import dict_row

from inspector.store import Store, open_store


@contextmanager
def sqlite_pair(folder: Path) -> Iterator[tuple[SqliteSaver, Store]]:
    path = folder / f"conformance-{uuid.uuid4().hex}.db"
    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        writer = SqliteSaver(conn)
        writer.setup()
        with open_store(f"sqlite:///{path}") as store:
            yield writer, store
    finally:
        conn.close()
        path.unlink(missing_ok=True)


@contextmanager
def postgres_pair(server: PgServer) -> Iterator[tuple[PostgresSaver, Store]]:
    schema = f"conformance_{uuid.uuid4().hex[:12]}"
    name, role = sql.Identifier(schema), sql.Identifier(READONLY_ROLE)
    with psycopg.connect(server.admin_dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE SCHEMA {}").format(name))
    conn = psycopg.connect(server.admin_dsn, autocommit=True, prepare_threshold=0, row_factory=dict_row,
                           options=f"-c search_path={schema}")
    try:
        writer = PostgresSaver(conn)
        writer.setup()
        conn.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(name, role))
        conn.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(name, role))
        with open_store(f"{server.readonly_dsn}?schema={schema}") as store:
            yield writer, store
    finally:
        conn.close()
        with psycopg.connect(server.admin_dsn, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(name))
