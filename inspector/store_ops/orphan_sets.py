"""What both SQL backends' orphan queries share: the orphaned writes' anti-join over a dialect's writes
table, and a kind's rows summed and ranked (``orphan_set``)."""

from __future__ import annotations

from ..store.orphan_rows import OrphanSet, OrphanThread, thread_id_of


def orphan_writes_sql(writes: str, value_bytes: str) -> str:
    """Per thread: writes stored against a checkpoint the store does not hold, their bytes, and whether the
    thread has no checkpoint at all. ``writes``: the dialect's writes table; ``value_bytes``: its bytes of
    a write ``w``'s value."""
    return f"""
    SELECT w.thread_id, count(*), coalesce(sum({value_bytes}), 0),
           NOT EXISTS (SELECT 1 FROM checkpoints c2 WHERE c2.thread_id = w.thread_id)
    FROM {writes} w
    WHERE NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = w.thread_id
                      AND c.checkpoint_ns = w.checkpoint_ns AND c.checkpoint_id = w.checkpoint_id)
    GROUP BY w.thread_id
"""


def quoted_name(name: str) -> str:
    """An identifier quoted for SQL (both dialects double the double quote)."""
    return '"' + name.replace('"', '""') + '"'


def orphan_set(kind: str, found: list[tuple], limit: int, **extra) -> OrphanSet:
    """``(thread id, rows, bytes, thread gone)`` rows as an ``OrphanSet``: the largest ``limit`` threads listed."""
    threads = [OrphanThread(text, int(rows), int(n), bool(gone), blob)
               for (text, blob), rows, n, gone in ((thread_id_of(tid), *rest) for tid, *rest in found)]
    threads.sort(key=lambda t: (-t.bytes, t.thread_id))
    return OrphanSet(kind, sum(t.rows for t in threads), sum(t.bytes for t in threads), len(threads),
                     threads[:limit], **extra)
