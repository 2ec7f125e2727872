"""``ShallowPostgresSaver``'s tables read as ``PostgresSaver``'s: the latest checkpoint of each thread only.

That saver keeps one ``checkpoints`` row per thread and namespace (its id only inside the JSONB, no parent)
and one ``checkpoint_blobs`` row per channel (no version: the row holds the value of the version the
checkpoint names). Every statement the store runs reads ``checkpoints`` and ``checkpoint_blobs`` by name;
for a shallow store each statement is prefixed with two common table expressions of those names that give
the saver's rows PostgresSaver's columns (``checkpoint_id``, ``parent_checkpoint_id`` NULL, ``version``),
reading the real tables by their schema-qualified names. Nothing is created on the server: the session
stays read-only.
"""

from __future__ import annotations

import re
from typing import Any

_LEADING = re.compile(r"\s*(?:--[^\n]*\n\s*)*", re.ASCII)
_WITH = re.compile(r"WITH(\s+RECURSIVE)?\s", re.IGNORECASE | re.ASCII)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def shallow_views(schema: str | None) -> str:
    """The common table expressions standing for PostgresSaver's two tables over the shallow saver's own."""
    where = f"{_quoted(schema)}." if schema else ""
    return (
        f"checkpoints AS (SELECT c.thread_id, c.checkpoint_ns, c.checkpoint ->> 'id' AS checkpoint_id, "
        f"NULL::text AS parent_checkpoint_id, c.type, c.checkpoint, c.metadata FROM {where}checkpoints c), "
        f"checkpoint_blobs AS (SELECT b.thread_id, b.checkpoint_ns, b.channel, "
        f"coalesce(c.checkpoint -> 'channel_versions' ->> b.channel, '') AS version, b.type, b.blob "
        f"FROM {where}checkpoint_blobs b LEFT JOIN {where}checkpoints c "
        f"ON c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns)"
    )


def over_views(sql: Any, views: str) -> Any:
    """``sql`` reading the views: a ``SELECT`` gets a ``WITH`` clause, a ``WITH`` gets the views first. Other
    statements (``SET``, ``SHOW``) and composed SQL pass unchanged."""
    if not isinstance(sql, str):
        return sql
    start = _LEADING.match(sql).end()
    head = sql[start:]
    found = _WITH.match(head)
    if found:
        return f"{sql[:start]}{found.group(0)}{views}, {head[found.end():]}"
    if head[:6].upper() == "SELECT":
        return f"{sql[:start]}WITH {views} {head}"
    return sql


class ShallowCursor:
    """A cursor whose statements read the views."""

    def __init__(self, cursor: Any, views: str) -> None:
        self._cursor, self._views = cursor, views

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> "ShallowCursor":
        self._cursor.execute(over_views(query, self._views), params, **kwargs)
        return self

    def __iter__(self) -> Any:
        return iter(self._cursor)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class ShallowConnection:
    """A pooled session whose statements read the views (everything else is the session's own)."""

    def __init__(self, conn: Any, views: str) -> None:
        self._conn, self._views = conn, views

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        return self._conn.execute(over_views(query, self._views), params, **kwargs)

    def cursor(self, *args: Any, **kwargs: Any) -> ShallowCursor:
        return ShallowCursor(self._conn.cursor(*args, **kwargs), self._views)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)
