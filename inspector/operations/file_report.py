"""File facts as rows for a table and lines of prose, shared by ``health --store`` and the Health page."""

from __future__ import annotations

from ..formatting import human_bytes
from ..store_ops.file_facts import FileFacts


def relation_rows(facts: FileFacts) -> list[dict]:
    """One row per table and index, largest first (LangGraph's tables marked)."""
    rows = []
    for r in facts.relations:
        row = {"name": r.name, "kind": r.kind, "table": r.table, "bytes": r.bytes}
        if facts.kind == "postgres":
            row.update({"heap": r.heap_bytes, "toast": r.toast_bytes, "indexes": r.index_bytes,
                        "live rows": r.live_rows, "dead rows": r.dead_rows,
                        "last vacuum": max((t for t in (r.last_vacuum, r.last_autovacuum) if t), default=None)})
        else:
            row["payload"] = r.payload_bytes
        row["LangGraph"] = r.langgraph
        rows.append(row)
    return rows


def fact_lines(facts: FileFacts) -> list[str]:
    """What the files take, and what a vacuum would give back, in words."""
    if facts.kind == "sqlite":
        lines = [", ".join(f"{f.name}: {human_bytes(f.bytes) if f.bytes is not None else 'absent'}" for f in facts.files)
                 + f" (together {human_bytes(facts.total_bytes)})"]
        lines.append(f"{facts.page_count:,} pages of {facts.page_size:,} bytes; {facts.free_pages:,} free "
                     f"({human_bytes(facts.free_bytes)}): what VACUUM would give back to the disk")
    else:
        lines = [f"database {facts.files[0].name}: {human_bytes(facts.total_bytes)} on disk"]
        lines.append(f"{facts.dead_rows or 0:,} dead tuples in LangGraph's tables (space VACUUM makes reusable; "
                     "VACUUM (FULL) gives it back to the disk)")
    lines.append(f"bytes per table and index: {facts.basis}")
    return lines + facts.problems
