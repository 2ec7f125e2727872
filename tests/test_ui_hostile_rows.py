"""AppTest: one hostile row or one bad link parameter breaks nothing but itself (``corpus/hostile_rows.py``).
Ids stored as BLOBs are listed marked ``(stored as bytes)`` and their thread, checkpoint and namespace open; a
metadata step no integer column holds is a problem on its row; a channel named like a secret shows its size; a query
parameter that is no number (``step=²``, ``step=--5``, a step of 23 digits, ``keep=²``) is named and left out."""

from __future__ import annotations

import os
from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus.hostile_rows import (
    API_KEY_VALUE,
    BLOB_CHECKPOINT,
    BLOB_IDS,
    BLOB_IDS_TEXT,
    BLOB_NS,
    BLOB_THREAD,
    BLOB_THREAD_TEXT,
    HUGE_STEP,
    ROWS_CASES,
    SECRET_CHANNELS,
)
from corpus.hostile_structure import PLAIN
from test_ui_redaction import rendered
from ui_app import all_text, open_page

from inspector.store import open_store
from inspector.store.not_utf8 import from_blob, shown, token
from inspector.ui.inert import literal

pytestmark = pytest.mark.timeout(300)

BAD_STEPS = ("²", "--5", "99999999999999999999999", "٣")  # str.isdigit takes the first and the last


@pytest.fixture(scope="module")
def rows_db(tmp_path_factory) -> Path:
    return corpus.write_corpus(tmp_path_factory.mktemp("ui-hostile-rows"), cases=(*ROWS_CASES, "plain"))


@pytest.fixture
def app_on_rows(rows_db, monkeypatch, app_on_store):
    for name in [k for k in os.environ if k.startswith("INSPECTOR_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(rows_db.parent))
    app_on_store(f"sqlite:///{rows_db}")
    return rows_db


def check(at) -> str:
    """The page ran without an exception or a failed panel, and sent no planted secret; its text."""
    assert not at.exception, [e.value for e in at.exception]
    assert not [e.value for e in at.error if "could not be shown" in e.value]
    page = rendered(at)
    text = all_text(at)
    assert corpus.leaked(page) == [] and "\ud800" not in text and "\\ud800" not in text and "b'" not in page
    return page


def cells(at) -> list[str]:
    return [str(v) for df in at.dataframe for column in df.value.columns for v in df.value[column]]


def test_store_wide_pages_list_a_thread_stored_as_bytes_beside_its_namesake(app_on_rows):
    at = open_page("threads")
    check(at)
    listed = cells(at)
    assert BLOB_IDS in listed and shown(BLOB_THREAD) == f"{BLOB_IDS} (stored as bytes)" and shown(BLOB_THREAD) in listed
    at = open_page("retention", threads=token(BLOB_THREAD))  # its statements name it by its bytes
    check(at)
    statements = "\n".join(c.value for c in at.code if "DELETE" in c.value)
    assert f"thread_id COLLATE BINARY = X'{BLOB_IDS.encode().hex().upper()}';" in statements and f"'{BLOB_IDS}'" not in statements


def test_a_thread_stored_as_bytes_opens_as_its_own(app_on_rows):
    for thread, mine, theirs in ((BLOB_THREAD, BLOB_THREAD_TEXT, BLOB_IDS_TEXT), (BLOB_IDS, BLOB_IDS_TEXT,
                                                                                  BLOB_THREAD_TEXT)):
        at = open_page("thread", thread=token(thread))
        page = check(at)
        assert mine in page and theirs not in page
        assert [t.value for t in at.title] == [literal(shown(thread))]
        assert at.query_params["thread"] == token(thread)


@pytest.mark.parametrize("where", ["checkpoint", "ns"])
def test_a_checkpoint_and_a_namespace_stored_as_bytes_open_from_their_links(app_on_rows, where):
    wanted = token(from_blob((BLOB_CHECKPOINT if where == "checkpoint" else BLOB_NS).encode()))
    at = open_page("thread", thread=BLOB_IDS, **{where: wanted}, panel="size")
    text = all_text(at) + check(at)
    assert not [w.value for w in at.warning if "is not in this thread" in w.value or "has no checkpoint" in w.value]
    assert at.query_params[where] == wanted
    if where == "checkpoint":
        assert f"{BLOB_CHECKPOINT} (stored as bytes)" in text


def test_a_huge_step_is_a_problem_named_on_its_own_row(app_on_rows, rows_db):
    at = open_page("thread", thread=HUGE_STEP, history="table")
    check(at)
    named = [w.value for w in at.warning if "is no step number" in w.value]
    with open_store(f"sqlite:///{rows_db}") as store:
        ids = [r.checkpoint_id for r in store.timeline(HUGE_STEP)]
    assert len(named) == 4 and all(any(f"Checkpoint '{i}'" in w for w in named) for i in ids)
    assert any("18446744073709551616 is no step number" in w for w in named)
    assert "a step past any integer" in all_text(at)  # the state is shown
    (table,) = [df.value for df in at.dataframe if "step" in df.value.columns]
    assert len(table) == 4


def test_a_channel_named_like_a_secret_shows_its_size_and_a_masked_value(app_on_rows):
    at = open_page("thread", thread=SECRET_CHANNELS)
    page = check(at)
    text = all_text(at)
    assert "**`api_key`** · 22 B stored" in text and "**`db_password`** · 5 B stored" in text
    assert "[redacted api-key" in page and API_KEY_VALUE not in page
    for panel in ("size", "diff-vs-parent", "graph"):
        check(open_page("thread", thread=SECRET_CHANNELS, panel=panel))


@pytest.mark.parametrize("step", BAD_STEPS)
def test_a_step_in_the_link_that_is_no_number_is_named_and_left_out(app_on_rows, step):
    at = open_page("thread", thread=PLAIN, step=step)
    check(at)
    assert [w.value for w in at.warning if "is not a step number" in w.value] == [
        literal(f"step='{step}' in the link is not a step number (such as 12 or -1); it is left out.")]
    assert "Step " not in all_text(at) and at.query_params.get("step") != step  # the newest checkpoint, named whole
    check(open_page("diff", thread=PLAIN, step=step, replay="1"))  # the Diff page takes no step: it goes on


def test_a_step_of_minus_one_opens_the_input_and_other_numbers_in_links_are_named(app_on_rows):
    at = open_page("thread", thread=PLAIN, step="-1")
    check(at)
    assert at.query_params["step"] == "-1" and not [w.value for w in at.warning if "step" in w.value]
    check(open_page("diff", thread=PLAIN, step="-1"))
    at = open_page("thread", thread=HUGE_STEP, step="-1")  # no step -1 there: said, with a way on
    check(at)
    assert any("Step -1 is not on the newest branch" in w.value for w in at.warning)
    named = {("thread", "panel", "²"): "panel='²' is not understood", ("thread", "history", "--5"): "history='--5' is not",
             ("threads", "sort", "²"): "sort='²' is not understood",
             ("diff", "from", "--5"): "Not a checkpoint of thread", ("diff", "ns", "²"): "ns='²' in the link",
             ("diff", "replay", "²"): "replay='²' in the link", ("retention", "keep", "²"): "keep='²' in the link",
             ("retention", "keep", "--5"): "keep='--5' in the link",
             ("retention", "keep", "99999999999999999999999"): "keep='99999999999999999999999' in the link",
             ("retention", "older", "nan"): "older='nan' in the link", ("retention", "inactive", "-1"): "inactive='-1'",
             ("retention", "safe", "²"): "safe='²' in the link"}
    for (page, param, value), said in named.items():
        params = {param: value, **({"thread": BLOB_IDS} if page in ("thread", "diff") else {})}
        at = open_page(page, **params)
        check(at)
        assert any(said in m.value for m in [*at.warning, *at.error]), (page, param, value)
