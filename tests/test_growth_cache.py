"""Growth per day kept in the analysis cache (``operations.growth_summaries``): a report on a store the
cache has seen reads from the store only the threads written since, and says the same as the store.

Stores written by LangGraph's savers over five simulated days (``growth_store``), on SQLite and
PostgreSQL, with the embedded cache and the shared PostgreSQL one; each test writes its own store, since
it adds to it, prunes it or plants odd ids with raw SQL.
"""

from __future__ import annotations

import sqlite3
from collections import Counter

import psycopg
import pytest
from conftest import written_database
from growth_store import EARLY, build_graph, day_start, simulated_clock, write_postgres, write_sqlite
from langchain_core.messages import HumanMessage
from test_growth import pg_expected, sqlite_expected

from inspector.cache import AnalysisCache
from inspector.operations.growth import growth_report
from inspector.operations.growth_summaries import WIDTH, cached_growth_rows
from inspector.store import open_store
from inspector.store.not_utf8 import from_blob
from inspector.store_ops import operating
from inspector.store_ops.growth_rows import UUID6_HEAD_GLOB

NOW = EARLY  # pinned: what the tests assert holds whatever the hour they run at
GROUPINGS = [(by, days) for by in ("store", "channel", "thread") for days in (3, 10)]


def window(days: int) -> int:
    return int((NOW - days * 86_400) // WIDTH) * WIDTH


def same_as_the_store(store, cache) -> list[str]:
    """Every grouping and window, summed from the cache and read from the store: equal. Returns how each
    was answered."""
    hows = []
    for by, days in GROUPINGS:
        for top in (10, 1, 0):
            found, how = cached_growth_rows(store, cache, WIDTH, window(days), by, top)
            assert found == operating(store).growth_rows(WIDTH, window(days), by, top), (by, days, top, how)
            hows.append(how)
    return hows


def write_turn(checkpointer, thread_id: str, text: str = "one more", at: float | None = None) -> None:
    """One more turn of ``thread_id``, dated after every id the store holds (the newest day, late; or ``at``)."""
    with simulated_clock(day_start(NOW, 4) + 5 * 3600 if at is None else at):
        build_graph(checkpointer).invoke({"messages": [HumanMessage(text)]}, {"configurable": {"thread_id": thread_id}})


class Sqlite:
    name = "sqlite"

    def __init__(self, tmp_path):
        self.path = write_sqlite(tmp_path / "growth.db", NOW)
        self.url = str(self.path)

    def expected(self):
        return sqlite_expected(self.path)

    def write_turn(self, thread_id: str, at: float | None = None) -> None:
        from langgraph.checkpoint.sqlite import SqliteSaver

        with sqlite3.connect(self.path, check_same_thread=False) as conn:
            write_turn(SqliteSaver(conn), thread_id, at=at)

    def sql(self, statement: str, params=()) -> None:
        with sqlite3.connect(self.path) as conn:
            conn.execute(statement, params)


class Postgres:
    name = "postgres"

    def __init__(self, postgres_dsn, name: str):
        self.admin, self.url = written_database(postgres_dsn, name, lambda admin: write_postgres(admin, NOW))

    def expected(self):
        return pg_expected(self.admin)

    def write_turn(self, thread_id: str, at: float | None = None) -> None:
        from langgraph.checkpoint.postgres import PostgresSaver

        with PostgresSaver.from_conn_string(self.admin) as saver:
            write_turn(saver, thread_id, at=at)

    def sql(self, statement: str, params=()) -> None:
        with psycopg.connect(self.admin, autocommit=True) as conn:
            conn.execute(statement.replace("?", "%s").replace("writes", "checkpoint_writes"), params)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def written(request, tmp_path):
    if request.param == "sqlite":
        return Sqlite(tmp_path)
    return Postgres(request.getfixturevalue("postgres_dsn"), f"inspector_growth_cache_{request.node.originalname[5:20]}")


@pytest.fixture
def cache(tmp_path):
    with AnalysisCache(tmp_path / "cache") as found:
        yield found


def test_ids_dated_after_now_in_its_own_bucket_are_left_out_of_the_rate(written, cache):
    """A writer whose clock is two minutes ahead dates checkpoints later than now but in now's own hour and day:
    they are in the table, but not in the forecast's rate or the metrics' last hour and day, and the basis
    says so; a report a few minutes later (past them) counts them, whether read from the store, remembered
    from the last report or summed from the analysis cache."""
    from inspector.operations.growth_summaries import wait_for_fills
    from inspector.operations.metrics import metrics_snapshot

    now = NOW if NOW % 3600 < 3000 else (NOW // 3600 + 1) * 3600 + 600  # now + 5 minutes: the same hour
    later = now + 300
    with open_store(written.url) as store:
        before, metered = growth_report(store, now=now).forecast, metrics_snapshot(store, 1, now=now).written_bytes
        written.write_turn("ahead", now + 120)
        for bucket in ("day", "hour"):
            report = growth_report(store, bucket=bucket, now=now)
            ahead = report.forecast.current_bytes - before.current_bytes
            assert ahead > 0 and report.forecast.ahead_bytes == ahead
            assert report.forecast.window_bytes == before.window_bytes  # left out of the rate
            assert f"({ahead:,} bytes) dated after" in report.forecast.basis
            assert report.points[-1].start.timestamp() <= now  # shown, in now's own bucket
        assert metrics_snapshot(store, 1, now=now).written_bytes == metered
        growth_report(store, now=now, cache=cache)  # answered by the store, the cache filled behind it
        wait_for_fills()
        for cached in (None, cache):  # read again (the rows remembered were split at another time), or summed
            at_now, past = growth_report(store, now=now, cache=cached), growth_report(store, now=later, cache=cached)
            assert (at_now.forecast.window_bytes, at_now.forecast.ahead_bytes) == (before.window_bytes, ahead)
            assert (past.forecast.window_bytes, past.forecast.ahead_bytes) == (before.window_bytes + ahead, 0)
        assert cached_growth_rows(store, cache, WIDTH, window(30), "store", 0, now)[1] == "cached"


def test_the_cached_report_equals_the_rows_and_the_store(written, cache):
    expected = written.expected()
    with open_store(written.url) as store:
        hows = same_as_the_store(store, cache)
        assert hows[0] == "filled" and set(hows[1:]) == {"cached"}  # filled once, then summed from the cache
        report = growth_report(store, "channel", "day", 10, now=NOW, cache=cache)
        assert report == growth_report(store, "channel", "day", 10, now=NOW)
    found = Counter()
    for p in report.points:
        found[(p.start.strftime("%Y-%m-%d"), p.key)] += p.bytes
    assert +found == +expected["channel"]  # what the rows say, per day and channel


def test_a_thread_written_since_is_read_again_and_the_others_come_from_the_cache(written, cache):
    with open_store(written.url) as store:
        assert same_as_the_store(store, cache)[0] == "filled"
        cut = cache.growth_cut(store.fact_identity())[0]
        written.write_turn("grow-b")  # an old thread written again
        written.write_turn("grow-new")  # a thread the cache never saw
        live = operating(store).growth_thread_rows(WIDTH, cut)
        assert {r.thread_id for r in live.rows} == {"grow-b", "grow-new"}  # grow-a and grow-c are not read
        assert set(same_as_the_store(store, cache)) == {"cached"}
        report = growth_report(store, "thread", "day", 10, now=NOW, cache=cache)
        assert "grow-new" in {g.key for g in report.top_threads}
    expected = written.expected()
    assert Counter({(p.start.strftime("%Y-%m-%d"), p.key): p.bytes for p in report.points}) == +expected["thread"]


def test_a_pruned_thread_or_a_rewritten_write_sends_the_report_back_to_the_store(written, cache):
    with open_store(written.url) as store:
        assert same_as_the_store(store, cache)[0] == "filled"
        # an old checkpoint pruned: no id past the cut, but the totals moved
        written.sql("DELETE FROM checkpoints WHERE thread_id = 'grow-a' AND checkpoint_id = "
                    "(SELECT min(checkpoint_id) FROM checkpoints WHERE thread_id = 'grow-a')")
        hows = same_as_the_store(store, cache)
        assert hows[0] == "filled" and set(hows[1:]) == {"cached"}
        column = "value" if written.name == "sqlite" else "blob"
        written.sql(f"UPDATE writes SET {column} = {column} || {column} WHERE thread_id = 'grow-c' AND channel = 'title'")
        assert same_as_the_store(store, cache)[0] == "filled"


def test_odd_and_hostile_ids_are_summed_as_the_store_sums_them(tmp_path, cache):
    written = Sqlite(tmp_path)
    copy = ("INSERT INTO checkpoints SELECT CAST(? AS TEXT), checkpoint_ns, {cid}, parent_checkpoint_id, type, "
            "checkpoint, metadata FROM checkpoints WHERE thread_id = 'grow-c'")
    copy_writes = ("INSERT INTO writes SELECT CAST(? AS TEXT), checkpoint_ns, checkpoint_id, task_id, task_path, idx, "
                   "channel, type, value FROM writes WHERE thread_id = 'grow-c'")
    for thread in (b"bad-\xff\xfe-thread", b"~bytes:6261", "it's'); DROP TABLE checkpoints; --".encode()):
        written.sql(copy.format(cid="checkpoint_id"), [thread])
        written.sql(copy_writes, [thread])
    written.sql(copy.format(cid="'not-a-uuid-' || checkpoint_id"), [b"odd-ids"])  # ids that carry no time
    written.sql("INSERT INTO writes SELECT thread_id, checkpoint_ns, checkpoint_id, task_id || '-odd', task_path, idx, "
                "CAST(? AS TEXT), type, value FROM writes WHERE thread_id = 'grow-a'", [b"chan-\xff"])
    with open_store(written.url) as store:
        hows = same_as_the_store(store, cache)
        assert hows[0] == "filled" and set(hows[1:]) == {"cached"}
        report = growth_report(store, "store", "day", 10, now=NOW, cache=cache)
        assert report.untimed_checkpoints > 0
        assert report == growth_report(store, "store", "day", 10, now=NOW)
        # the thread whose id is not UTF-8 written again, under a newer uuid6 id: read again, alone
        cut = cache.growth_cut(store.fact_identity())[0]
        with sqlite3.connect(written.path) as conn:
            newest = conn.execute(f"SELECT max(checkpoint_id) FROM checkpoints WHERE checkpoint_id GLOB "
                                  f"'{UUID6_HEAD_GLOB}*'").fetchone()[0]
        written.sql(copy.format(cid="? || substr(checkpoint_id, 19)"), [b"bad-\xff\xfe-thread", _later(newest)])
        assert {r.thread_id.encode("utf-8", "surrogateescape") for r in operating(store).growth_thread_rows(WIDTH, cut).rows} \
            == {b"bad-\xff\xfe-thread"}
        assert set(same_as_the_store(store, cache)) == {"cached"}


def _later(checkpoint_id: str) -> str:
    """The first 18 characters of a uuid6 id a few seconds after ``checkpoint_id`` (its time in hex digits)."""
    digits = checkpoint_id[:8] + checkpoint_id[9:13] + checkpoint_id[15:18]
    later = f"{int(digits, 16) + 50_000_000:015x}"
    return f"{later[:8]}-{later[8:12]}-6{later[12:15]}"


@pytest.mark.postgres
def test_replicas_share_the_growth_rows_in_a_postgresql_cache(postgres_dsn, tmp_path):
    from test_retention_postgres import with_database

    from inspector.cache.postgres import PostgresAnalysisCache

    written = Postgres(postgres_dsn, "inspector_growth_cache_shared")
    with psycopg.connect(postgres_dsn.admin_dsn, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS inspector_growth_shared_cache")
        conn.execute("CREATE DATABASE inspector_growth_shared_cache")
    cache_url = with_database(postgres_dsn.admin_dsn, "inspector_growth_shared_cache")
    with open_store(written.url) as store:
        with PostgresAnalysisCache(cache_url, store=store) as first:
            assert same_as_the_store(store, first)[0] == "filled"
        written.write_turn("grow-a")
        with PostgresAnalysisCache(cache_url, store=store) as second:  # another process's first look
            assert set(same_as_the_store(store, second)) == {"cached"}


def test_a_first_report_is_answered_by_the_store_and_fills_the_cache_behind_it(tmp_path, cache, capsys):
    import json
    import os

    from inspector.cli import main
    from inspector.operations.growth_summaries import wait_for_fills

    written = Sqlite(tmp_path)
    with open_store(written.url) as store:
        first = growth_report(store, "thread", "day", 10, now=NOW, cache=cache)  # the cache held nothing
        assert first == growth_report(store, "thread", "day", 10, now=NOW)
        wait_for_fills()
        assert cache.growth_cut(store.fact_identity()) is not None
        assert growth_report(store, "thread", "day", 10, now=NOW, cache=cache) == first
        assert cached_growth_rows(store, cache, WIDTH, window(10), "thread", 10)[1] == "cached"
        identity = store.fact_identity()
    outputs = []
    for _ in range(2):  # the first run fills the session's cache before it exits, the second sums it
        assert main(["growth", "--db", written.url, "--by", "thread", "--since", "10", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        outputs.append((data["points"], data["top_threads"], data["top_channels"]))
        with AnalysisCache(os.environ["INSPECTOR_CACHE_DIR"]) as shared:
            assert shared.growth_cut(identity) is not None
    assert outputs[0] == outputs[1]


def test_many_threads_written_since_fill_the_cache_anew(tmp_path, cache, monkeypatch):
    from inspector.operations import growth_summaries

    written = Sqlite(tmp_path)
    with open_store(written.url) as store:
        assert same_as_the_store(store, cache)[0] == "filled"
        first_cut = cache.growth_cut(store.fact_identity())[0]
        monkeypatch.setattr(growth_summaries, "LIVE_MAX", 1)  # past it, the cut moves on
        written.write_turn("grow-a")
        written.write_turn("grow-b")
        hows = same_as_the_store(store, cache)
        assert hows[0] == "filled" and set(hows[1:]) == {"cached"}
        assert cache.growth_cut(store.fact_identity())[0] > first_cut


def test_thread_ids_stored_as_bytes_are_held_by_their_bytes(tmp_path, cache):
    """A BLOB thread id (raw SQL) is read as the store reads every id stored as bytes (``not_utf8.from_blob``): the
    cache holds it by its bytes (``~blob:<hex>``), and its sums are the store's."""
    written = Sqlite(tmp_path)
    written.sql("INSERT INTO checkpoints SELECT X'ff00', checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, "
                "checkpoint, metadata FROM checkpoints WHERE thread_id = 'grow-c'")  # a blob, not text (raw SQL)
    with open_store(written.url) as store:
        hows = same_as_the_store(store, cache)
        assert hows[0] == "filled" and set(hows[1:]) == {"cached"}
        assert growth_report(store, "thread", "day", 10, now=NOW, cache=cache) == growth_report(
            store, "thread", "day", 10, now=NOW)
        assert cache.growth_cut(store.fact_identity()) is not None
        assert from_blob(b"\xff\x00") in {r.thread_id for r in operating(store).growth_thread_rows(WIDTH).rows}
