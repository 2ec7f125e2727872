"""No request leaves the dashboard's origin, whatever the store holds.

Every page is opened in Chromium over a store full of crafted content
(``corpus/hostile_content.py``): every tab, panel, toggle, expander and artifact
preview. A request listener records every URL the page asks for, and a tracker
HTTP server (another origin) records every hit. The control test shows that the
same content, rendered as raw Markdown, does make the browser call the tracker.
"""

from __future__ import annotations

import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlencode

import pytest
from browser_helpers import shot, wait_for_app
from conftest import free_port
from corpus.hostile_content import (
    CONVERSATION_THREAD,
    CRAFTED_NS,
    CRAFTED_THREAD,
    hostile_markdown,
    is_offsite,
    payloads,
    write_hostile_store,
)
from playwright.sync_api import expect

from inspector.history.lineage import build_history
from inspector.store import open_store

MAIN = "[data-testid='stMain']"
# Toggles that only show more of the same checkpoint (Play and the replay-everything toggle move or reload pages).
SAFE_TOGGLES = re.compile(r"^(Show |Full size|Sizes and flags)")


class Tracker:
    """An HTTP server on another port (so another origin) that records every path asked of it."""

    def __init__(self) -> None:
        self.hits: list[str] = []
        hits = self.hits

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def tracker():
    server = Tracker()
    yield server
    server.close()


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory, tracker) -> Path:
    return write_hostile_store(tmp_path_factory.mktemp("hostile"), tracker.url)


@pytest.fixture(scope="module")
def hostile_url(hostile_db, streamlit_app) -> str:
    return streamlit_app(db_url=f"sqlite:///{hostile_db}")


@pytest.fixture
def requests_seen(page) -> list[str]:
    seen: list[str] = []
    page.on("request", lambda request: seen.append(request.url))
    return seen


def _open(page, url: str) -> None:
    page.goto(url)
    wait_for_app(page)


def _click_all(page, locator: str, reruns: bool = True) -> int:
    """Click every visible match; ``reruns``: each click starts a script run, waited for (an expander's or a
    ``<details>``'s summary opens in the browser alone: one wait after the last)."""
    clicked = 0
    for item in page.locator(locator).all():
        if item.is_visible():
            item.click()
            if reruns:
                wait_for_app(page)
            clicked += 1
    if clicked and not reruns:
        wait_for_app(page)
    return clicked


def _open_everything(page) -> str:
    """Open every expander and harmless toggle of each tab in turn; returns the text shown on the way."""
    shown = []
    tabs = page.locator(f"{MAIN} [role='tab']")
    for index in range(max(tabs.count(), 1)):
        if tabs.count() > index:
            tabs.nth(index).click()
            wait_for_app(page)
        for toggle in page.locator(f"{MAIN} [data-testid='stCheckbox']").all():
            label = toggle.inner_text().strip()
            if toggle.is_visible() and SAFE_TOGGLES.match(label) and not toggle.locator("input").is_checked():
                toggle.locator("label").click()
                wait_for_app(page)
        _click_all(page, f"{MAIN} [data-testid='stExpander'] details:not([open]) > summary", reruns=False)
        _click_all(page, f"{MAIN} .si-chat details:not([open]) > summary", reruns=False)  # a conversation drawn as HTML
        for mark in page.locator(f"{MAIN} [data-testid='stVegaLiteChart'] path[aria-label]").all()[:6]:
            if mark.is_visible():
                mark.hover()  # chart tooltips show data too
                page.wait_for_timeout(150)
        shown.append(page.locator(MAIN).inner_text())
        _each_preview(page)
    return "\n".join(shown)


def _each_preview(page) -> None:
    """Pick every entry of the artifact preview box, one after the other."""
    box = page.locator(f"{MAIN} [data-testid='stSelectbox']").filter(has_text="Preview")
    if not box.count() or not box.first.is_visible():
        return
    count = None
    index = 0
    while count is None or index < count:
        box.first.locator("input").click()
        page.keyboard.press("ArrowDown")
        options = page.locator("[role='option']")
        options.first.wait_for()
        count = options.count()
        options.nth(index).click()
        wait_for_app(page)
        index += 1


def _urls(base: str, db: Path) -> list[str]:
    with open_store(f"sqlite:///{db}") as store:
        history = build_history(store.timeline(CONVERSATION_THREAD))
        crafted = build_history(store.timeline(CRAFTED_THREAD))
    p = payloads("http://127.0.0.1:9")
    middle = history.path_through(history.head)[-2][1]
    return [
        f"{base}/",
        f"{base}/?{urlencode({'q': p['md-image']})}",
        f"{base}/thread?{urlencode({'thread': CONVERSATION_THREAD})}",
        f"{base}/thread?{urlencode({'thread': CONVERSATION_THREAD, 'checkpoint': middle})}",
        f"{base}/thread?{urlencode({'thread': CRAFTED_THREAD})}",
        f"{base}/thread?{urlencode({'thread': CRAFTED_THREAD, 'ns': CRAFTED_NS, 'checkpoint': crafted.ordered[-1][1]})}",
        f"{base}/thread?{urlencode({'thread': p['md-image']})}",
        f"{base}/thread?{urlencode({'thread': CONVERSATION_THREAD, 'checkpoint': p['html-img']})}",
        f"{base}/diff?{urlencode({'thread': CONVERSATION_THREAD, 'replay': '1'})}",
        f"{base}/diff?{urlencode({'thread': CRAFTED_THREAD})}",
        f"{base}/diff?{urlencode({'thread': CONVERSATION_THREAD, 'from': p['md-image'], 'to': p['html-img']})}",
        f"{base}/diff?{urlencode({'thread': p['md-image']})}",
        f"{base}/diff?{urlencode({'thread': CONVERSATION_THREAD, 'against': CRAFTED_THREAD})}",
        f"{base}/health",
        f"{base}/retention?{urlencode({'keep': '1'})}",
    ]


def _images_and_links(page, origin: str) -> tuple[list[str], list[str]]:
    """The sources of the images on screen, and the links to other origins outside the link buttons (and the
    conversation's lists of the links a text names, drawn as HTML: each opens in a new tab only when clicked)."""
    images = page.locator(f"{MAIN} img").evaluate_all("els => els.map(e => e.src)")
    links = page.locator(f"{MAIN} a[href]").evaluate_all(
        "els => els.filter(e => !e.closest(\"[data-testid='stLinkButton'], .si-links\")).map(e => e.href)")
    return images, [href for href in links if is_offsite(href, origin)]


def test_no_page_makes_a_request_to_another_origin(page, hostile_url, hostile_db, tracker, requests_seen):
    tracker.hits.clear()
    shown, images = [], []
    thumbnails_at = f"{hostile_url}/thread?{urlencode({'thread': CONVERSATION_THREAD})}"
    assert thumbnails_at in _urls(hostile_url, hostile_db)
    for url in _urls(hostile_url, hostile_db):
        _open(page, url)
        shown.append(_open_everything(page))
        offsite = [u for u in requests_seen if is_offsite(u, hostile_url)]
        if offsite:
            shot(page, "offsite-request")
        assert offsite == [], f"{url} made requests to other origins: {offsite}"
        if url == thumbnails_at:  # the head's viewed_images hold a real PNG: its thumbnail is drawn by the dashboard
            page.locator(f"{MAIN} img").first.wait_for(state="attached")
        sources, links = _images_and_links(page, hostile_url)
        assert all(src.startswith(f"{hostile_url}/media/") for src in sources), sources  # drawn by the dashboard
        assert links == [], f"{url} links to other origins outside the link buttons: {links}"
        images += sources
    assert tracker.hits == []
    assert images, "the thumbnails of the real PNGs (checked by the inspector) are shown"
    text = "\n".join(shown)
    # the crafted content was on screen, as text: the image's URL, the raw HTML, the crafted ids
    for visible in ("/md-image.png?who=support)", '<img src="', "<script src=", "javascript:fetch(",
                    CRAFTED_THREAD, CRAFTED_NS, "![src]("):
        assert visible in text, f"{visible!r} is not shown anywhere"
    # the SVG entries (with outside hrefs) are reported, never drawn
    assert "not decoded" in text or "cannot identify" in text or "svg" in text.lower()


def test_control_raw_markdown_does_reach_the_tracker(page, streamlit_app, tracker, tmp_path, requests_seen):
    """The corpus is live: rendered as raw Markdown it makes the browser call the tracker."""
    source = tmp_path / "hostile.md"
    source.write_text(hostile_markdown(tracker.url))
    tracker.hits.clear()
    base = streamlit_app(env={"HOSTILE_MARKDOWN": str(source)},
                         script=Path(__file__).parent / "apps" / "raw_markdown.py")
    _open(page, base)
    for _ in range(60):  # the image's request reaches the tracker after the page draws it: up to 15 s on a busy machine
        if "/md-image.png?who=support" in tracker.hits:
            break
        page.wait_for_timeout(250)
    assert any(is_offsite(u, base) for u in requests_seen)
    assert "/md-image.png?who=support" in tracker.hits


def test_the_native_controls_show_names_from_the_data_as_text(page, hostile_url, requests_seen):
    """The branch slider and the tree's list set the labels as text: a node named with a Markdown image is its
    characters, no element is made of it, nothing is fetched."""
    _open(page, f"{hostile_url}/thread?{urlencode({'thread': CONVERSATION_THREAD})}")
    slider = page.get_by_role("slider", name="Checkpoint on this branch")
    listed = page.get_by_role("combobox", name=re.compile("the tree's labels"))
    expect(listed.locator("option").first).to_be_attached()
    labels = listed.locator("option").all_inner_texts()
    assert any("![node](//node-name.invalid/n.png)" in label for label in labels), labels
    index = next(i for i, label in enumerate(labels) if "![node](" in label)
    listed.select_option(index=index)
    wait_for_app(page)
    expect(page.locator(".si-scrub-value")).to_contain_text("writer ![node](//node-name.invalid/n.png)")
    assert "![node](" in (slider.get_attribute("aria-valuetext") or "")
    assert page.locator(".si-scrub-value *, .si-scrub label *:not(span), .si-list option *").count() == 0
    assert [u for u in requests_seen if is_offsite(u, hostile_url)] == []
