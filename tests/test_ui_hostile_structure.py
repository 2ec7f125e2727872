"""AppTest: every page over the structural cases of the hostile corpus (folder symlinks, named pipes, deep
values) renders without an exception or a hang, never shows a host file, and names each refusal."""

from __future__ import annotations

from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus.hostile_structure import (
    BRANCH,
    DEEP_JSON,
    DEEP_MSGPACK,
    ETC_LINK,
    FIFO,
    FOLDER_LINK,
    PLAIN,
    ROOT_LINK,
)
from ui_app import all_text, open_page

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def structure_db(structure_corpus_db) -> Path:
    return structure_corpus_db


@pytest.fixture
def app_on_structure(structure_db, app_on_store):
    app_on_store(str(structure_db))
    return structure_db


def everything(at) -> str:
    """All text of a page: its text elements, JSON values and tables."""
    parts = [all_text(at), *(str(j.value) for j in at.json), *(df.value.to_csv() for df in at.dataframe)]
    parts += [str(e.value) for e in at.exception]
    return "\n".join(parts)


def check(at) -> str:
    assert not at.exception, [e.value for e in at.exception]
    text = everything(at)
    assert corpus.leaked(text) == [] and "RecursionError" not in text and "could not be shown" not in text
    return text


@pytest.mark.parametrize("page", ["threads", "health", "retention"])
def test_store_wide_pages_go_on_past_a_too_deep_row(app_on_structure, page):
    text = check(open_page(page))
    if page == "threads":
        assert PLAIN in text and DEEP_JSON in text and DEEP_MSGPACK in text


@pytest.mark.parametrize("thread", [FOLDER_LINK, ETC_LINK, ROOT_LINK, BRANCH])
def test_a_thread_whose_folders_lead_out_shows_why_and_no_host_file(app_on_structure, thread):
    at = open_page("thread", thread=thread)
    text = check(at)
    assert "resolves outside the data directory" in text
    if thread == FOLDER_LINK:  # the message's attachment in the linked folder: opened on request, refused
        at.toggle(key="att-open-2-0").set_value(True).run()
        assert "refused" in check(at)
    at.segmented_control(key="thread_panel").set_value("Images over time").run()
    check(at)


def test_named_pipes_are_refused_on_the_thread_page_without_a_hang(app_on_structure):
    at = open_page("thread", thread=FIFO, timeout=30)
    text = check(at)
    assert "not a regular file" in text
    (uploads,) = [df.value for df in at.dataframe if "file" in df.value.columns and "on disk" in df.value.columns]
    assert list(uploads["file"]) == ["pipe.txt"] and not uploads["on disk"].any()
    assert "not a regular file (a named pipe)" in uploads["problems"][0]  # the upload, never opened
    box = next(s for s in at.selectbox if s.label == "Preview")
    for option in box.options:
        box.set_value(option).run(timeout=30)
        text = check(at)
    assert "a plain file next to the pipes" in text  # the one regular file is previewed
    at.toggle(key="att-open-2-0").set_value(True).run(timeout=30)  # the attached pipe: never opened
    assert "No preview: not a regular file (a named pipe)" in check(at)
    at.segmented_control(key="thread_panel").set_value("Images over time").run(timeout=30)
    check(at)


@pytest.mark.parametrize("thread", [DEEP_MSGPACK, DEEP_JSON])
def test_a_too_deep_value_is_a_problem_on_its_field_and_the_page_renders(app_on_structure, thread):
    at = open_page("thread", thread=thread)
    check(at)
    at.toggle(key="show_metadata").set_value(True).run()  # a too-deep metadata shows its problem there
    text = check(at)
    assert "nested deeper than 100 levels" in text
    assert f"{thread} title" in text  # the other fields are shown


@pytest.mark.parametrize("replay", ["0", "1"])
def test_the_diff_page_over_a_too_deep_value(app_on_structure, replay):
    at = open_page("diff", thread=DEEP_MSGPACK, replay=replay)
    text = check(at)
    assert "nested deeper than" in text or "too deep" in text
