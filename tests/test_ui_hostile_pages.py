"""Every page over the hostile corpus (``hostile_corpus.py``), in AppTest: no exception, no planted secret in
anything sent to the browser, long texts cut for display with their size and a download of the whole, the
thread list showing every thread (undecodable ids escaped)."""

from __future__ import annotations

import os
from pathlib import Path

import hostile_corpus as corpus
import pytest
from test_ui_redaction import rendered
from ui_app import open_page

from inspector.safety.inert_text import literal
from inspector.store.not_utf8 import decode, shown, token
from inspector.ui.routes import checkpoint_params

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def hostile_db(hostile_corpus_db) -> Path:
    return hostile_corpus_db


@pytest.fixture
def app_on_corpus(hostile_db, monkeypatch):
    from inspector.ui import connection

    for name in [k for k in os.environ if k.startswith("INSPECTOR_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{hostile_db}")
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(hostile_db.parent))
    connection.settings.clear()
    yield hostile_db
    connection.settings.clear()


def check(at) -> str:
    assert not at.exception, at.exception
    page = rendered(at)
    assert corpus.leaked(page) == []
    return page


def test_store_wide_pages(app_on_corpus):
    page = check(open_page("threads"))
    assert "bad-\\\\xff\\\\xfe-thread (not UTF-8)" in page  # escaped and marked (a backslash is escaped in Markdown)
    assert "hostile-listed-after-bad" in page
    for name in ("health", "retention"):
        at = open_page(name)
        check(at)
        assert not [e.value for e in at.error if "could not be shown" in e.value], name


@pytest.mark.parametrize("thread", corpus.thread_ids())
def test_thread_and_diff_pages_of_each_hostile_thread(app_on_corpus, thread):
    at = open_page("thread", thread=token(thread))  # as a link spells it (an id stored as bytes: ~blob:<hex>)
    check(at)
    toggles = {t.key: t for t in at.toggle}
    for key in ("show_internal", "show_writes", "show_raw"):  # every hostile thread's state opens with them
        assert key in toggles, f"{thread!r}: no {key} toggle"
        toggles[key].set_value(True)
    check(at.run())
    check(open_page("diff", thread=token(thread), replay="1"))


def test_an_id_that_is_not_utf8_opens_its_own_thread(app_on_corpus):
    """The planted id victim + 0xFF and the real id victim\\xff: each page, opened from the URL the other
    pages link with, shows its own thread; the planted one's URL spells it as its token."""
    planted = decode(corpus.VICTIM_PLANTED)
    for thread, mine, theirs in ((planted, corpus.VICTIM_PLANTED_TEXT, corpus.VICTIM_REAL_TEXT),
                                 (corpus.VICTIM_REAL, corpus.VICTIM_REAL_TEXT, corpus.VICTIM_PLANTED_TEXT)):
        at = open_page("thread", **checkpoint_params(thread))
        page = check(at)
        assert mine in page and theirs not in page
        assert at.query_params["thread"] == token(thread)
        assert [t.value for t in at.title] == [literal(shown(thread))]
    assert token(planted).startswith("~bytes:") and token(corpus.VICTIM_REAL) == corpus.VICTIM_REAL
    checkpoint = token(decode(corpus.BAD_UTF8_CHECKPOINT))  # a checkpoint id that is not UTF-8, named in the URL
    at = open_page("thread", thread=token(decode(corpus.BAD_UTF8_THREAD + b"-cp")), checkpoint=checkpoint, panel="size")
    check(at)
    assert not [e.value for e in at.error if "could not be shown" in e.value]
    assert not [w.value for w in at.warning if "is not in this thread" in w.value]
    assert at.query_params["checkpoint"] == checkpoint
    for thread, named, other in ((token(planted), "CAST(X'76696374696DFF' AS TEXT)", "'victim\\xff'"),
                                 (corpus.VICTIM_REAL, "'victim\\xff'", "CAST(X'")):
        at = open_page("retention", threads=thread)  # the preview's statements name that thread alone
        check(at)
        statements = "\n".join(c.value for c in at.code if "DELETE" in c.value)
        assert f"thread_id COLLATE BINARY = {named};" in statements and other not in statements


def test_a_long_message_is_cut_for_display_with_its_size_and_a_download(app_on_corpus):
    at = open_page("thread", thread=corpus.LONG_THREAD)
    check(at)
    notes = [c.value for c in at.caption if "Cut for display" in c.value]
    assert notes and "of 100,000 characters are shown" in notes[0].replace("\\", "")
    longest = max((len(m.value) for m in at.markdown), default=0)
    assert longest < 60_000  # no 100,000-character message is sent whole (escaping at most doubles 20,000)
    assert max((len(str(j.value)) for j in at.json), default=0) < 60_000  # nor a field's JSON tree
    assert max((len(t.value) for t in at.text), default=0) < 60_000  # nor a tool's output
    assert max((len(str(h.proto.body)) for h in at.get("html")), default=0) < 60_000  # nor a run of messages
    assert any("long text(s) cut for display" in c.value for c in at.caption)
    page = rendered(at)
    assert "Download the whole text" in page


def test_pages_name_an_unknown_id_that_is_not_utf8_as_tables_spell_it(app_on_corpus):
    """A link naming a thread, checkpoint or namespace the store does not hold, with bytes that are not UTF-8:
    the page's message spells it ``'no-such-\\xff' (not UTF-8)``, as the CLI's error lines do, never ``'\\udcff'``."""
    unknown = token(decode(b"no-such-\xff"))
    messages = []
    for page, params in (("thread", {"thread": unknown}), ("diff", {"thread": unknown}),
                         ("thread", {"thread": "hostile-plain", "checkpoint": unknown}),
                         ("diff", {"thread": corpus.ESCAPES_THREAD, "ns": unknown})):
        at = open_page(page, **params)
        check(at)
        named = [m.value for m in [*at.error, *at.warning] if "no-such-" in m.value]
        assert named and all("(not UTF-8)" in m and "udc" not in m for m in named), (page, params, named)
        messages += named
    assert any("There is no thread 'no-such-\\\\xff' (not UTF-8) in this store." in m for m in messages), messages
