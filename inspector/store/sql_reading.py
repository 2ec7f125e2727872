"""The reading steps every SQL backend shares, written once over the few pieces a dialect supplies.

A backend (``sqlite/``, ``postgres/``) mixes these in and sets ``MARK`` (its parameter placeholder) and
``WRITES`` (its writes table); the SQL that differs beyond that (how metadata is matched, which lengths a
page's rows carry) is named by the hooks each mixin documents. ``Closing`` is the context manager every
store and reader is.
"""

from __future__ import annotations

from typing import Any, Collection, Iterator, Sequence

from . import delta
from .decode import Problem
from .model import CheckpointRow, CheckpointState, NotFound, WriteRecord
from .not_utf8 import quoted
from .records import (
    HistoryTimeline,
    assemble_state,
    sql_checkpoint_delta_history,
    sql_rebuilder,
    stream_writes,
    thread_not_found,
    write_records,
)


class Closing:
    """A context manager that calls ``close()`` on leaving."""

    def close(self) -> None: ...

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SqlDialect:
    """What the shared steps ask of a SQL backend: its placeholder, its writes table and ``_query``."""

    MARK = "?"
    WRITES = "writes"

    def _query(self, sql: str, params: Any = ()) -> list[tuple]:
        raise NotImplementedError

    def _has_thread(self, thread_id: str) -> bool:
        return bool(self._query(f"SELECT 1 FROM checkpoints WHERE thread_id = {self.MARK} LIMIT 1", [thread_id]))


class SqlHistory(HistoryTimeline, SqlDialect):
    """``Store.history`` over SQL: the key conditions built once; a backend supplies ``_metadata_equals`` (one
    filter's condition), ``_all_history`` (every matching row) and the page query's ``PAGE_COLUMNS``,
    ``PAGE_JOINS`` and ``_page_rows`` (its rows as ``CheckpointRow``s)."""

    PAGE_COLUMNS = ""
    PAGE_JOINS = ""

    def history(self, thread_id: str, ns: str | None = "", *, before: str | None = None, limit: int | None = None,
                filter: dict[str, Any] | None = None) -> list[CheckpointRow]:
        """See ``Store.history``. The filters run in SQL; with a ``limit`` the page's keys are chosen from the
        primary-key index first, so only the page's metadata and lengths are read."""
        mark = self.MARK
        where, params = [f"thread_id = {mark}"], [thread_id]
        if ns is not None:
            where.append(f"checkpoint_ns = {mark}")
            params.append(ns)
        if before is not None:
            where.append(f"checkpoint_id < {mark}")
            params.append(before)
        for key, value in (filter or {}).items():
            clause, values = self._metadata_equals(key, value)
            where.append(clause)
            params.extend(values)
        conditions = " AND ".join(where)
        if limit is None:
            return self._all_history(thread_id, ns, conditions, params)
        return self._page_rows(thread_id, self._query(
            f"""SELECT c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, {self.PAGE_COLUMNS}
                FROM (SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE {conditions}
                      ORDER BY checkpoint_id DESC, checkpoint_ns LIMIT {mark}) page
                JOIN checkpoints c ON c.thread_id = {mark} AND c.checkpoint_ns = page.checkpoint_ns
                                  AND c.checkpoint_id = page.checkpoint_id
                {self.PAGE_JOINS}
                ORDER BY c.checkpoint_id DESC, c.checkpoint_ns""",
            [*params, max(int(limit), 0), thread_id],
        ))

    def _metadata_equals(self, key: Any, value: Any) -> tuple[str, list[Any]]:
        raise NotImplementedError

    def _all_history(self, thread_id: str, ns: str | None, conditions: str, params: list[Any]) -> list[CheckpointRow]:
        raise NotImplementedError

    def _page_rows(self, thread_id: str, rows: list[tuple]) -> list[CheckpointRow]:
        raise NotImplementedError


class SqlStates(SqlDialect):
    """Writes, write streams and delta histories over SQL; a backend supplies ``_write_rows`` (a batch's
    stored write rows in task order), ``_ancestors`` and ``_channel_writes`` (see ``records``)."""

    def writes(self, thread_id: str, checkpoint_id: str, ns: str = "") -> tuple[list[WriteRecord], list[Problem]]:
        return write_records(self._write_rows(thread_id, ns, [checkpoint_id]).get(checkpoint_id, []))

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        ids = [r[0] for r in self._query(
            f"SELECT DISTINCT checkpoint_id FROM {self.WRITES} WHERE thread_id = {self.MARK} "
            f"AND checkpoint_ns = {self.MARK} ORDER BY checkpoint_id", [thread_id, ns])]
        return stream_writes(ids, checkpoint_ids, lambda batch: self._write_rows(thread_id, ns, batch))

    def _write_rows(self, thread_id: str, ns: str, ids: list[str]) -> dict[str, list[tuple]]:
        raise NotImplementedError

    def _state(self, thread_id: str, ns: str, key: tuple[str, str | None], values: tuple[dict, dict, dict],
               metadata: dict[str, Any], write_rows: list[tuple], problems: list[Problem], stored_bytes: int,
               channels: Collection[str] | None, carried: CheckpointState | None) -> CheckpointState:
        """One checkpoint's state from its decoded ``(header, channel values, channel bytes)`` and stored write
        rows; delta channels rebuilt from ``carried`` (its parent's state, decoded just before) or the history."""
        cid, parent = key
        header, channel_values, channel_bytes = values
        writes, write_problems = write_records(write_rows)
        return assemble_state(thread_id=thread_id, ns=ns, checkpoint_id=cid, parent=parent, header=header,
                              channel_values=channel_values, channel_bytes=channel_bytes, metadata=metadata,
                              writes=writes, problems=problems + write_problems, stored_bytes=stored_bytes,
                              rebuild=sql_rebuilder(self, thread_id, ns, parent, carried), channels=channels)

    def _no_namespace(self, thread_id: str, ns: str) -> NotFound:
        """The error for a namespace with no checkpoint: the thread's when it has none at all."""
        if not self._has_thread(thread_id):
            return thread_not_found(thread_id)
        return NotFound(f"no checkpoints in namespace {quoted(ns)} for thread {quoted(thread_id)}")

    def delta_history(
        self, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str = ""
    ) -> dict[str, delta.DeltaHistory]:
        """See ``Store.delta_history``: one query per ancestor, writes read only for the channels asked."""
        return sql_checkpoint_delta_history(self, thread_id, checkpoint_id, channels, ns, self.MARK)
