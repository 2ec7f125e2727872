"""The thread search matches what the views show: a secret masked in a thread's metadata never makes the
thread match (so its prefixes cannot be probed), visible metadata values and thread ids still do, and with
reveal allowed the stored text is searched. On stores written by LangGraph's own savers (SQLite, PostgreSQL,
InMemorySaver), through the core, the CLI and the Threads page."""

from __future__ import annotations

import json

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from search_store import (
    HISTORY_THREAD,
    HISTORY_TITLE,
    HISTORY_USER,
    KEY_PREFIX,
    KEY_THREAD,
    PASSWORD_PREFIX,
    PLAIN_THREAD,
    TEAM,
    TITLE,
    USER,
    WRITTEN,
    put_history_thread,
    run_search_threads,
    write_search_store,
)
from secret_store import OPENAI_KEY, cli
from ui_app import all_text, open_page

from inspector.safety.redaction import Redactor
from inspector.store import open_store
from inspector.store.saver import SaverStore
from inspector.threads import thread_list as thread_list_module
from inspector.threads.thread_list import SEARCH_LONGEST, SearchTooLong, ThreadPages
from inspector.threads.thread_listing import thread_list
from inspector.ui import connection

MASK = Redactor()
PROBES = (KEY_PREFIX, OPENAI_KEY, "FakeKey0123", PASSWORD_PREFIX, f"{HISTORY_USER}-pw")


@pytest.fixture(scope="module")
def search_db(tmp_path_factory):
    return write_search_store(tmp_path_factory.mktemp("search") / "search.db")


@pytest.fixture(scope="module")
def pg_search_url(postgres_dsn):
    from conftest import fresh_database, grant_readonly_role
    from langgraph.checkpoint.postgres import PostgresSaver

    database = "inspector_thread_search"
    admin_dsn = fresh_database(postgres_dsn.admin_dsn, database)
    with PostgresSaver.from_conn_string(admin_dsn) as saver:
        saver.setup()
        run_search_threads(saver)
        put_history_thread(saver)
    grant_readonly_role(admin_dsn)
    return f"{postgres_dsn.readonly_dsn.rsplit('/', 1)[0]}/{database}"


def found(store, search, mask=MASK, sort="newest"):
    return sorted(t.thread_id for t in thread_list(store, search, sort=sort, mask=mask).threads)


def check_backend(store):
    everything = sorted([KEY_THREAD, PLAIN_THREAD, HISTORY_THREAD])
    kept_writes = store.count_threads(search=WRITTEN) == 1  # PostgreSQL's savers drop the metadata's writes
    assert found(store, WRITTEN) == ([HISTORY_THREAD] if kept_writes else [])
    for probe in PROBES:
        # the stored text holds it: the store finds it (the key in the thread's metadata, and in its writes)
        assert store.count_threads(search=probe) == (1 + (kept_writes and probe in OPENAI_KEY)), probe
        for sort in ("newest", "stored", "checkpoints"):
            listing = thread_list(store, probe, sort=sort, mask=MASK)
            assert (listing.total, listing.threads) == (0, []), (probe, sort)
    assert found(store, TITLE.split()[0].lower()) == found(store, USER) == [KEY_THREAD, PLAIN_THREAD]
    assert found(store, "ops-key") == [KEY_THREAD]  # by thread id
    assert found(store, "OPS-") == everything  # ids, ignoring case
    assert found(store, "password") == everything  # a secret's name is shown
    assert found(store, "redacted") == []  # its mark is not searched
    # the newest checkpoint holds the name only inside a password; an older one shows it
    assert found(store, HISTORY_USER) == [HISTORY_THREAD]
    # with reveal, the stored text is searched
    assert found(store, KEY_PREFIX, mask=None) == everything  # every title holds the key as stored
    assert found(store, f"{HISTORY_USER}-pw", mask=None) == [HISTORY_THREAD]
    assert found(store, "deploy") == [KEY_THREAD, PLAIN_THREAD]
    # the title the list shows, masked, and checkpoint ids
    assert found(store, HISTORY_TITLE.upper()) == [HISTORY_THREAD]
    assert thread_list(store, HISTORY_TITLE, mask=MASK).total == 1
    oldest = min(r.checkpoint_id for r in store.timeline(HISTORY_THREAD))
    assert found(store, oldest) == [HISTORY_THREAD] and found(store, oldest[:13]) == [HISTORY_THREAD]
    # shown in one thread's note, held by the other only inside its password
    assert store.count_threads(search=TEAM) == 2 and found(store, TEAM) == [PLAIN_THREAD]
    # the longest search answers (four bytes a character: SQLite's LIKE pattern stays within its bound);
    # a longer one is refused in one line on every backend, before the store is asked
    assert thread_list(store, "\U0001d538" * SEARCH_LONGEST, mask=MASK).total == 0
    for mask in (MASK, None):
        with pytest.raises(SearchTooLong, match=f"^a search is at most {SEARCH_LONGEST:,} characters; this one has "
                                                f"{5 * SEARCH_LONGEST:,}: search for a part of it$"):
            thread_list(store, "%" * 5 * SEARCH_LONGEST, mask=mask)


def test_sqlite_store_written_by_sqlitesaver(search_db):
    with open_store(f"sqlite:///{search_db}") as store:
        check_backend(store)


def test_saver_store_over_inmemorysaver():
    saver = InMemorySaver()
    run_search_threads(saver)
    put_history_thread(saver)
    with SaverStore(saver, "memory") as store:
        check_backend(store)


@pytest.mark.postgres
def test_postgres_store_written_by_postgressaver(pg_search_url):
    with open_store(pg_search_url) as store:
        check_backend(store)


def test_counts_and_pages_come_from_the_confirmed_threads(search_db, monkeypatch):
    with open_store(f"sqlite:///{search_db}") as store:
        pages = ThreadPages(store, "deploy", "newest", mask=MASK)  # every candidate confirmed: the store pages
        first, second = pages.page(1, 0), pages.page(1, 1)
        assert pages.total == 2 and pages.page(1, 2) == []
        assert [t.thread_id for t in first + second] == [t.thread_id for t in store.threads(search="deploy")]
        # candidates read a page at a time, in the store's order, keeping the confirmed ones
        monkeypatch.setattr(thread_list_module, "_RANK_PAGE", 1)
        for sort in ("newest", "stored", "checkpoints"):
            ranked = [t.thread_id for t in store.threads(search="e", sort=sort)]
            pages = ThreadPages(store, "e", sort, mask=MASK)
            assert pages.total == 3 and [t.thread_id for t in pages.page(2, 1)] == ranked[1:3]
            pages = ThreadPages(store, TEAM, sort, mask=MASK)
            assert pages.total == 1 and [t.thread_id for t in pages.page(5, 0)] == [PLAIN_THREAD]
            assert pages.page(5, 1) == []


def test_reading_older_checkpoints_is_bounded(search_db, monkeypatch):
    with open_store(f"sqlite:///{search_db}") as store:
        monkeypatch.setattr(thread_list_module, "SEARCH_ROWS", 0)
        # the thread that shows the name only in an older checkpoint is not read past its newest one
        assert thread_list(store, HISTORY_USER, mask=MASK).total == 0
        assert found(store, USER) == [KEY_THREAD, PLAIN_THREAD]  # confirmed by their newest checkpoints


def _listed(result) -> list[str]:
    assert result.returncode == 0, result.stderr
    return sorted(t["thread_id"] for t in json.loads(result.stdout)["threads"])


def test_cli_search_matches_only_what_it_shows(search_db):
    for probe in (KEY_PREFIX, PASSWORD_PREFIX):
        result = cli("threads", "--db", str(search_db), "--search", probe, "--json")
        assert _listed(result) == [] and json.loads(result.stdout)["total"] == 0
        table = cli("threads", "--db", str(search_db), "--search", probe)
        assert table.returncode == 0 and KEY_THREAD not in table.stdout and "0 of 0 thread(s)" in table.stdout
    assert _listed(cli("threads", "--db", str(search_db), "--search", TITLE, "--json")) == [KEY_THREAD, PLAIN_THREAD]
    revealed = cli("threads", "--db", str(search_db), "--search", KEY_PREFIX, "--reveal", "--json",
                   INSPECTOR_ALLOW_REVEAL="true")
    assert _listed(revealed) == [HISTORY_THREAD, KEY_THREAD, PLAIN_THREAD]  # the key in metadata, writes, titles
    refused = cli("threads", "--db", str(search_db), "--search", KEY_PREFIX, "--reveal", "--json")
    assert refused.returncode != 0 and refused.stdout == ""
    too_long = cli("threads", "--db", str(search_db), "--search", "x" * 60_000)
    assert too_long.returncode == 2 and too_long.stdout == ""
    assert too_long.stderr == (f"error: a search is at most {SEARCH_LONGEST:,} characters; this one has 60,000: "
                               "search for a part of it\n")


@pytest.fixture
def threads_page(search_db, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{search_db}")
    connection.settings.clear()
    yield
    connection.settings.clear()


def _shown(at) -> list[str]:
    if not at.dataframe:  # nothing matched: the page says so instead of drawing an empty table
        assert "No thread matches" in all_text(at)
        return []
    frame = at.dataframe[0].value
    return sorted(frame["thread"]) if len(frame) else []


def test_page_search_matches_only_what_it_shows(threads_page):
    at = open_page("threads")
    assert not at.exception
    assert "Search unmasked values" not in [t.label for t in at.toggle]  # reveal is off by default
    at.text_input[0].input(KEY_PREFIX).run()
    assert not at.exception and _shown(at) == [] and "Clear the search" in [b.label for b in at.button]
    for search, expected in ((PASSWORD_PREFIX, []), (TITLE, [KEY_THREAD, PLAIN_THREAD]),
                             ("ops-history", [HISTORY_THREAD]), (HISTORY_USER, [HISTORY_THREAD])):
        at = open_page("threads", q=search)
        assert not at.exception and _shown(at) == expected, search
    at = open_page("threads", q="x" * 60_000)
    assert not at.exception and not at.dataframe
    assert [w.value for w in at.main.warning] == [f"Search not run: a search is at most {SEARCH_LONGEST:,} characters; "
                                             "this one has 60,000: search for a part of it."]


def test_page_search_unmasked_where_reveal_is_allowed(threads_page, tmp_path, monkeypatch):
    log = tmp_path / "audit.jsonl"
    monkeypatch.setenv("INSPECTOR_ALLOW_REVEAL", "true")
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(log))
    at = open_page("threads")
    at.text_input[0].input(KEY_PREFIX).run()
    assert _shown(at) == []  # masked until asked
    toggle = next(t for t in at.toggle if t.label == "Search unmasked values")
    toggle.set_value(True).run()
    assert not at.exception and _shown(at) == [HISTORY_THREAD, KEY_THREAD, PLAIN_THREAD]  # titles hold it as stored
    reveals = [line for line in map(json.loads, log.read_text().splitlines()) if line["action"] == "reveal"]
    assert [r.get("what") for r in reveals] == ["thread search"]
    assert KEY_PREFIX not in log.read_text()  # the search text is never logged
