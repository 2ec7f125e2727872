"""``Operations.growth_views``: every grouping of one window from one statement, each equal to what the rows say.

The stores LangGraph's savers wrote over five simulated days (``growth_store``), with hostile rows planted
by raw SQL: copies of a thread under ids that are not UTF-8 (SQLite), quoted or prefixed like a token
(ties in the ranking, broken byte by byte), checkpoint ids that are not uuid6, ids whose dashes are
moved or whose digits are not hex (on both backends), a channel name that is not UTF-8, (SQLite) uuid6 ids dated long
before the others whose tails are not UTF-8 and (PostgreSQL) a blob no checkpoint names. The expected
rows are computed here from plain SQL, each row dated in Python (``bucket_of``; a PostgreSQL blob by the
first checkpoint naming its version).
"""

from __future__ import annotations

import sqlite3

import psycopg
import pytest
from conftest import written_database
from fixtures.stores import copy_store
from growth_store import LATE, write_postgres

from inspector.operations.growth import growth_report
from inspector.store import StoreError, open_store
from inspector.store.id_dating import BEFORE, bucket_of
from inspector.store.not_utf8 import stored_bytes
from inspector.store.sqlite.connect import read_text
from inspector.store_ops import operating
from inspector.store_ops.growth_rows import CHECKPOINT_KEY, Grower, GrowthRow, GrowthRows, row_order

NOW = LATE  # pinned: what the tests assert holds whatever the hour they run at
DAY = 86_400
ASKS = [[("store", 10)], [("thread", 10), ("store", 0)], [("channel", 2), ("thread", 0)],
        [("thread", 1), ("channel", 10), ("store", 3)]]


def odd_ids(cid: str) -> list[str]:
    """Ids made from a uuid6 id that carry no time: dashes moved, another version digit, no uuid at all, a
    digit that is not hex (it sorts among the bucket's ids), a digit that is a dash, one upper-case digit."""
    return [cid[:8] + "x" + cid[9:], cid[:13] + "-7" + cid[15:], "not-a-uuid-" + cid, cid[:9] + "g" + cid[10:],
            cid[:16] + "-" + cid[17:], cid[:3] + "F" + cid[4:]]


def _order(key) -> tuple:
    return (0, stored_bytes(key)) if isinstance(key, str) else (1, repr(key).encode())


def expected(dated: list[tuple], width: int, since: int | None, by: str, top: int, basis: str) -> GrowthRows:
    """What ``growth_rows(width, since, by, top)`` says, from rows ``(checkpoint id, thread, channel, part,
    checkpoints, bytes)`` (the id: the one the row is dated by, None: not dated)."""
    rows = [(bucket_of(cid, width, since) if cid is not None else None, t, c, p, k, n) for cid, t, c, p, k, n in dated]
    window = [r for r in rows if r[0] is not None and r[0] != BEFORE]

    def ranked(index: int) -> list[Grower]:
        sums: dict = {}
        for r in window:
            entry = sums.setdefault(r[index], [0, 0])
            entry[0] += r[4]
            entry[1] += r[5]
        return [Grower(key, k, n) for key, (k, n) in sorted(sums.items(), key=lambda kv: (-kv[1][1], _order(kv[0])))]

    threads, channels = ranked(1), ranked(2)
    chosen = {g.key for g in threads[:top]} if top else {g.key for g in threads}
    summed: dict = {}
    for b, t, c, p, k, n in window:
        if by == "thread" and t not in chosen:
            continue
        key = (b, t if by == "thread" else "", c if by == "channel" else "", p)
        entry = summed.setdefault(key, [0, 0])
        entry[0] += k
        entry[1] += n
    untimed = [r for r in rows if r[0] is None]
    return GrowthRows(width, since, sorted((GrowthRow(*key, k, n) for key, (k, n) in summed.items()), key=row_order),
                      sum(r[4] for r in untimed), sum(r[5] for r in untimed), basis,
                      threads[:top] if top else [], channels[:top] if top else [],
                      sum(r[5] for r in rows), sum(r[4] for r in rows))


def sqlite_dated(path) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        conn.text_factory = read_text  # as the store reads text: bytes that are not UTF-8 kept as escapes
        return [(cid, t, CHECKPOINT_KEY, "checkpoint", 1, n) for t, cid, n in conn.execute(
            "SELECT thread_id, checkpoint_id, length(checkpoint) + coalesce(length(metadata), 0) FROM checkpoints")] + [
            (cid, t, c, "writes", 0, n) for t, cid, c, n in conn.execute(
                "SELECT thread_id, checkpoint_id, channel, coalesce(length(value), 0) FROM writes")]


def pg_dated(admin: str) -> list[tuple]:
    out, first = [], {}
    with psycopg.connect(admin) as conn:
        for t, ns, cid, checkpoint, n in conn.execute(
                "SELECT thread_id, checkpoint_ns, checkpoint_id, checkpoint, "
                "pg_column_size(checkpoint) + coalesce(pg_column_size(metadata), 0) FROM checkpoints"):
            out.append((cid, t, CHECKPOINT_KEY, "checkpoint", 1, n))
            for channel, version in (checkpoint.get("channel_versions") or {}).items():
                key = (t, ns, channel, str(version))
                first[key] = min(first.get(key, cid), cid)
        out += [(first.get((t, ns, c, v)), t, c, "blobs", 0, n or 0) for t, ns, c, v, n in conn.execute(
            "SELECT thread_id, checkpoint_ns, channel, version, octet_length(blob) FROM checkpoint_blobs")]
        out += [(cid, t, c, "writes", 0, n or 0) for t, cid, c, n in conn.execute(
            "SELECT thread_id, checkpoint_id, channel, octet_length(blob) FROM checkpoint_writes")]
    return out


@pytest.fixture(scope="module")
def hostile_sqlite(growth_sqlite, tmp_path_factory):
    path = copy_store(growth_sqlite(NOW), tmp_path_factory.mktemp("growth-views"))
    with sqlite3.connect(path) as conn:
        copy = ("INSERT INTO checkpoints SELECT CAST(? AS TEXT), checkpoint_ns, {cid}, parent_checkpoint_id, type, "
                "checkpoint, metadata FROM checkpoints WHERE thread_id = 'grow-c'")
        for thread in (b"bad-\xff\xfe-thread", b"~bytes:6261", "it's'); DROP TABLE checkpoints; --".encode()):
            conn.execute(copy.format(cid="checkpoint_id"), [thread])  # the same bytes as grow-c: tied
            conn.execute("INSERT INTO writes SELECT CAST(? AS TEXT), checkpoint_ns, checkpoint_id, task_id, task_path, "
                         "idx, channel, type, value FROM writes WHERE thread_id = 'grow-c'", [thread])
        cid = conn.execute("SELECT min(checkpoint_id) FROM checkpoints WHERE thread_id = 'grow-b'").fetchone()[0]
        for n, odd in enumerate(odd_ids(cid)):
            conn.execute(copy.format(cid="? || checkpoint_id").replace("'grow-c'", "'grow-b'"), [f"odd-{n}", odd[:40]])
        conn.execute("INSERT INTO writes SELECT thread_id, checkpoint_ns, checkpoint_id, task_id || '-odd', task_path, "
                     "idx, CAST(? AS TEXT), type, value FROM writes WHERE thread_id = 'grow-a'", [b"chan-\xff"])
        # uuid6 ids dated 400 days before the others (past the buckets compared as text: decoded by a function)
        # whose tails are not UTF-8
        for ns, cid, parent, kind, checkpoint, metadata in conn.execute(
                "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
                "WHERE thread_id = 'grow-c'").fetchall():
            old = f"{int(cid[:8] + cid[9:13] + cid[15:18], 16) - 400 * DAY * 10_000_000:015x}"
            head = f"{old[:8]}-{old[8:12]}-6{old[12:15]}".encode()
            conn.execute("INSERT INTO checkpoints VALUES ('old-tail', ?, CAST(? AS TEXT), ?, ?, ?, ?)",
                         [ns, head + cid[18:].encode() + b"\xff", parent, kind, checkpoint, metadata])
    return path


@pytest.fixture(scope="module")
def hostile_pg(postgres_dsn):
    def write(admin: str) -> None:
        write_postgres(admin, NOW)
        with psycopg.connect(admin, autocommit=True) as conn:
            for thread in ("~bytes:6261", "it's'); DROP TABLE checkpoints; --"):
                for table, columns in (("checkpoints", "checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, "
                                        "checkpoint, metadata"),
                                       ("checkpoint_blobs", "checkpoint_ns, channel, version, type, blob"),
                                       ("checkpoint_writes", "checkpoint_ns, checkpoint_id, task_id, idx, channel, "
                                        "type, blob, task_path")):
                    conn.execute(f"INSERT INTO {table} (thread_id, {columns}) SELECT %s, {columns} FROM {table} "
                                 "WHERE thread_id = 'grow-c'", [thread])
            cid = conn.execute("SELECT min(checkpoint_id) FROM checkpoints WHERE thread_id = 'grow-b'").fetchone()[0]
            # the thread's blobs named by checkpoints whose ids carry no time
            for n, odd in enumerate(odd_ids(cid)):
                conn.execute("INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, "
                             "type, checkpoint, metadata) SELECT %s, checkpoint_ns, %s || checkpoint_id, "
                             "parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
                             "WHERE thread_id = 'grow-b'", [f"odd-{n}", odd[:40]])
                conn.execute("INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) "
                             "SELECT %s, checkpoint_ns, channel, version, type, blob "
                             "FROM checkpoint_blobs WHERE thread_id = 'grow-b'", [f"odd-{n}"])
            conn.execute("INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) "
                         "SELECT thread_id, checkpoint_ns, channel, version || '-orphan', "
                         "type, blob FROM checkpoint_blobs WHERE thread_id = 'grow-a'")  # no checkpoint names them

    return written_database(postgres_dsn, "inspector_growth_views", write)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def hostile(request):
    if request.param == "sqlite":
        path = request.getfixturevalue("hostile_sqlite")
        return str(path), sqlite_dated(path)
    admin, readonly = request.getfixturevalue("hostile_pg")
    return readonly, pg_dated(admin)


@pytest.mark.parametrize("width,days", [(DAY, 3), (DAY, 10), (3600, 2), (DAY, None)])
def test_every_grouping_from_one_statement_equals_the_rows(hostile, width, days):
    url, dated = hostile
    since = None if days is None else int((NOW - days * DAY) // width) * width
    with open_store(url) as store:
        ops = operating(store)
        basis = ops.GROWTH_CHANNEL_BASIS
        for asks in ASKS:
            found = ops.growth_views(width, since, asks)
            assert found == [expected(dated, width, since, by, top, basis) for by, top in asks], asks
            assert found == [ops.growth_rows(width, since, by, top) for by, top in asks]
        ranked = ops.growth_views(width, since, [("store", 10)])[0].top_threads
        copies = [stored_bytes(g.key) for g in ranked if g.bytes == next(g for g in ranked if g.key == "grow-c").bytes]
        assert len(copies) >= 3 and copies == sorted(copies)  # grow-c and its copies tie: ranked byte by byte


def test_growth_views_refuses_what_growth_rows_refuses(hostile):
    url, _ = hostile
    with open_store(url) as store:
        ops = operating(store)
        for asks in ([(None, 10)], [("day", 1)], [("store", -1)]):
            with pytest.raises(StoreError):
                ops.growth_views(DAY, None, asks)
        with pytest.raises(StoreError):
            ops.growth_views(0, None, [("store", 1)])
        said = set()  # an unknown grouping is refused in the same words by the store and by the report
        for refuse in (lambda: ops.growth_views(DAY, None, [("day", 1)]), lambda: ops.growth_rows(DAY, None, "day"),
                       lambda: growth_report(store, by="day")):
            with pytest.raises(StoreError) as refused:
                refuse()
            said.add(str(refused.value))
        assert said == {"unknown growth grouping 'day': use one of store, channel, thread"}


@pytest.mark.postgres
def test_a_blob_channel_that_appears_later_is_dated(postgres_dsn):
    """The blob channels are read once per store, and again when a statement meets blob rows of another."""
    admin, readonly = written_database(postgres_dsn, "inspector_growth_views_channels", lambda a: write_postgres(a, NOW))
    with open_store(readonly) as store:
        ops = operating(store)
        basis = ops.GROWTH_CHANNEL_BASIS
        first = ops.growth_views(DAY, None, [("channel", 10)])[0]
        assert first == expected(pg_dated(admin), DAY, None, "channel", 10, basis)
        with psycopg.connect(admin, autocommit=True) as conn:  # a checkpoint naming a new channel's first version
            conn.execute("UPDATE checkpoints SET checkpoint = jsonb_set(checkpoint, '{channel_versions,notes}', "
                         "'\"v1\"') WHERE thread_id = 'grow-c' AND checkpoint_id = "
                         "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = 'grow-c')")
            conn.execute("INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) "
                         "VALUES ('grow-c', '', 'notes', 'v1', 'msgpack', %s)", [b"n" * 5000])
        for asks in ([("channel", 10)], [("thread", 10), ("store", 0)]):
            found = ops.growth_views(DAY, None, asks)
            assert found == [expected(pg_dated(admin), DAY, None, by, top, basis) for by, top in asks]
        assert any(g.key == "notes" for g in ops.growth_views(DAY, None, [("channel", 10)])[0].top_channels)
        rows = ops.growth_thread_rows(DAY)
        assert {r.bucket for r in rows.rows if r.channel == "notes"} == {max(r.bucket for r in first.rows)}
