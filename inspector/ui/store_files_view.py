"""The Health page's store sections: what the files hold, and the rows no checkpoint needs.

The database's own numbers (pragmas, ``dbstat``, ``pg_relation_size``, statistics views) and anti-joins
over keys; the statements shown are for an operator to review and run, never run here.
"""

from __future__ import annotations

import streamlit as st

from ..formatting import human_bytes
from ..operations.file_report import fact_lines, relation_rows
from ..operations.orphans import orphan_report
from ..store import StoreError
from ..store.not_utf8 import shown
from ..store_ops import operating
from .data import masked
from .inert import literal, plain
from .tables import frame_of, in_units, metric_row, table


def render_files(store) -> None:
    st.subheader("The store's files")
    per_table = True
    if store.kind == "sqlite":
        per_table = st.toggle("Bytes per table and index (SQLite's dbstat reads every page once)", key="files_per_table")
    try:
        facts = operating(store).file_facts(per_table=per_table)
    except StoreError as exc:
        st.info(f"File facts are not available for this store: {literal(exc)}")
        return
    with metric_row("files_metrics"):
        st.metric("On disk", human_bytes(facts.total_bytes), width="content", help=f"{facts.total_bytes:,} bytes")
        if facts.kind == "sqlite":
            st.metric("VACUUM would give back", human_bytes(facts.free_bytes), width="content",
                      help=f"{facts.free_bytes:,} bytes in {facts.free_pages:,} free pages")
        else:
            st.metric("Dead tuples", f"{facts.dead_rows or 0:,}", width="content",
                      help="in LangGraph's tables, from pg_stat_all_tables")
    for line in fact_lines(facts):
        st.text(plain(line))
    if facts.relations:
        frame, units = in_units(table(relation_rows(facts)), "bytes", "payload", "heap", "toast", "indexes",
                                exact=("bytes",))
        st.dataframe(frame, hide_index=True, width="stretch", column_config=units)


def render_leftovers(store) -> None:
    st.subheader("Leftovers")
    try:
        report = masked(orphan_report(store), keys=False)  # thread ids in the lists and the statements
    except StoreError as exc:
        st.info(f"Finding leftovers is not available for this store: {literal(exc)}")
        return
    st.caption(f"Rows no checkpoint needs: {human_bytes(report.total_bytes)}. "
               + ("App thread tables read: " + ", ".join(f"{app} ({table})" for app, table in report.app_tables)
                  if report.app_tables else "No app's own thread table is present or readable: no thread is "
                                            "compared with one.")
               + " The statements are for you to review and run; the inspector never runs them.")
    for item in report.leftovers:
        with st.expander(f"{item.title}: {item.rows:,} row(s), {human_bytes(item.bytes)}, "
                         f"{item.thread_count:,} thread(s)", expanded=False):
            if not item.rows:
                st.text("None.")
                continue
            frame, units = in_units(frame_of([{"thread": shown(t.thread_id, t.blob), "rows": t.rows, "bytes": t.bytes,
                                                   "every checkpoint gone": t.gone} for t in item.threads]),
                                    "bytes", exact=True)
            st.dataframe(frame, hide_index=True, width="stretch", column_config=units)
            st.caption(item.caution)
            st.code(item.statements, language="sql")
