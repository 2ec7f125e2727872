"""The hostile corpus's memory store (``corpus/hostile_memory.py``) through the ``memory`` command and the Memory page:
every namespace and item answers, each hostile one in one clear line, nothing planted reaches a terminal or the
browser as itself, no secret is shown, and a huge or deep item costs a bounded page."""

from __future__ import annotations

import json
import os

import hostile_corpus as corpus
import pytest
from corpus.hostile_memory import (
    BAD_BYTES_PREFIX,
    BIDI_LABEL,
    CONTROL_KEY,
    CONTROL_LABEL,
    CONTROL_NS,
    DEEP,
    DEEPER_KEY,
    DEEPER_PREFIX,
    HUGE,
    LONG,
    PLAIN,
    PLAIN_TEXT,
    RAW_PREFIX,
)
from test_ui_redaction import rendered
from ui_app import all_text, open_page

from inspector.cli import main
from inspector.history.location import url_id
from inspector.memory import prefix_of
from inspector.store.not_utf8 import decode, token

pytestmark = pytest.mark.timeout(300)
CASES = ["memory-store"]
BAD_BYTES = decode(BAD_BYTES_PREFIX)
ITEMS = [(prefix_of(PLAIN[0]), PLAIN[1]), (prefix_of(HUGE[0]), HUGE[1]), (prefix_of(LONG[0]), LONG[1]),
         (prefix_of(DEEP[0]), DEEP[1]), (DEEPER_PREFIX, DEEPER_KEY), (prefix_of(CONTROL_NS), CONTROL_KEY),
         (BAD_BYTES, "bytes"), (RAW_PREFIX, "not-json")]
ONE_LINE = {  # the item -> the one line that says what is wrong with it
    (prefix_of(DEEP[0]), DEEP[1]): "field 'deep' nested deeper than 100 levels; not shown",
    (DEEPER_PREFIX, DEEPER_KEY): "value nested deeper than 400 levels; not shown",
    (RAW_PREFIX, "not-json"): "value is not JSON (Expecting value: line 1 column 1 (char 0)); shown as text",
}


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory):
    return corpus.write_corpus(tmp_path_factory.mktemp("hostile-memory"), cases=CASES)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["memory", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def clean(text: str) -> None:
    assert corpus.leaked(text, CASES) == []
    assert corpus.controls_in(text) == []


@pytest.mark.parametrize("as_json", [False, True])
def test_the_tree_names_every_hostile_namespace_escaped(hostile_db, capsys, as_json):
    code, out, err = run(capsys, "--db", str(hostile_db), *(["--json"] if as_json else []))
    assert code == 0 and err == ""
    clean(out)
    if as_json:
        labels = {row["label"] for row in json.loads(out)["namespaces"]}
        assert {CONTROL_LABEL, BIDI_LABEL, "bad-\udcff\udcfe", "huge", "deep"} <= labels
    else:
        assert "ctl\\x1b[2J\\x07\\x1b]8;;http://evil/\\x07link" in out and "user-\\u202eevil\\u2066-1234" in out
        assert "bad-\\xff\\xfe (not UTF-8)" in out and "8 item(s) in 7 namespace(s)" in out


@pytest.mark.parametrize(("prefix", "key"), ITEMS)
@pytest.mark.parametrize("as_json", [False, True])
def test_every_item_answers_and_a_hostile_one_says_what_in_one_line(hostile_db, capsys, prefix, key, as_json):
    code, out, err = run(capsys, "--db", str(hostile_db), "--namespace", token(prefix), "--item", token(key),
                         *(["--json"] if as_json else []))
    assert code == 0 and err == "", err
    clean(out)
    said = ONE_LINE.get((prefix, key))
    if as_json:
        item = json.loads(out)
        assert item["problems"] == ([said] if said else []) or (prefix, key) == (RAW_PREFIX, "not-json")
    elif said:
        assert out.count(f"problem: {said}\n") == 1
    listing = run(capsys, "--db", str(hostile_db), "--namespace", token(prefix))
    assert listing[0] == 0
    clean(listing[1])


def test_a_raw_row_says_each_unreadable_column(hostile_db, capsys):
    code, out, _ = run(capsys, "--db", str(hostile_db), "--namespace", RAW_PREFIX, "--item", "not-json")
    assert code == 0
    assert "problem: expires_at holds 'soon', which is no time\n" in out
    assert "problem: ttl_minutes holds 'abc', which is no number\n" in out
    assert "expiry     unreadable (see problems)" in out


@pytest.fixture
def app_on_corpus(hostile_db, monkeypatch):
    from inspector.ui import connection

    for name in [k for k in os.environ if k.startswith("INSPECTOR_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{hostile_db}")
    connection.settings.clear()
    yield hostile_db
    connection.settings.clear()


def page_of(**params: str):
    at = open_page("memory", **params)
    assert not at.exception, at.exception
    page = rendered(at)
    assert corpus.leaked(page, CASES) == []
    return at, page


def test_the_page_shows_every_namespace_inert(app_on_corpus):
    at, page = page_of()
    labels = " ".join(at.dataframe[0].value["namespace"])
    assert "user-\\u202eevil\\u2066-1234" in labels and "\u202e" not in labels  # bidi as its code points
    assert "bad-\\xff\\xfe (not UTF-8)" in labels
    assert {m.label: m.value for m in at.metric}["Items"] == "8"


@pytest.mark.parametrize(("prefix", "key"), ITEMS)
def test_every_item_page_goes_on_and_stays_small(app_on_corpus, prefix, key):
    at, page = page_of(namespace=url_id(prefix), key=url_id(key))
    assert not [e.value for e in at.error], [e.value for e in at.error]
    said = ONE_LINE.get((prefix, key))
    if said:
        assert [w.value for w in at.warning if said.replace("'", "") in w.value.replace("'", "").replace("\\", "")]
    assert len(page) < 400_000  # a 1.4 MB item or a 100,000-character text is not sent whole
    assert "Download the item as JSON" in [b.label for b in at.get("download_button")] or said


def test_the_huge_item_lists_its_fields_in_one_line(app_on_corpus):
    at, _ = page_of(namespace=url_id(prefix_of(HUGE[0])), key=HUGE[1])
    (info,) = [i.value for i in at.info if "more than the 1,000,000" in i.value]
    assert info.startswith("This value is 1,")
    assert "entries" in all_text(at) and "25000 item(s)" in all_text(at)


def test_the_plain_item_beside_them_reads_as_usual(app_on_corpus):
    at, _ = page_of(namespace=url_id(prefix_of(PLAIN[0])), key=PLAIN[1])
    assert PLAIN_TEXT in rendered(at) and not at.main.warning
