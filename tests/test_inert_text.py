"""Text from the data as Markdown in which nothing loads: checked with a CommonMark parser (markdown-it-py).

The browser test (test_browser_inert.py) checks the same against Streamlit's own renderer.
"""

from __future__ import annotations

import json
import random
import re

import pytest
from corpus.hostile_content import hostile_markdown, payloads
from markdown_it import MarkdownIt

from inspector.safety.display_text import bidi_shown, bidi_shown_tree
from inspector.safety.inert_text import code_span, inert_markdown, links_in, literal

TRACKER = "http://tracker.invalid:8080"
LOADING = {"image", "link_open", "html_inline", "html_block", "math_inline", "math_block"}


def parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table", "strikethrough"])


def tokens(markdown: str) -> list:
    """Every token, inline children included."""
    found = []
    for token in parser().parse(markdown):
        found.append(token)
        found += token.children or []
    return found


def unsafe(markdown: str) -> list[str]:
    """What a renderer could load or follow: images, links, raw HTML."""
    return [f"{t.type}: {t.content or t.attrs}" for t in tokens(markdown) if t.type in LOADING]


GFM_AUTOLINK = re.compile(r"https?://|www\.|[-.\w+]+@[-\w]+(\.[-\w]+)+", re.IGNORECASE)


def linkifiable(markdown: str) -> list[str]:
    """Text GitHub-flavoured Markdown would turn into links: it finds them in the parsed text, escapes resolved."""
    return [t.content for t in tokens(markdown) if t.type == "text" and GFM_AUTOLINK.search(t.content)]


def rendered_text(markdown: str) -> str:
    return "".join(t.content for t in tokens(markdown) if t.type in ("text", "code_inline", "fence", "code_block"))


@pytest.mark.parametrize("name", sorted(payloads(TRACKER)))
def test_every_payload_is_live_raw_and_inert_after(name):
    text = payloads(TRACKER)[name]
    assert unsafe(inert_markdown(text)) == []
    assert unsafe(literal(text)) == []
    assert linkifiable(literal(text)) == []
    assert linkifiable(inert_markdown(text)) == []


def test_the_raw_corpus_would_load_things():
    """The check above can fail: the same parser finds images, links and HTML in the raw corpus."""
    kinds = {bad.split(":")[0] for bad in unsafe(hostile_markdown(TRACKER))}
    assert {"image", "link_open", "html_block", "html_inline"} <= kinds
    assert linkifiable(hostile_markdown(TRACKER))


def test_literal_shows_the_text_exactly():
    for text in ["![x](http://a/b.png)", "<img src=x>", "**bold** _it_ `code` $x$ :red[x] :material/home:",
                 r"back\slash \[ \\", "# heading", "1. item", "2) item", "- item", "+ item", "> quote", "===", "***",
                 "a | b", "&amp; &lt;", "www.example.com", "thread_data", "_it_", "__b__", "~~s~~", "step -1 · input",
                 "title: pickled", ":smile: :material/home:", "<!-- c -->", "[^1]"]:
        assert rendered_text(literal(text)) == text


def test_bidi_controls_in_an_id_are_shown_as_code_points_so_it_cannot_read_as_another():
    """``cust-\\u202edcba-4321`` would read as ``cust-1234-abcd``: its override (and any embedding, isolate or mark)
    is written out, while the letters of right-to-left text stay as written."""
    spoof = "cust-\u202edcba-4321"
    assert bidi_shown(spoof) == "cust-\\u202edcba-4321"
    assert "\u202e" not in literal(spoof) and "u202edcba-4321" in literal(spoof)
    assert bidi_shown("\u2066a\u2069 \u202ab\u202c") == "\\u2066a\\u2069 \\u202ab\\u202c"
    hebrew = "\u05e9\u05dc\u05d5\u05dd"
    assert bidi_shown(hebrew) == hebrew and literal(hebrew) == hebrew


def test_bidi_marks_are_shown_as_code_points_too():
    """A left-to-right, right-to-left or Arabic letter mark moves the neutral characters next to it (``1-2\\u200f``
    can show as ``2-1``): in an id, a literal, a code span, Markdown and a JSON tree it is written out."""
    for mark, point in (("\u200e", "u200e"), ("\u200f", "u200f"), ("\u061c", "u061c")):
        spoof = f"cust-{mark}12-34"
        assert bidi_shown(spoof) == f"cust-\\{point}12-34"
        for out in (literal(spoof), code_span(spoof), inert_markdown(spoof), json.dumps(bidi_shown_tree({spoof: [spoof]}))):
            assert mark not in out and point in out


def test_literal_stays_readable_where_nothing_needs_escaping():
    assert literal("step -1 · input: thread_data, 'demo-research' (12 items)") == \
        "step -1 · input: thread_data, 'demo-research' (12 items)"


def test_literal_keeps_lines():
    shown = [t.content or t.type for t in tokens(literal("one\n- two\r\n3. three")) if t.type in ("text", "hardbreak")]
    assert shown == ["one", "hardbreak", "- two", "hardbreak", "3. three"]


def test_inert_markdown_keeps_formatting():
    source = "## Title\n\nSome **bold**, *it*, `a[0] <b>` and a list:\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    kinds = {t.type for t in tokens(inert_markdown(source))}
    assert {"heading_open", "strong_open", "em_open", "code_inline", "bullet_list_open", "table_open"} <= kinds
    code = [t.content for t in tokens(inert_markdown(source)) if t.type == "code_inline"]
    assert code == ["a[0] <b>"]  # code is shown as written, without escapes


def test_an_aligned_tables_delimiter_row_is_kept_and_a_shortcode_in_a_cell_is_not():
    source = "| metal | USD/kWh |\n|:---|---:|\n| LFP | 89 |\n| :red[x] :material/home: | :-1: |"
    out = inert_markdown(source)
    assert out.splitlines()[1] == "|:---|---:|"  # the columns stay aligned: the table is drawn
    parsed = parser().parse(out)
    assert [t.attrs.get("style") for t in parsed if t.type == "th_open"] == ["text-align:left", "text-align:right"]
    assert [t.content for t in tokens(out) if t.type == "text"] == ["metal", "USD/kWh", "LFP", "89",
                                                                    ":red[x] :material/home:", ":-1:"]
    assert r"\:red\[x\] \:material/home:" in out  # a cell's colons before a name are still escaped
    assert unsafe(out) == []


def test_fenced_code_is_kept_as_written():
    source = "before\n```python\nx = a[0] < b  # ![i](http://t/x.png)\n```\nafter ![i](http://t/y.png)"
    out = inert_markdown(source)
    fences = [t for t in tokens(out) if t.type == "fence"]
    assert [f.content for f in fences] == ["x = a[0] < b  # ![i](http://t/x.png)\n"]
    assert fences[0].info == "python"
    assert unsafe(out) == []
    assert "![i](http://t/y.png)" in rendered_text(out)


def test_images_and_links_show_their_urls():
    out = inert_markdown(f"![pixel]({TRACKER}/a.png) and [text]({TRACKER}/b)")
    assert rendered_text(out) == f"![pixel]({TRACKER}/a.png) and [text]({TRACKER}/b)"


@pytest.mark.parametrize("text", [
    "`a``b``c`", "``a`b``", "\\`a`", "`a` `b", "```inline``` x", "a ` b\n`![x](http://t/i.png)`",
    "`a\n![x](http://t/i.png)\n`", "| `a | ![x](http://t/i.png) | b` |\n|---|---|---|",
    "~~~\n![x](http://t/i.png)\n~~~~", "````\n```\n![x](http://t/i.png)\n````", "```x`y\n![x](http://t/i.png)\n```",
    "   ```\n- ![x](http://t/i.png)", "> ```\n![x](http://t/i.png)\n```", "\t```\n![x](http://t/i.png)",
    "``![x](http://t/i.png)``http://t/u", "http://t/u``![x](http://t/i.png)``", "`a`www.t.invalid`b`", "a@b.c+d@e.f",
])
def test_code_tricks_never_leave_anything_live(text):
    assert unsafe(inert_markdown(text)) == []
    assert linkifiable(inert_markdown(text)) == []


def test_random_mixtures_never_leave_anything_live():
    pieces = ["`", "``", "```", "~~~", "\\", "!", "[", "]", "(", ")", "<", ">", "|", "\n", "\r", " ", "    ", "-", "*",
              "x", "http://t.invalid/i.png", "www.t.invalid", "a@b.invalid", "img src=", "$", ":", "&", "#", "1."]
    rng = random.Random(1234)
    for _ in range(1500):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        for out in (inert_markdown(text), literal(text)):
            assert unsafe(out) == [] and linkifiable(out) == [], repr(text)


def test_code_span_holds_any_text():
    for text in ["a`b", "``", "`x`", "![x](http://t/i.png)", "two\nlines", ""]:
        out = code_span(text)
        spans = [t.content for t in tokens(out) if t.type == "code_inline"]
        assert len(spans) == 1 and spans[0].strip() == " ".join(text.split("\n")).strip()


def test_links_in_lists_distinct_http_urls():
    text = f"see [a]({TRACKER}/a), <{TRACKER}/b>, {TRACKER}/a again, javascript:alert(1) and https://x.invalid/p?q=1."
    assert links_in(text) == [f"{TRACKER}/a", f"{TRACKER}/b", "https://x.invalid/p?q=1"]


def table_cells(markdown: str) -> list[list[str]]:
    """The text of every cell of a Markdown table, row by row (the header first)."""
    rows, row, cell = [], None, None
    for token in tokens(markdown):
        if token.type == "tr_open":
            row = []
        elif token.type in ("th_open", "td_open"):
            cell = []
        elif token.type in ("text", "code_inline") and cell is not None:
            cell.append(token.content)
        elif token.type in ("th_close", "td_close"):
            row.append("".join(cell))
            cell = None
        elif token.type == "tr_close":
            rows.append(row)
    return rows


def test_a_text_table_keeps_every_cell_whole_and_inert():
    from inspector.safety.inert_text import CELL_CHARS, text_table

    pieces = ["|", "\\", "`", "\n", "![x](http://t.invalid/i.png)", "<b>", "http://t.invalid/a|b", "www.t.invalid",
              "a@b.invalid", "- ", "# ", "x", " ", "*", "$"]
    rng = random.Random(99)
    values = [*payloads(TRACKER).values(), None, "", "a" * (CELL_CHARS + 50)]
    values += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 30))) for _ in range(400)]
    rows = [{"name": "row", "value": v} for v in values]
    table = text_table(rows, ["name", "value"])
    assert unsafe(table) == [] and linkifiable(table) == []
    cells = table_cells(table)
    assert cells[0] == ["name", "value"] and len(cells) == len(values) + 1
    for value, row in zip(values, cells[1:]):
        flat = " ".join(str(value).split()) if value is not None else ""
        expected = flat if len(flat) <= CELL_CHARS else flat[: CELL_CHARS - 1] + "…"
        assert row == ["row", expected] or (not expected and row == ["row", ""]), repr(value)
