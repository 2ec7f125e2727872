"""The thread search through the analysis cache's index, threads' status and the waiting list, and titles from
the state, on a store of a few hundred threads written by LangGraph's savers (``remembered_store``): SQLite with
the embedded cache (FTS5), PostgreSQL with a cache in PostgreSQL (full-text search)."""

from __future__ import annotations

import json
import shutil
import sqlite3

import psycopg
import pytest
from remembered_store import (
    ANSWERED_THREAD,
    BUSY_THREAD,
    ERROR_TEXT,
    ERROR_THREAD,
    FORKED,
    FORKED_TITLES,
    HITL_THREAD,
    INTERRUPT_THREAD,
    QUESTION,
    SECRET,
    SECRET_THREAD,
    STATUS_THREADS,
    TARGETS,
    TITLE,
    TITLE_THREAD,
    UPLOAD_NAME,
    UPLOAD_THREAD,
    add_thread,
)
from secret_store import cli

from inspector.cache import AnalysisCache
from inspector.cache.postgres import PostgresAnalysisCache
from inspector.safety.redaction import Redactor
from inspector.search.texts import index_mask, words
from inspector.store import open_store
from inspector.threads.thread_listing import thread_list
from inspector.threads.thread_status import listed_statuses, waiting_on_human

MASK = Redactor()
KINDS = {"remembered-message": "human message", "remembered-upload": "file", "remembered-tool": "tool call",
         "remembered-title": "title"}
INTERRUPTED = {t for t, status in STATUS_THREADS.items() if status == "interrupted"}


def searched(store, cache, search, **options):
    return thread_list(store, search, mask=MASK, cache=cache, **options)


def texts_at(store, thread_id, checkpoint_id) -> str:
    """Every searched word of the root state at a checkpoint (None: none), as the index splits text."""
    if checkpoint_id is None:
        return ""
    state = store.state(thread_id, checkpoint_id)
    return words(json.dumps(state.values, ensure_ascii=False, default=str))


def check_remembered(store, cache):
    for thread, remembered in TARGETS.items():
        listing = searched(store, cache, remembered)
        assert listing.total >= 2, remembered  # other threads hold the same words
        first = listing.threads[0]
        assert first.thread_id == thread, (remembered, [t.thread_id for t in listing.threads])
        hit = first.hit
        assert hit.found_in.startswith(KINDS[thread]), hit
        # the step where it appears: its checkpoint's state holds the words, the one before it does not
        row = next(r for r in store.timeline(thread) if r.checkpoint_id == hit.checkpoint_id)
        assert hit.step == row.step
        assert words(remembered) in texts_at(store, thread, hit.checkpoint_id)
        assert words(remembered) not in texts_at(store, thread, row.parent_checkpoint_id)
        assert words(remembered) in words(hit.snippet)
    # the file's name as it is written, as a word of it, in capitals
    for search in (UPLOAD_NAME, "harbor-inspection", "HARBOR-INSPECTION.PDF"):
        assert searched(store, cache, search).threads[0].thread_id == UPLOAD_THREAD, search
    assert searched(store, cache, "kelp", limit=1).threads[0].hit.snippet == TITLE


def check_secret(store, cache):
    """The planted key is in no snippet and matches no search; the thread is still found by its other words."""
    found = searched(store, cache, "deploy key thanks")
    assert [t.thread_id for t in found.threads] == [SECRET_THREAD]
    snippet = found.threads[0].hit.snippet
    assert SECRET not in snippet and "[redacted api-key]" in snippet and "R3member" not in snippet
    for probe in (SECRET, SECRET[:12], "R3memberFake", SECRET[8:20]):
        assert searched(store, cache, probe).total == 0, probe


@pytest.fixture
def cache(tmp_path):
    with AnalysisCache(tmp_path / "cache") as cache:
        yield cache


def test_what_people_remember_finds_the_thread_first_on_sqlite(remembered_db, cache, tmp_path):
    with open_store(f"sqlite:///{remembered_db}") as store:
        check_remembered(store, cache)
        check_secret(store, cache)
    # no word the index holds is the key's or a part of it; no text it keeps spells it
    conn = sqlite3.connect(tmp_path / "cache" / "analysis-cache.sqlite3")
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab('main', 'search_words', 'row')")
        terms = {term for (term,) in conn.execute("SELECT term FROM temp.terms")}
        kept = " ".join(shown for (shown,) in conn.execute("SELECT shown FROM search_rows"))
    finally:
        conn.close()
    assert {"lighthouse", "rota", "kelp"} <= terms and not [t for t in terms if "r3member" in t or t == "proj"]
    assert SECRET not in kept and "R3member" not in kept and "[redacted api-key]" in kept


def test_a_thread_written_after_the_index_was_filled_is_found(remembered_db, cache, tmp_path):
    from langgraph.checkpoint.sqlite import SqliteSaver

    copy = tmp_path / "copy.db"
    shutil.copy(remembered_db, copy)
    with open_store(f"sqlite:///{copy}") as store:
        first = thread_list(store, "albatross", mask=MASK, cache=cache)
        assert first.total == 0
        conn = sqlite3.connect(copy, check_same_thread=False)
        try:
            add_thread(SqliteSaver(conn), "late-thread", "an albatross followed the boat")
        finally:
            conn.close()
        from inspector.threads.thread_listing import thread_pages

        pages = thread_pages(store, "albatross", mask=MASK, cache=cache)
        assert [t.thread_id for t in pages.page()] == ["late-thread"]
        assert pages.found.refreshed.read == 1  # only the thread written since was read


def test_status_and_the_waiting_list_on_sqlite(remembered_db, cache):
    with open_store(f"sqlite:///{remembered_db}") as store:
        check_statuses(store, cache)
        check_titles(store, cache)


def check_statuses(store, cache):
    found = listed_statuses(store, list(STATUS_THREADS), cache)
    assert {t: s.state for t, s in found.items()} == STATUS_THREADS
    assert found[INTERRUPT_THREAD].question == QUESTION
    assert found[HITL_THREAD].question == "Review the call book_hotel(hotel='Rio Tejo', nights=3) (approve, reject)"
    assert ERROR_TEXT in found[ERROR_THREAD].error and found[ERROR_THREAD].question is None
    assert found[BUSY_THREAD].tasks == 1 and found[ANSWERED_THREAD].question is None
    waiting = waiting_on_human(store, cache)
    assert {w.thread_id for w in waiting} == INTERRUPTED
    assert all(w.since is not None and w.checkpoint_id == found[w.thread_id].checkpoint_id for w in waiting)
    for status in ("interrupted", "error", "busy"):
        listing = thread_list(store, None, mask=MASK, cache=cache, status=status)
        assert {t.thread_id for t in listing.threads} == {t for t, s in STATUS_THREADS.items() if s == status}
        assert listing.total == len(listing.threads)
    idle = thread_list(store, None, limit=1000, mask=MASK, cache=cache, status="idle")
    assert idle.total == store.count_threads() - 4 == len(idle.threads)
    assert {t.status.state for t in idle.threads} == {"idle"}
    # a search keeps the threads of the status asked for
    assert {t.thread_id for t in thread_list(store, "status", mask=MASK, cache=cache, status="interrupted").threads} \
        == INTERRUPTED


def check_titles(store, cache):
    listing = thread_list(store, None, limit=1000, mask=MASK, cache=cache)
    titles = {t.thread_id: t.title for t in listing.threads}
    written = store.thread_titles()
    # the newest title write is on the branch left behind; the newest state holds the first turn's title
    assert written[FORKED] == FORKED_TITLES[1] and titles[FORKED] == FORKED_TITLES[0]
    assert titles[TITLE_THREAD] == TITLE
    # threads stored by update_state wrote no title: their state holds one
    stored_whole = [t for t in titles if t.removeprefix("remembered-").isdigit()]
    assert stored_whole and all(titles[t] and t not in written for t in stored_whole)
    assert titles[HITL_THREAD] is None  # a LangChain agent's profile names no title field


def test_the_cli_searches_and_filters_by_status(remembered_db, tmp_path):
    env = {"INSPECTOR_CACHE_DIR": str(tmp_path / "cli-cache")}
    found = cli("threads", "--db", str(remembered_db), "--search", UPLOAD_NAME, "--json", **env)
    assert found.returncode == 0, found.stderr
    first = json.loads(found.stdout)["threads"][0]
    assert first["thread_id"] == UPLOAD_THREAD
    assert first["hit"]["found_in"] == "file · uploaded_files" and first["hit"]["step"] == 0
    waiting = cli("threads", "--db", str(remembered_db), "--status", "interrupted", "--json", **env)
    listed = json.loads(waiting.stdout)
    assert {t["thread_id"] for t in listed["threads"]} == INTERRUPTED and listed["total"] == 2
    assert {t["status"]["question"] for t in listed["threads"]} >= {QUESTION}
    table = cli("threads", "--db", str(remembered_db), "--search", "tidal turbine permits", "--limit", "1", **env)
    assert table.returncode == 0 and "tool call · messages" in table.stdout and "remembered-tool" in table.stdout
    refused = cli("threads", "--db", str(remembered_db), "--status", "sleeping", **env)
    assert refused.returncode == 2 and "invalid choice" in refused.stderr


@pytest.mark.postgres
def test_search_status_and_titles_on_postgres(pg_remembered):
    admin, readonly, cache_url = pg_remembered
    with open_store(readonly) as store, PostgresAnalysisCache(cache_url) as cache:
        check_remembered(store, cache)
        check_secret(store, cache)
        check_statuses(store, cache)
        check_titles(store, cache)
        with psycopg.connect(cache_url) as conn:
            held = " ".join(f"{shown} {vector}" for shown, vector in conn.execute(
                "SELECT shown, words::text FROM inspector_cache_search_rows")).lower()
        assert "lighthouse" in held and "r3member" not in held and SECRET.lower() not in held
        # a NUL (no PostgreSQL text holds one) is no word: the words around it are searched, no id matches it
        assert searched(store, cache, "harbor\x00").total == searched(store, cache, "harbor").total > 0
        # a thread written after the index was filled is found by the next search, only it read
        from langgraph.checkpoint.postgres import PostgresSaver

        from inspector.threads.thread_listing import thread_pages

        with PostgresSaver.from_conn_string(admin) as saver:
            add_thread(saver, "late-pg-thread", "a cormorant dried its wings")
        pages = thread_pages(store, "cormorant", mask=MASK, cache=cache)
        assert [t.thread_id for t in pages.page()] == ["late-pg-thread"] and pages.found.refreshed.read == 1


def test_masked_texts_keep_no_hash_or_length():
    """The index's marks name the kind of secret only: a hash (keyed or not) or a length could confirm a guess."""
    text = f"key {SECRET} and password=hunter22-fake"
    assert index_mask().text(text) == "key [redacted api-key] and password=[redacted password]"
    assert words(index_mask().text(text)) == "key and password"


def test_the_hostile_corpus_is_indexed_masked_and_in_bounded_time(hostile_corpus_db, tmp_path):
    """Every thread of the hostile corpus (secrets under many names and shapes, pathological texts, bytes, ids
    that are not UTF-8, escapes) is read into the index: no planted secret is held, neither in a kept text nor
    as a word; each text is cut; a search over it answers with masked snippets."""
    import re

    import hostile_corpus

    from inspector.search.texts import TEXT_CHARS

    with open_store(f"sqlite:///{hostile_corpus_db}") as store, AnalysisCache(tmp_path / "hostile-cache") as cache:
        check_hostile(store, cache)
    conn = sqlite3.connect(tmp_path / "hostile-cache" / "analysis-cache.sqlite3")
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab('main', 'search_words', 'row')")
        terms = {term for (term,) in conn.execute("SELECT term FROM temp.terms")}
        kept = [shown for (shown,) in conn.execute("SELECT shown FROM search_rows")]
        threads = {thread for (thread,) in conn.execute("SELECT DISTINCT thread FROM search_threads")}
    finally:
        conn.close()
    assert len(threads) >= len(hostile_corpus.CASES)  # every thread was read (some cases plant several)
    assert kept and max(len(text) for text in kept) <= TEXT_CHARS
    assert not hostile_corpus.leaked("\n".join(kept))
    for secret in hostile_corpus.secrets():
        runs = [run for run in re.findall(r"[^\W_]+", secret.lower()) if len(run) >= 10]
        assert not [run for run in runs if run in terms], secret


def check_hostile(store, cache) -> None:
    import time

    import hostile_corpus

    started = time.monotonic()
    listing = thread_list(store, "key password token secret", limit=1000, mask=MASK, cache=cache)
    assert time.monotonic() - started < 120  # every thread indexed: linear transforms only
    snippets = " ".join(t.hit.snippet for t in listing.threads if t.hit)
    assert not hostile_corpus.leaked(snippets)
    assert searched(store, cache, "redacted").total == 0  # the marks are not words
    assert searched(store, cache, "\x00 \ud800 ' \" ; -- :* & | ! ( )").total == 0  # no query syntax reaches the engine


@pytest.mark.postgres
def test_the_hostile_corpus_in_a_postgres_cache(hostile_corpus_db, pg_remembered):
    """NUL, lone surrogates, control characters and 100,000-character texts held by PostgreSQL's full-text search;
    no planted secret in a kept text or a word."""
    import hostile_corpus

    cache_url = pg_remembered[2]
    with open_store(f"sqlite:///{hostile_corpus_db}") as store, PostgresAnalysisCache(cache_url) as cache:
        check_hostile(store, cache)
        identity = store.fact_identity()
    with psycopg.connect(cache_url) as conn:
        held = [f"{shown} {vector}" for shown, vector in conn.execute(
            "SELECT shown, words::text FROM inspector_cache_search_rows WHERE store = %s", [identity])]
    assert held and not hostile_corpus.leaked("\n".join(held))
