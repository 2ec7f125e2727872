"""Every grouping a growth report asks of one window, from one statement: the SQL over a backend's dated rows
(``growth_rows``' module docstring) and the ``GrowthRows`` of each grouping read back from its few rows.

A report asks for the store's, the channels' or the top threads' rows of a window, and by thread also the
store's (for the window's total): ``growth_views_sql`` answers them all with a few cells per bucket,
channel and part (the store's and the channels' rows, the top channels and the totals are summed from
these), the window's top threads (the most any grouping wants) and, by thread, those threads' rows.
"""

from __future__ import annotations

import time
from typing import Any, Iterable

from ..store.id_dating import BEFORE
from .growth_rows import (
    NO_INT,
    NO_TEXT,
    Grower,
    GrowthRow,
    GrowthRows,
    ahead_label,
    check_growth_args,
    check_growth_by,
    row_order,
)


def check_growth_views(bucket_seconds: int, asks: Iterable[tuple[str, int]]) -> None:
    """``check_growth_args`` for each ask ``(by, top)`` of ``Operations.growth_views`` (by one of ``GROWTH_BY``)."""
    for by, top in asks:
        check_growth_by(by)
        check_growth_args(bucket_seconds, by, top)


def views_shape(asks: Iterable[tuple[str, int]]) -> tuple[int, str | None]:
    """What ``growth_views_sql`` reads for these asks ``(by, top)`` (by ``store``, ``channel`` or ``thread``):
    how many top threads to rank (the most any ask wants) and which threads' rows per bucket and part
    (None: none, ``top``: the ranked threads', ``all``: every thread's, for ``thread`` with no top)."""
    asks = list(asks)
    ranked = max((top for _, top in asks), default=0)
    tops = [top for by, top in asks if by == "thread"]
    return ranked, None if not tops else "all" if 0 in tops else "top"


def growth_views_sql(dated: str, asks: Iterable[tuple[str, int]], grouping_sets: bool = False,
                     top_dated: str | None = None) -> str:
    """One statement over the dated rows ``dated`` (``b, t, c, p, k, n``, see the module's docstring) that
    answers every ask ``(by, top)`` of one window (``growth_views_result``): kind ``cell``, every row summed
    per bucket, channel and part (the store's and the channels' rows, the top channels and the totals come
    from these few); kind ``thread``, the window's top threads (the most any ask wants); kind ``row``, the
    window's rows per bucket, thread and part of those threads (or of every thread: ``views_shape``).
    ``grouping_sets``: in one pass (PostgreSQL's ``GROUPING SETS``, nothing materialized but the groups);
    else over the dated rows materialized once (SQLite). ``top_dated``: with ``grouping_sets``, the dated
    rows of the top threads alone (reading ``thread_id IN (SELECT grower FROM top_thread)``), read again for
    their rows instead of grouping every thread's rows per bucket and part."""
    ranked, threads = views_shape(asks)
    window = f"b > {BEFORE}"
    among = " AND t IN (SELECT grower FROM top_thread)" if threads == "top" and ranked else ""
    if grouping_sets:  # GROUPING(b, w, c, p): 4 = (b, c, p), 11 = (w), 2 = (b, w, p); without w, 0 = (b, c, p)
        # w: the thread of a row in the window (NULL outside it), so that plain sums rank the window's threads
        again = top_dated is not None and threads == "top"  # the top threads' rows from a second, narrow read
        sets = ["(b, c, p)"] + ["(w)"] * bool(ranked) + ["(b, w, p)"] * bool(threads and not again)
        keys, thread = ("b, w, c, p", "w") if ranked or threads else ("b, c, p", NO_TEXT)
        head = (f"WITH g AS MATERIALIZED (\n    SELECT GROUPING({keys}) AS gs, b, {thread} AS t, c, p, "
                f"sum(k) AS k, sum(n) AS n\n    FROM (SELECT *, CASE WHEN {window} THEN t END AS w FROM ({dated}) d) d "
                f"GROUP BY GROUPING SETS ({', '.join(sets)}))")
        top = (f"SELECT t AS grower, k, n AS grown FROM g WHERE gs = 11 AND t IS NOT NULL "
               f'ORDER BY n DESC, t COLLATE "C" LIMIT {int(ranked)}')  # ties byte by byte, as SQLite
        parts = [f"SELECT 'cell' AS kind, b, {NO_TEXT} AS t, c, p, k, n FROM g WHERE gs = {4 if thread == 'w' else 0}"]
        rows = (f"SELECT 'row', b, t, {NO_TEXT}, p, sum(k), sum(n) FROM ({top_dated}) top_rows WHERE {window} "
                "GROUP BY b, t, p" if again else
                f"SELECT 'row', b, t, {NO_TEXT}, p, k, n FROM g WHERE gs = 2 AND {window}{among}")
    else:
        head = f"WITH d AS MATERIALIZED ({dated})"
        top = (f"SELECT t AS grower, sum(k) AS k, sum(n) AS grown FROM d WHERE {window} GROUP BY t "
               f"ORDER BY grown DESC, grower LIMIT {int(ranked)}")
        parts = ["SELECT 'cell' AS kind, b, NULL AS t, c, p, sum(k) AS k, sum(n) AS n FROM d GROUP BY b, c, p"]
        rows = f"SELECT 'row', b, t, NULL, p, sum(k), sum(n) FROM d WHERE {window}{among} GROUP BY b, t, p"
    if ranked:
        head += f",\ntop_thread AS ({top})"
        parts.append(f"SELECT 'thread', {NO_INT}, grower, {NO_TEXT}, {NO_TEXT}, k, grown FROM top_thread")
    if threads:
        parts.append(rows)
    return f"{head}\n" + "\nUNION ALL ".join(parts)


def sql_order(key: Any) -> tuple:
    """A sort key in the order SQL compares a column's values (SQLite's BINARY, PostgreSQL's "C"): numbers,
    then text by its stored bytes, then blobs; NULL first."""
    from ..store.not_utf8 import is_blob, stored_bytes

    if key is None:
        return (0,)
    if isinstance(key, str):
        return (3 if is_blob(key) else 2, stored_bytes(key))
    if isinstance(key, (bytes, bytearray, memoryview)):
        return (3, bytes(key))
    return (1, key) if isinstance(key, (int, float)) else (4, repr(key).encode())


def growth_views_result(found: Iterable[tuple], bucket_seconds: int, since: int | None, basis: str,
                        asks: Iterable[tuple[str, int]], now: float | None = None) -> list[GrowthRows]:
    """Each ask's ``GrowthRows`` (as ``growth_rows`` would return it) from the rows of ``growth_views_sql``
    (``now``: where the dated rows split now's bucket, ``compared_edges``: its rows dated after it are in
    its bucket, and their bytes are each view's ``ahead_bytes``)."""
    cells: list[tuple] = []
    ranked: list[Grower] = []
    thread_rows: list[tuple] = []
    ahead, after = (None if now is None else ahead_label(bucket_seconds, now)), 0
    for kind, bucket, thread_id, channel, part, checkpoints, size in found:
        checkpoints, size = int(checkpoints or 0), int(size or 0)
        if bucket is not None and bucket == ahead:
            bucket -= 1  # back in now's bucket
            after += size if kind == "cell" else 0
        if kind == "cell":
            cells.append((None if bucket is None else int(bucket), channel, part, checkpoints, size))
        elif kind == "thread":
            ranked.append(Grower(thread_id, checkpoints, size))
        else:
            thread_rows.append((int(bucket), thread_id, part, checkpoints, size))
    dated, untimed = [0, 0], [0, 0]
    grown: dict[Any, list[int]] = {}
    for bucket, channel, _, checkpoints, size in cells:
        total = untimed if bucket is None else dated
        total[0] += checkpoints
        total[1] += size
        if bucket is not None and bucket > BEFORE:
            entry = grown.setdefault(channel, [0, 0])
            entry[0] += checkpoints
            entry[1] += size
    channels = [Grower(key, c, n) for key, (c, n) in sorted(grown.items(), key=lambda kv: (-kv[1][1], sql_order(kv[0])))]
    views = []
    for by, top in asks:
        summed: dict[tuple, list[int]] = {}
        if by == "thread":
            chosen = {g.key for g in ranked[:top]} if top else None
            for bucket, thread_id, part, checkpoints, size in thread_rows:
                if chosen is None or thread_id in chosen:
                    entry = summed.setdefault((bucket, thread_id, "", part), [0, 0])
                    entry[0] += checkpoints
                    entry[1] += size
        else:
            for bucket, channel, part, checkpoints, size in cells:
                if bucket is not None and bucket > BEFORE:
                    entry = summed.setdefault((bucket, "", channel if by == "channel" else "", part), [0, 0])
                    entry[0] += checkpoints
                    entry[1] += size
        rows = sorted((GrowthRow(b, t, c, p, k, n) for (b, t, c, p), (k, n) in summed.items()), key=row_order)
        views.append(GrowthRows(bucket_seconds, since, rows, untimed[0], untimed[1], basis,
                                ranked[:top] if top else [], channels[:top] if top else [],
                                dated[1] + untimed[1], dated[0] + untimed[0], after, now))
    return views


class GrowthReader:
    """``growth_rows`` and ``growth_views`` as every backend answers them: the asks checked and ``now`` read
    once; a backend supplies ``_growth_all`` (the rows by thread and channel) and ``_growth_views`` (every
    grouping asked, from one statement)."""

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None, by: str | None = None,
                    top: int = 0, now: float | None = None) -> GrowthRows:
        check_growth_args(bucket_seconds, by, top)
        now = time.time() if now is None else float(now)
        if by is not None:
            return self.growth_views(bucket_seconds, since, [(by, top)], now)[0]
        return self._growth_all(bucket_seconds, since, top, now)

    def growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]],
                     now: float | None = None) -> list[GrowthRows]:
        """``growth_rows`` for each ask ``(by, top)`` of one window, from one statement."""
        check_growth_views(bucket_seconds, asks)
        return self._growth_views(bucket_seconds, since, asks, time.time() if now is None else float(now))

    def _growth_all(self, bucket_seconds: int, since: int | None, top: int, now: float) -> GrowthRows:
        raise NotImplementedError

    def _growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]],
                      now: float) -> list[GrowthRows]:
        raise NotImplementedError
