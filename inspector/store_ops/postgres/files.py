"""File facts of a PostgreSQL store: per table heap, TOAST and index bytes, tuples and vacuums.

``pg_relation_size`` and friends, ``pg_stat_user_tables`` and ``pg_database_size`` are readable by a
role with ``CONNECT`` and no other right; only the tables of the store's schema are listed.
"""

from __future__ import annotations

from ..file_facts import LANGGRAPH_TABLES, FileFacts, FileSize, RelationFacts

TABLES = """
    SELECT c.relname, pg_relation_size(c.oid),
           coalesce(pg_total_relation_size(nullif(c.reltoastrelid, 0)), 0), pg_indexes_size(c.oid),
           pg_total_relation_size(c.oid), s.n_live_tup, s.n_dead_tup, s.last_vacuum, s.last_autovacuum
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_stat_all_tables s ON s.relid = c.oid
    WHERE c.relkind IN ('r', 'p', 'm') AND n.nspname = current_schema()
"""
INDEXES = """
    SELECT i.relname, t.relname, pg_relation_size(i.oid)
    FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = current_schema()
"""


class PgFiles:
    """``file_facts`` (a mixin of ``PgOperations``: needs ``_query``)."""

    def file_facts(self, per_table: bool = True) -> FileFacts:
        database, size = self._query("SELECT current_database(), pg_database_size(current_database())")[0]
        ours = set(LANGGRAPH_TABLES["postgres"])
        relations = [
            RelationFacts(name, "table", name, int(total), int(heap), int(toast), int(indexes), None,
                          None if live is None else int(live), None if dead is None else int(dead),
                          last_vacuum, last_auto, name in ours)
            for name, heap, toast, indexes, total, live, dead, last_vacuum, last_auto in self._query(TABLES)
        ]
        relations += [RelationFacts(name, "index", table, int(n), langgraph=table in ours)
                      for name, table, n in self._query(INDEXES)]
        relations.sort(key=lambda r: (r.kind != "table", -r.bytes, r.name))
        dead = sum(r.dead_rows or 0 for r in relations if r.langgraph)
        return FileFacts("postgres", [FileSize(database, int(size))], int(size), relations,
                         "pg_relation_size (heap), the TOAST table with its index, pg_indexes_size; tuples and "
                         "vacuums from pg_stat_all_tables (counts are the statistics collector's estimates)",
                         dead_rows=dead)
