"""Rows no checkpoint needs in a SQLite store: orphaned writes and app thread tables out of step.

Each query is an anti-join on the checkpoints' primary key; lengths only.
"""

from __future__ import annotations

from ...store.orphan_rows import APP_THREAD_TABLES, OrphanRows, app_knows
from ...store.sqlite.queries import OWN_BYTES
from ..orphan_sets import orphan_set, orphan_writes_sql, quoted_name

ORPHAN_WRITES = orphan_writes_sql("writes", "length(w.value)")


class SqliteOrphans:
    """``orphan_rows`` (a mixin of ``SqliteOperations``: needs ``_query``)."""

    def orphan_rows(self, limit: int = 50) -> OrphanRows:
        sets = [orphan_set("writes", self._query(ORPHAN_WRITES), limit)]
        tables = {name for (name,) in self._query("SELECT name FROM sqlite_master WHERE type = 'table'")}
        found_tables = []
        for app, table in APP_THREAD_TABLES:
            if table not in tables:
                continue
            columns = [r[1] for r in self._query(f"PRAGMA table_info({quoted_name(table)})")]
            if "thread_id" not in columns:
                continue
            found_tables.append((app, table))
            t, known = quoted_name(table), app_knows("sqlite")
            row_bytes = " + ".join(f"coalesce(length(CAST(t.{quoted_name(c)} AS BLOB)), 0)" for c in columns)
            sets.append(orphan_set("app-without-checkpoints", [
                (tid, 1, n, False) for tid, n in self._query(
                    f"SELECT t.thread_id, {row_bytes} FROM {t} t WHERE t.thread_id IS NOT NULL AND NOT EXISTS "
                    f"(SELECT 1 FROM checkpoints c WHERE {known.format(a='t', c='c')})")], limit, table=table, app=app))
            sets.append(orphan_set("checkpoints-unknown-to-app", [
                (tid, rows, n, False) for tid, rows, n in self._query(
                    f"""SELECT c.thread_id, c.rows, c.n + coalesce(w.n, 0) FROM
                          (SELECT thread_id, count(*) AS rows, sum({OWN_BYTES}) AS n FROM checkpoints
                           WHERE NOT EXISTS (SELECT 1 FROM {t} t WHERE {known.format(a='t', c='checkpoints')})
                           GROUP BY thread_id) c
                        LEFT JOIN (SELECT thread_id, sum(length(value)) AS n FROM writes GROUP BY thread_id) w
                          ON w.thread_id = c.thread_id""")], limit, table=table, app=app))
        return OrphanRows("sqlite", sets, found_tables, limit)
