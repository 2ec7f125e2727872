"""PostgreSQL URLs, read-only session options, the connection pool and the schema check, for ``PostgresStore``.

Accepted: ``postgresql://user:pass@host:port/db`` or ``postgres://...``, with an
optional schema as ``?options=-csearch_path=NAME`` (libpq's own form) or
``?schema=NAME``. Messages never contain the password.

The pool checks a connection before lending it, so after a server restart the
next read reconnects; while the server is away a read waits at most
``POOL_WAIT_SECONDS`` and fails with one line that says so. A statement timeout
names the setting that raises it.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg import conninfo as pg_conninfo
from psycopg.types.json import set_json_loads
from psycopg_pool import ConnectionPool, PoolTimeout

from ..depth import TOO_DEEP_KEY, TooDeep, loads
from ..model import NotFound, StoreError
from ..not_utf8 import is_blob, is_not_utf8, quoted

LANGGRAPH_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations")
# langgraph-checkpoint-postgres' migration level that added checkpoint_writes.task_path,
# the newest column the inspector reads.
REQUIRED_MIGRATION = 9
POOL_WAIT_SECONDS = 5.0


@dataclass(frozen=True)
class PgTarget:
    conninfo: str
    options: str
    password: str | None
    where: str
    schema: str | None
    statement_timeout_ms: int = 30_000

    def connect_kwargs(self) -> dict[str, Any]:
        # prepare_threshold None: psycopg never prepares a statement on the server, so every read is planned
        # for its own parameters; a long-lived session's prepared statements could switch to PostgreSQL's
        # generic plan, one plan for every thread, the store's longest as its smallest.
        return {"autocommit": True, "options": self.options, "prepare_threshold": None}


def parse_pg_url(url: str, statement_timeout_ms: int = 30_000) -> PgTarget:
    """Split a PostgreSQL URL into libpq conninfo plus read-only session options."""
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None) or None
    rest = urllib.parse.urlencode([(k, v) for k, v in query if k != "schema"])
    cleaned = urllib.parse.urlunsplit(("postgresql", parts.netloc, parts.path, rest, ""))
    try:
        params = pg_conninfo.conninfo_to_dict(cleaned)
    except psycopg.ProgrammingError as exc:
        raise StoreError(f"malformed PostgreSQL URL: {_redact(str(exc).splitlines()[0], parts.password)}") from None
    user_options = str(params.pop("options", "") or "")
    if schema is None:
        schema = _search_path_of(user_options)
    options = " ".join(
        filter(
            None,
            [
                user_options,
                "-c default_transaction_read_only=on",
                f"-c statement_timeout={int(statement_timeout_ms)}",
                f"-c search_path={_quote_option(schema)}" if schema else "",
            ],
        )
    )
    where = f"{parts.hostname or 'localhost'}:{parts.port or 5432}/{params.get('dbname', '')}"
    return PgTarget(pg_conninfo.make_conninfo(**params), options, parts.password, where, schema,
                    int(statement_timeout_ms))


def _search_path_of(options: str) -> str | None:
    for token in options.replace("-c ", "-c").split():
        if token.startswith("-csearch_path="):
            return token.split("=", 1)[1].split(",")[0].strip('"') or None
    return None


def _quote_option(value: str) -> str:
    return value.replace("\\", "\\\\").replace(" ", "\\ ")


def _redact(text: str, password: str | None) -> str:
    """``text`` with each occurrence of ``password`` that stands on its own (not inside a longer word) as ``***``:
    a short password (``p``) is not cut out of the words around it."""
    if not password:
        return text
    return re.sub(rf"(?<![0-9A-Za-z]){re.escape(password)}(?![0-9A-Za-z])", "***", text)


def one_line(exc: BaseException, target: PgTarget) -> str:
    """The server's message in one line, without the password."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = "; ".join(dict.fromkeys(lines)) or type(exc).__name__
    return _redact(text, target.password)


def _stored_json(data: bytes | str) -> Any:
    """A JSON/JSONB column as Python data; one nested past ``depth.MAX_DEPTH`` reads as ``{"__too_deep__": why}``
    instead of breaking the whole fetch (psycopg's own loader recurses)."""
    try:
        return loads(data)
    except TooDeep as exc:
        return {TOO_DEEP_KEY: str(exc)}


def bounded_json(conn: psycopg.Connection) -> None:
    """Read the connection's JSON and JSONB columns with the depth guard."""
    set_json_loads(_stored_json, conn)


def open_pool(target: PgTarget, size: int) -> ConnectionPool:
    """A small pool of read-only sessions, each checked before it is lent (a restarted server is reconnected)."""
    pool = ConnectionPool(
        target.conninfo, min_size=1, max_size=size, kwargs=target.connect_kwargs(), open=False, name="inspector-ro",
        check=ConnectionPool.check_connection, timeout=POOL_WAIT_SECONDS, configure=bounded_json,
    )
    pool.open(wait=True, timeout=15)
    return pool


def read_error(exc: psycopg.Error, target: PgTarget) -> StoreError:
    """A failed read as one line: a statement timeout names its setting, a lost server says it is retried."""
    if isinstance(exc, psycopg.errors.QueryCanceled):
        return StoreError(
            f"a read from PostgreSQL at {target.where} ran past the statement timeout of "
            f"{target.statement_timeout_ms} ms; raise the pg_statement_timeout_ms setting "
            f"(INSPECTOR_PG_STATEMENT_TIMEOUT_MS) to allow longer reads")
    if isinstance(exc, (PoolTimeout, psycopg.OperationalError)):
        return StoreError(f"PostgreSQL at {target.where} is not answering ({one_line(exc, target)}); "
                          "the next read reconnects")
    return StoreError(f"reading PostgreSQL at {target.where} failed: {one_line(exc, target)}")


def not_utf8_named(params: Any) -> NotFound:
    """What a query bound to a text that is not UTF-8 (an id typed with bytes such as 0xFF) finds: nothing, since
    PostgreSQL text cannot hold such bytes; said as a missing name rather than as psycopg's encoding error."""
    stack, bad = [params], None
    while stack and bad is None:
        value = stack.pop()
        if isinstance(value, str) and is_not_utf8(value):
            bad = value
        elif isinstance(value, (list, tuple)):
            stack.extend(reversed(value))
        elif isinstance(value, dict):
            stack.extend(value.values())
    named = f"named {quoted(bad)}" if bad is not None else "named by text that is not UTF-8"
    if bad is not None and is_blob(bad):
        return NotFound(f"nothing in this store is {named}: PostgreSQL's id columns are text, never bytes")
    return NotFound(f"nothing in this store is {named}: PostgreSQL text cannot hold bytes that are not UTF-8")


def check_schema(conn: psycopg.Connection, target: PgTarget) -> None:
    """Raise ``StoreError`` unless LangGraph's tables are there at a migration level the inspector reads."""
    found = conn.execute(
        "SELECT " + ", ".join("to_regclass(%s) IS NOT NULL" for _ in LANGGRAPH_TABLES), list(LANGGRAPH_TABLES)
    ).fetchone()
    missing = [name for name, present in zip(LANGGRAPH_TABLES, found) if not present]
    schema = f" (schema {target.schema})" if target.schema else ""
    if len(missing) == len(LANGGRAPH_TABLES):
        raise StoreError(f"{target.where}{schema} has no LangGraph checkpoint tables (checkpoints, checkpoint_blobs, ...)")
    if missing:
        raise StoreError(f"{target.where}{schema} is missing LangGraph tables: {', '.join(missing)}")
    level = conn.execute("SELECT max(v) FROM checkpoint_migrations").fetchone()[0]
    if level is None or level < REQUIRED_MIGRATION:
        raise StoreError(
            f"{target.where}{schema} has LangGraph's checkpoint schema at migration level {level}, older than "
            f"{REQUIRED_MIGRATION}; upgrade it with langgraph-checkpoint-postgres (PostgresSaver.setup()) first"
        )
