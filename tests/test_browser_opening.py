"""What opening a one-checkpoint thread makes the browser load, in Chromium: no chart, data grid, code
highlighter or JSON tree script (megabytes a one-line Streamlit page does not load), the history's one row
as a text table that fits its column at 1024 px, and the metadata one click away."""

from __future__ import annotations

import re

from browser_helpers import wait_for_app
from playwright.sync_api import expect

from benchmarks.store_generator import LONG_THREAD, SMALL_PREFIX
from inspector.store import open_store

# Streamlit's script chunks for st.code / st.json, st.dataframe (its grid and Arrow formatting) and Vega-Lite
# charts: their names start so in the pinned Streamlit (requirements.txt), a hash after the dot.
HEAVY = ("StreamlitSyntaxHighlighter.", "DataFrame.", "arrowFormatUtils.", "embed.", "reactJsonViewCompat.")


def test_a_one_checkpoint_thread_loads_no_heavy_script(page, streamlit_app, bench_db):
    small = f"{SMALL_PREFIX}00001"
    with open_store(f"sqlite:///{bench_db}") as store:
        (row,) = store.timeline(small)
    base = streamlit_app(db_url=f"sqlite:///{bench_db}")
    scripts: dict[str, int] = {}
    page.on("response", lambda r: scripts.setdefault(r.url.rsplit("/", 1)[-1], len(r.body()))
            if r.url.endswith(".js") and r.ok else None)
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{base}/thread?thread={small}")
    wait_for_app(page, timeout=120_000)
    history = page.locator("[data-testid='stMarkdownContainer'] table").filter(has_text=row.checkpoint_id[-12:])
    expect(history).to_be_visible(timeout=60_000)
    expect(page.locator("[data-testid='stChatMessage'], .si-msg").first).to_be_visible()
    page.wait_for_timeout(1_000)  # scripts an element asks for load once it is drawn
    assert scripts and not [name for name in scripts if name.startswith(HEAVY)], sorted(scripts)
    for kind in ("stDataFrame", "stVegaLiteChart", "stCode", "stJson"):
        assert page.locator(f"[data-testid='{kind}']").count() == 0, kind
    # the text tables (the history's row, thread_data's folders) fit their narrow columns at 1024 px
    overflow = page.evaluate("""() => [...document.querySelectorAll("[data-testid='stMarkdownContainer'] table")]
        .map(t => t.getBoundingClientRect().right
                  - t.closest("[data-testid='stVerticalBlock']").getBoundingClientRect().right)""")
    assert len(overflow) == 2 and max(overflow) <= 1, overflow
    page.get_by_text("Show the metadata", exact=True).click()
    wait_for_app(page)
    expect(page.locator("[data-testid='stJson']")).to_have_count(1)
    expect(page.locator("[data-testid='stJson']")).to_contain_text("update")


def test_a_long_thread_shows_tool_output_as_monospaced_text_without_the_highlighter(page, streamlit_app, bench_db):
    """The long thread's tool results: plain text in the code font, spaces and line breaks kept, so the page
    loads no code highlighter for them, nor Vega (its tree is drawn as SVG by a few lines of script)."""
    base = streamlit_app(db_url=f"sqlite:///{bench_db}")
    scripts: list[str] = []
    page.on("response", lambda r: scripts.append(r.url.rsplit("/", 1)[-1]) if r.url.endswith(".js") else None)
    page.goto(f"{base}/thread?thread={LONG_THREAD}")
    wait_for_app(page, timeout=120_000)
    messages = page.locator("[data-testid='stChatMessage'], .si-msg")  # Streamlit bubbles, or drawn as HTML
    tool = messages.filter(has_text="result of the call in message").first
    expect(tool).to_be_visible(timeout=60_000)
    output = tool.locator("[data-testid='stText'] span, pre.si-plain").first
    expect(output).to_be_visible()
    # the page's own style for message text may reach the browser just after the text itself: wait for it
    expect(output).to_have_css("font-family", re.compile("monospace"))
    expect(output).to_have_css("white-space", "pre-wrap")
    page.locator(".si-tree .si-tree-row").first.wait_for()
    page.wait_for_timeout(1_000)
    assert not [name for name in scripts if name.startswith("StreamlitSyntaxHighlighter.")], sorted(scripts)
    assert not [name for name in scripts if "VegaLiteChart" in name], sorted(scripts)  # no chart element drawn
