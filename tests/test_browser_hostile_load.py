"""A session opening a thread that holds a 1 MB worst-case message (a million letters: what the old linkify
pattern took minutes over) leaves another session as responsive as before: the second session's page renders
in about its usual time, measured before in the same test, while the first is loading."""

from __future__ import annotations

import time

import hostile_corpus as corpus
import pytest
from browser_helpers import APP, wait_for_app

pytestmark = pytest.mark.timeout(400)

MAIN = "[data-testid='stMain']"


@pytest.fixture(scope="module")
def megabyte_db(tmp_path_factory):
    return corpus.write_corpus(tmp_path_factory.mktemp("megabyte"), cases=["one-long-message", "invalid-utf8-ids"],
                               long_chars=1_000_000)


def _render(page, url: str) -> float:
    start = time.perf_counter()
    page.goto(url)
    wait_for_app(page, timeout=120_000)
    page.locator(MAIN).get_by_text("still listed").first.wait_for(timeout=120_000)
    return time.perf_counter() - start


def test_a_megabyte_message_does_not_hold_other_sessions(streamlit_app, browser, megabyte_db):
    base = streamlit_app(f"sqlite:///{megabyte_db}", env={"INSPECTOR_DATA_DIR": str(megabyte_db.parent)})
    other_url = f"{base}/thread?thread={corpus.GOOD_AFTER_BAD}"
    heavy_url = f"{base}/thread?thread={corpus.MEGABYTE_THREAD}"
    first, second = browser.new_context(), browser.new_context()
    try:
        heavy, other = first.new_page(), second.new_page()
        _render(other, other_url)  # cold: modules imported, caches filled
        usual = min(_render(other, other_url) for _ in range(2))

        started = time.perf_counter()
        heavy.goto(heavy_url, wait_until="commit")
        # the heavy session's script run has started (or, on a fast machine, already drawn the message)
        heavy.locator(f"{APP}[data-test-script-state='running']").or_(
            heavy.get_by_text("Cut for display")).first.wait_for(state="attached", timeout=120_000)
        during = _render(other, other_url)

        wait_for_app(heavy, timeout=240_000)
        heavy.locator(MAIN).get_by_text("Cut for display").first.wait_for(timeout=240_000)
        heavy_took = time.perf_counter() - started
        assert heavy.locator("[data-testid='stException']").count() == 0
        assert heavy.get_by_text("Download the whole text").count() >= 1
        print(f"usual {usual:.2f} s, during the heavy load {during:.2f} s, heavy page {heavy_took:.2f} s")
        assert during < 3 * usual + 2, (usual, during, heavy_took)
    finally:
        first.close()
        second.close()
