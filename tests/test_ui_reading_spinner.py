"""The pages' cached reads show a spinner the first time only (``ui.data._reading``): read again, a state or a
history is a cache hit, and a spinner would be one more element the browser draws and removes at every step."""

from __future__ import annotations

import contextlib

import pytest

from inspector.ui import data


@pytest.fixture
def spinners(monkeypatch):
    shown: list[str] = []

    @contextlib.contextmanager
    def spinner(message):
        shown.append(message)
        yield

    monkeypatch.setattr(data.st, "spinner", spinner)
    monkeypatch.setattr(data, "get_script_run_ctx", lambda suppress_warning=False: object())  # a page's run
    monkeypatch.setattr(data, "_READ", {})
    return shown


def test_a_read_shows_its_spinner_the_first_time_only(spinners):
    for _ in range(3):
        with data._reading(("state", "sqlite:///x", "t", "", "c1", 0), "Decoding the checkpoint…"):
            pass
    with data._reading(("state", "sqlite:///x", "t", "", "c2", 0), "Decoding the checkpoint…"):
        pass
    with data._reading(("state", "sqlite:///x", "t", "", "c1", 1), "Decoding the checkpoint…"):  # refreshed
        pass
    assert spinners == ["Decoding the checkpoint…"] * 3


def test_a_read_that_failed_shows_its_spinner_again(spinners):
    key = ("history", "sqlite:///x", "t", 0)
    with pytest.raises(RuntimeError), data._reading(key, "Reading the history of t…"):
        raise RuntimeError("the store went away")
    with data._reading(key, "Reading the history of t…"):
        pass
    assert spinners == ["Reading the history of t…"] * 2


def test_reading_ahead_of_a_page_shows_no_spinner_then_or_on_the_page(spinners, monkeypatch):
    key = ("state", "sqlite:///x", "t", "", "c9", 0)
    with monkeypatch.context() as ahead:
        ahead.setattr(data, "get_script_run_ctx", lambda suppress_warning=False: None)  # Play's or Next's thread
        with data._reading(key, "Decoding the checkpoint…"):
            pass
    with data._reading(key, "Decoding the checkpoint…"):  # the page, reading what was read ahead
        pass
    assert spinners == []


def test_what_is_remembered_is_bounded(spinners, monkeypatch):
    monkeypatch.setattr(data, "READ_ENTRIES", 2)
    for n in range(5):
        with data._reading(("state", n), "m"):
            pass
    assert len(data._READ) <= 2
