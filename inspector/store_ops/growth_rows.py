"""What the stores return for growth over time: stored bytes and checkpoints per time bucket, dated by
the uuid6 checkpoint ids, from lengths alone (no blob content is read).

A row is ``(bucket start, thread id, channel, part, checkpoints, bytes)``: ``channel`` is
``CHECKPOINT_KEY`` for a checkpoint row's own bytes; ``part`` says which rows the bytes come from: ``checkpoint`` (the
checkpoint row itself: on SQLite every channel value is inside it), ``blobs`` (PostgreSQL's
``checkpoint_blobs``, dated by the first checkpoint whose ``channel_versions`` names the version) and
``writes`` (dated by the checkpoint they are stored against). Rows whose id is not a uuid6 (or a blob no
checkpoint names) carry no time: they are counted in ``untimed_*``.

Each backend writes one SQL relation of dated rows, ``(b, t, c, p, k, n)``: bucket start (``BEFORE`` the
window, NULL when not dated; in the bucket holding now, ``ahead_label`` for an id dated after now, so that
the same statement says how much a writer whose clock is ahead stored: ``split_rows``), thread, channel,
part, checkpoints, bytes; ``growth_views_sql`` aggregates
it in the database in one statement for every grouping a report asks (a few cells per bucket, channel and
part, the window's top threads and, by thread, their rows), so what comes back is a few rows, not one
per stored row; ``growth_sql`` does the same for one grouping, by thread and channel too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple

from ..store.id_dating import BEFORE, UUID_EPOCH_OFFSET, since_ticks

GROWTH_BY = ("store", "channel", "thread")
PARTS = ("checkpoint", "blobs", "writes")
CHECKPOINT_KEY = "(checkpoint row)"  # the key, by channel, of a checkpoint row's own bytes

class GrowthRow(NamedTuple):
    bucket: int  # the bucket's start, seconds since 1970-01-01 UTC
    thread_id: str
    channel: str
    part: str
    checkpoints: int
    bytes: int


class ThreadGrowth(NamedTuple):
    """What ``Operations.growth_thread_rows`` read, in one statement (one view of the store).

    ``rows``: the dated rows of the threads read, per day, thread, channel and part, with no window (bucket
    None: not dated); ``cut``: the greatest uuid6 id of the store's checkpoints and writes ("" when none)
    when every thread was read, else the cut the threads were read from;
    ``totals``: the store's checkpoint rows, their bytes, the writes' bytes and the blob rows' bytes, every
    row counted (the sums of ``rows`` when every thread was read)."""

    rows: list[GrowthRow]
    cut: str
    totals: tuple[int, int, int, int]
    ahead_bytes: int = 0  # bytes of ``rows`` dated after the now they were read at, in its bucket


class Grower(NamedTuple):
    key: str
    checkpoints: int
    bytes: int


@dataclass(frozen=True)
class GrowthRows:
    """Everything ``Operations.growth_rows`` read: the dated rows of the window and what could not be dated.

    ``rows`` are grouped by bucket, part and the keys asked for (``by``: a key not asked for is ""; by thread
    with ``top``, the top threads' rows alone);
    ``top_threads`` and ``top_channels``: the window's largest, when asked for (``top``);
    ``stored_bytes`` and ``checkpoints``: every row of the store, dated or not, in the window or before;
    ``ahead_bytes``: the bytes of ``rows`` in the bucket holding ``now`` (the time they were read for) dated
    after it (a writer's clock ahead, or a planted id): not yet written at ``now``.
    """

    bucket_seconds: int
    since: int | None
    rows: list[GrowthRow] = field(default_factory=list)
    untimed_checkpoints: int = 0
    untimed_bytes: int = 0
    channel_basis: str = ""
    top_threads: list[Grower] = field(default_factory=list)
    top_channels: list[Grower] = field(default_factory=list)
    stored_bytes: int = 0
    checkpoints: int = 0
    ahead_bytes: int = 0
    now: float | None = field(default=None, compare=False)  # what the rows were read for, not what they say


def check_growth_by(by: Any) -> None:
    """Refuse (``StoreError``) a grouping that is not one of ``GROWTH_BY``."""
    from ..store.model import StoreError

    if by not in GROWTH_BY:
        raise StoreError(f"unknown growth grouping {by!r}: use one of {', '.join(GROWTH_BY)}")


def check_growth_args(bucket_seconds: int, by: str | None = None, top: int = 0) -> None:
    from ..store.model import StoreError

    if not isinstance(bucket_seconds, int) or bucket_seconds <= 0:
        raise StoreError(f"a growth bucket must be a positive number of seconds, got {bucket_seconds!r}")
    if by is not None:
        check_growth_by(by)
    if not isinstance(top, int) or top < 0:
        raise StoreError(f"--top must be a whole number of threads and channels, got {top!r}")


UUID6_HEAD_GLOB = "[0-9a-f]" * 8 + "-" + "[0-9a-f]" * 4 + "-6" + "[0-9a-f]" * 3  # an id's first 18 characters
UUID6_HEAD_REGEX = "^[0-9a-f]{8}-[0-9a-f]{4}-6[0-9a-f]{3}"


def id_floor(since: int | None) -> str:
    """The smallest uuid6 text dated at or after ``since``: uuid6 ids sort by time as text."""
    return head_of_ticks(since_ticks(since))


MAX_SPLITS = 128  # buckets a statement dates by comparing ids as text; older or newer rows are dated by a function


def compared_buckets(width: int, since: int | None, now: float) -> tuple[list[int], bool]:
    """The edges of the buckets a statement dates ids in by comparing them as text, from ``since`` (or
    ``MAX_SPLITS`` buckets back) to just after ``now``: each bucket's start (the first one ``since`` when it
    falls among them) and the last one's end; and whether an id before the first edge is before the window
    (``since`` is the first edge) rather than dated by a function."""
    high = (math.floor(now / width) + 2) * width
    low = high - MAX_SPLITS * width
    before = since is not None and since >= low
    if before:
        low = int(since)
    return [low] + list(range((low // width + 1) * width, high, width)) + [high], before


def now_ticks(now: float) -> int:
    """``now`` (seconds since 1970) as a uuid6 timestamp, to the microsecond: an id is dated after ``now``
    when its timestamp is greater."""
    return int(round(now * 1_000_000)) * 10 + UUID_EPOCH_OFFSET


def head_of_ticks(ticks: int) -> str:
    """The first 18 characters of a uuid6 id with this timestamp: the smallest id text dated at it."""
    digits = f"{ticks:015x}"
    return f"{digits[:8]}-{digits[8:12]}-6{digits[12:15]}"


def ahead_label(width: int, now: float) -> int | None:
    """The bucket a statement gives a row of ``now``'s bucket dated after ``now``: that bucket's start plus one
    second (it sorts inside the bucket, after its start, so a least bucket stays the least id's); None for
    buckets of one second (not split)."""
    return math.floor(now / width) * width + 1 if width > 1 else None


def compared_edges(width: int, since: int | None, now: float) -> tuple[list[str], list[int], bool]:
    """``compared_buckets`` as the first id text of each bucket a statement compares ids with (and the last
    one's end) and each bucket's label (its start), ``now``'s bucket split at ``now``: its ids dated after it
    are labelled ``ahead_label``. And whether an id before the first edge is before the window."""
    points, before = compared_buckets(width, since, now)
    edges, labels = [id_floor(p) for p in points], [p // width * width for p in points[:-1]]
    ahead = ahead_label(width, now)
    if ahead is not None and ahead - 1 in labels:
        at, split = labels.index(ahead - 1), head_of_ticks(now_ticks(now) + 1)
        if edges[at] < split < edges[at + 1]:
            edges.insert(at + 1, split)
            labels.insert(at + 1, ahead)
    return edges, labels, before


def split_rows(rows: list[GrowthRow], ahead: int | None) -> tuple[list[GrowthRow], int]:
    """Rows read with ``now``'s bucket split (``ahead_label`` ``ahead``), the split undone (the rows dated
    after now back in their bucket, summed with the others of their keys), and those rows' bytes."""
    if ahead is None or not any(r.bucket == ahead for r in rows):
        return rows, 0
    summed: dict[tuple, list[int]] = {}
    after = 0
    for r in rows:
        bucket = r.bucket
        if bucket == ahead:
            bucket, after = ahead - 1, after + r.bytes
        entry = summed.setdefault((bucket, r.thread_id, r.channel, r.part), [0, 0])
        entry[0] += r.checkpoints
        entry[1] += r.bytes
    return [GrowthRow(*key, k, n) for key, (k, n) in summed.items()], after


def id_range_bucket(column: str, width: int, since: int | None, now: float, fallback: str) -> str:
    """A SQL expression giving a uuid6 ``column``'s bucket (as ``bucket_of``) by comparing the id as text
    with each bucket's first id (a binary search: ids sort by time), for the buckets from ``since`` to just
    after ``now`` (at most ``MAX_SPLITS``, ``compared_edges``: ``now``'s bucket split at ``now``);
    ``fallback`` (SQL, computing ``bucket_of``) dates the rest. The literals are hex digits this function
    wrote, never text from the data."""
    edges, labels, before = compared_edges(width, since, now)

    def tree(lo: int, hi: int) -> str:  # labels[lo:hi] between edges[lo] and edges[hi]
        if hi - lo == 1:
            return str(labels[lo])
        mid = (lo + hi) // 2
        return f"CASE WHEN {column} < '{edges[mid]}' THEN {tree(lo, mid)} ELSE {tree(mid, hi)} END"

    below = str(BEFORE) if before else fallback
    return (f"CASE WHEN {column} < '{edges[0]}' THEN {below} "
            f"WHEN {column} >= '{edges[-1]}' THEN {fallback} ELSE {tree(0, len(labels))} END")


NO_INT, NO_TEXT = "CAST(NULL AS BIGINT)", "CAST(NULL AS TEXT)"  # typed, for PostgreSQL's UNION


def growth_sql(dated: str, by: str | None, top: int, materialized: str = "MATERIALIZED") -> str:
    """One statement over the dated rows ``dated`` (``b, t, c, p, k, n``, see the module's docstring):
    the window's rows grouped by bucket, part and the keys of ``by`` (None: thread and channel; ``thread``
    with ``top``: the top threads' rows alone), the top ``top`` threads and channels of the window, and
    every row's totals, dated or not."""
    thread = "t" if by in (None, "thread") else "''"
    channel = "c" if by in (None, "channel") else "''"
    keys = ", ".join(k for k in (thread, channel) if k != "''")
    group = f"b, {keys + ', ' if keys else ''}p"
    window = f"b > {BEFORE}"
    ranked = {kind: f"SELECT {key} AS grower, sum(k) AS k, sum(n) AS grown FROM d WHERE {window} GROUP BY {key} "
                    f"ORDER BY grown DESC, grower LIMIT {int(top)}" for kind, key in (("thread", "t"), ("channel", "c"))}
    if by in ("store", "channel"):  # one grouping gives the rows, the channels and the totals (``growth_result``)
        cells = "SELECT 'cell' AS kind, b, '' AS t, c, p, sum(k) AS k, sum(n) AS n FROM d GROUP BY b, c, p"
        if not top:
            return f"WITH d AS ({dated})\n{cells}"
        return (f"WITH d AS {materialized} ({dated}),\ntop_thread AS ({ranked['thread']})\n{cells}\n"
                f"UNION ALL SELECT 'thread', {NO_INT}, grower, {NO_TEXT}, {NO_TEXT}, k, grown FROM top_thread")
    among = " AND t IN (SELECT grower FROM top_thread)" if by == "thread" and top else ""
    parts = [f"SELECT 'row' AS kind, b, {thread} AS t, {channel} AS c, p, sum(k) AS k, sum(n) AS n "
             f"FROM d WHERE {window}{among} GROUP BY {group}",
             f"SELECT 'all', {NO_INT}, {NO_TEXT}, {NO_TEXT}, 'dated', sum(k), sum(n) FROM d WHERE b IS NOT NULL",
             f"SELECT 'all', {NO_INT}, {NO_TEXT}, {NO_TEXT}, 'untimed', sum(k), sum(n) FROM d WHERE b IS NULL"]
    if top:
        parts += [f"SELECT '{kind}', {NO_INT}, grower, {NO_TEXT}, {NO_TEXT}, k, grown FROM top_{kind}"
                  for kind in ranked]
    tops = "".join(f",\ntop_{kind} AS ({sql})" for kind, sql in ranked.items()) if top else ""
    return f"WITH d AS {materialized} ({dated}){tops}\n" + "\nUNION ALL ".join(parts)


def growth_sql_grouping_sets(dated: str, by: str | None, top: int) -> str:
    """``growth_sql`` in one pass over the dated rows (PostgreSQL's ``GROUPING SETS``): the rows are never
    materialized, each grouping is hashed as they stream."""
    keys = {None: "t, c", "thread": "t", "channel": "c", "store": ""}[by]
    rows_set = f"(b, {keys + ', ' if keys else ''}p)"
    thread = "t" if by in (None, "thread") else "''"
    channel = "c" if by in (None, "channel") else "''"
    window = f"b > {BEFORE}"
    ranked = {kind: f"SELECT {key} AS grower, wk, wn FROM g WHERE kind = '{kind}' AND wn IS NOT NULL "
                    f'ORDER BY wn DESC, {key} COLLATE "C" LIMIT {int(top)}'  # ties byte by byte, as SQLite
              for kind, key in (("thread", "t"), ("channel", "c"))}
    among = " AND t IN (SELECT grower FROM top_thread)" if by == "thread" and top else ""
    parts = [f"SELECT 'row' AS kind, b, {thread} AS t, {channel} AS c, p, k, n FROM g WHERE kind = 'row' AND {window}{among}",
             f"SELECT 'all', {NO_INT}, {NO_TEXT}, {NO_TEXT}, CASE WHEN u THEN 'untimed' ELSE 'dated' END, k, n "
             "FROM g WHERE kind = 'all'"]
    if top:
        parts += [f"SELECT '{kind}', {NO_INT}, grower, {NO_TEXT}, {NO_TEXT}, wk, wn FROM top_{kind}" for kind in ranked]
    tops = "".join(f",\ntop_{kind} AS ({sql})" for kind, sql in ranked.items()) if top else ""
    return f"""WITH g AS MATERIALIZED (
        SELECT CASE WHEN GROUPING(u) = 0 THEN 'all' WHEN GROUPING(b) = 0 THEN 'row'
                    WHEN GROUPING(t) = 0 THEN 'thread' ELSE 'channel' END AS kind,
               b, t, c, p, u, sum(k) AS k, sum(n) AS n,
               sum(k) FILTER (WHERE {window}) AS wk, sum(n) FILTER (WHERE {window}) AS wn
        FROM (SELECT *, b IS NULL AS u FROM ({dated}) dated) d
        GROUP BY GROUPING SETS ({rows_set}, (t), (c), (u))){tops}
    """ + "\nUNION ALL ".join(parts)


def thread_growth_sql(dated: str, live: str, cut: str | None, totals: str) -> str:
    """``Operations.growth_thread_rows`` in one statement: the dated rows ``dated`` summed per bucket, thread,
    channel and part (kind ``row``; a NULL bucket: not dated), the greatest uuid6 id ``cut`` (kind ``cut``,
    in ``c``; None: not asked) and the totals (kind ``total``: ``p`` the part, ``k`` rows, ``n`` bytes),
    after the CTE ``live`` (may be empty) that ``dated`` reads."""
    cut_row = f"UNION ALL SELECT 'cut', {NO_INT}, {NO_TEXT}, ({cut}), {NO_TEXT}, {NO_INT}, {NO_INT}\n" if cut else ""
    return (f"WITH {live + ', ' if live else ''}d AS MATERIALIZED ({dated})\n"
            "SELECT 'row' AS kind, b, t, c, p, sum(k) AS k, sum(n) AS n FROM d GROUP BY b, t, c, p\n"
            f"{cut_row}UNION ALL {totals}")


def thread_growth(found: Iterable[tuple], cut: str = "", ahead: int | None = None) -> ThreadGrowth:
    """``ThreadGrowth`` from the rows of ``thread_growth_sql`` (``cut``: the one it was asked from, if any;
    ``ahead``: the ``ahead_label`` the statement split now's bucket with)."""
    rows, totals = [], {"checkpoint": (0, 0), "writes": (0, 0), "blobs": (0, 0)}
    for kind, bucket, thread_id, channel, part, checkpoints, size in found:
        if kind == "row":
            rows.append(GrowthRow(None if bucket is None else int(bucket), thread_id, channel, part,
                                  int(checkpoints or 0), int(size or 0)))
        elif kind == "cut":
            cut = channel if channel is not None else ""
        else:
            totals[part] = (int(checkpoints or 0), int(size or 0))
    rows, after = split_rows(rows, ahead)
    return ThreadGrowth(rows, cut, (*totals["checkpoint"], totals["writes"][1], totals["blobs"][1]), after)


def text_order(key: Any) -> tuple:
    """A sort key for an id or channel name: text in its own order, then what raw SQL stored that is not text
    (a blob, a number), so that such a row sorts instead of failing the report."""
    return (0, key) if isinstance(key, str) else (1, type(key).__name__, repr(key))


def row_order(row: GrowthRow) -> tuple:
    return (row.bucket, text_order(row.thread_id), text_order(row.channel), row.part, row.checkpoints, row.bytes)


def growth_result(found: Iterable[tuple], bucket_seconds: int, since: int | None, basis: str,
                  by: str | None = None, top: int = 0, now: float | None = None) -> GrowthRows:
    """``GrowthRows`` from the rows of ``growth_sql`` (``by`` and ``top`` as asked of it; ``now``: where it split
    now's bucket, ``compared_edges``)."""
    rows, threads, channels = [], [], []
    totals = {"dated": (0, 0), "untimed": (0, 0)}
    cells: dict[tuple, list[int]] = {}
    grown: dict[str, list[int]] = {}
    for kind, bucket, thread_id, channel, part, checkpoints, size in found:
        checkpoints, size = int(checkpoints or 0), int(size or 0)
        if kind == "cell":  # (bucket, channel, part): the rows, the channels and the totals summed from them
            dated = "untimed" if bucket is None else "dated"
            totals[dated] = (totals[dated][0] + checkpoints, totals[dated][1] + size)
            if bucket is None or bucket <= BEFORE:
                continue
            entry = cells.setdefault((int(bucket), channel if by == "channel" else "", part), [0, 0])
            entry[0] += checkpoints
            entry[1] += size
            entry = grown.setdefault(channel, [0, 0])
            entry[0] += checkpoints
            entry[1] += size
        elif kind == "row":
            rows.append(GrowthRow(int(bucket), thread_id, channel, part, checkpoints, size))
        elif kind == "all":
            totals[part] = (checkpoints, size)
        else:
            (threads if kind == "thread" else channels).append(Grower(thread_id, checkpoints, size))
    rows += [GrowthRow(bucket, "", channel, part, c, n) for (bucket, channel, part), (c, n) in cells.items()]
    if grown and top:
        ranked = sorted(grown.items(), key=lambda kv: (-kv[1][1], text_order(kv[0])))[:top]
        channels = [Grower(key, c, n) for key, (c, n) in ranked]
    rows, after = split_rows(rows, None if now is None else ahead_label(bucket_seconds, now))
    rows.sort(key=row_order)
    untimed_checkpoints, untimed_bytes = totals["untimed"]
    return GrowthRows(bucket_seconds, since, rows, untimed_checkpoints, untimed_bytes, basis, threads, channels,
                      totals["dated"][1] + untimed_bytes, totals["dated"][0] + untimed_checkpoints, after, now)
