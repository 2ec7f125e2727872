"""Rows no checkpoint needs in a PostgreSQL store: orphaned writes and blobs, app thread tables out of step.

Blob rows are matched against every checkpoint's ``channel_versions`` expanded once (a hash anti-join),
not checkpoint by checkpoint; lengths only. App tables are looked at only when the role may read them.
"""

from __future__ import annotations

from ...store.orphan_rows import APP_THREAD_TABLES, OrphanRows, app_knows
from ..orphan_sets import orphan_set, orphan_writes_sql, quoted_name
from .growth import FIRST_CHECKPOINT_OF_VERSION

ORPHAN_WRITES = orphan_writes_sql("checkpoint_writes", "octet_length(w.blob)")
ORPHAN_BLOBS = f"""
    SELECT b.thread_id, count(*), coalesce(sum(octet_length(b.blob)), 0),
           NOT EXISTS (SELECT 1 FROM checkpoints c2 WHERE c2.thread_id = b.thread_id)
    FROM checkpoint_blobs b LEFT JOIN ({FIRST_CHECKPOINT_OF_VERSION}) f
      ON f.thread_id = b.thread_id AND f.checkpoint_ns = b.checkpoint_ns AND f.channel = b.channel
     AND f.version = b.version
    WHERE f.cid IS NULL
    GROUP BY b.thread_id
"""
# App tables the role can read, with a thread_id column, in the store's schema
READABLE_APP_TABLES = """
    SELECT table_name, data_type FROM information_schema.columns
    WHERE table_schema = current_schema() AND column_name = 'thread_id' AND table_name = ANY(%s)
      AND has_table_privilege(quote_ident(table_schema) || '.' || quote_ident(table_name), 'SELECT')
"""


class PgOrphans:
    """``orphan_rows`` (a mixin of ``PgOperations``: needs ``_query``)."""

    def orphan_rows(self, limit: int = 50) -> OrphanRows:
        sets = [orphan_set("writes", self._query(ORPHAN_WRITES), limit),
                orphan_set("blobs", self._query(ORPHAN_BLOBS), limit)]
        readable = dict(self._query(READABLE_APP_TABLES, [[t for _, t in APP_THREAD_TABLES]]))  # table -> id type
        found_tables = []
        for app, table in APP_THREAD_TABLES:
            if table not in readable:
                continue
            found_tables.append((app, table))
            t, as_bytes = quoted_name(table), readable[table] == "bytea"
            known = app_knows("postgres", as_bytes)
            sets.append(orphan_set("app-without-checkpoints", [
                (tid, 1, n, False) for tid, n in self._query(  # a bytea id as its bytes
                    f"SELECT t.thread_id{'' if as_bytes else '::text'}, pg_column_size(t.*) "
                    f"FROM {t} t WHERE t.thread_id IS NOT NULL "
                    f"AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE {known.format(a='t', c='c')})")],
                limit, table=table, app=app, bytes_ids=as_bytes))
            sets.append(orphan_set("checkpoints-unknown-to-app", [
                (tid, rows, n, False) for tid, rows, n in self._query(
                    f"""WITH unknown AS (
                            SELECT thread_id, count(*) AS rows,
                                   sum(pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0)) AS n
                            FROM checkpoints c
                            WHERE NOT EXISTS (SELECT 1 FROM {t} t WHERE {known.format(a='t', c='c')})
                            GROUP BY thread_id)
                        SELECT u.thread_id, u.rows, u.n
                             + coalesce((SELECT sum(octet_length(blob)) FROM checkpoint_blobs b
                                         WHERE b.thread_id = u.thread_id), 0)
                             + coalesce((SELECT sum(octet_length(blob)) FROM checkpoint_writes w
                                         WHERE w.thread_id = u.thread_id), 0)
                        FROM unknown u""")], limit, table=table, app=app, bytes_ids=as_bytes))
        return OrphanRows("postgres", sets, found_tables, limit)
