"""Markdown from the data as HTML in which nothing loads, links or runs (``safety.inert_html``).

Checked on every hostile payload with an HTML parser: only the formatting tags survive, with no attribute at all.
The browser test (test_browser_inert.py) checks the page that draws it makes no request to another origin.
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from corpus.hostile_content import hostile_markdown, payloads

from inspector.safety.inert_html import TAGS, escaped, markdown_html

TRACKER = "http://tracker.invalid:8080"


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text between them (entities resolved)."""

    def __init__(self, markup: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_data(self, data):
        self.text.append(data)


@pytest.mark.parametrize("name", sorted(payloads(TRACKER)))
def test_every_payload_becomes_formatting_without_an_attribute(name):
    out = Tags(markdown_html(payloads(TRACKER)[name]))
    assert {tag for tag, _ in out.tags} <= TAGS
    assert [attrs for _, attrs in out.tags if attrs] == []


def test_the_payloads_are_shown_as_the_text_they_are():
    out = markdown_html(hostile_markdown(TRACKER))
    parsed = Tags(out)
    text = "".join(parsed.text)
    for visible in ('<img src="', "<script src=", "javascript:fetch(", "![pixel](", "<iframe src="):
        assert visible in text, visible
    assert {tag for tag, _ in parsed.tags} <= TAGS and not any(attrs for _, attrs in parsed.tags)
    assert "<h2>Report</h2>" in out and "<strong>bold</strong>" in out and "<code>code</code>" in out


def test_formatting_is_kept():
    out = markdown_html("# Title\n\n*a* **b** ~~c~~ `d`\n\n1. one\n2. two\n\n> quoted\n\n"
                        "| x | y |\n|---|---|\n| 1 | 2 |\n\n```python\nif a < b:\n    pass\n```")
    for piece in ("<h1>Title</h1>", "<em>a</em>", "<strong>b</strong>", "<s>c</s>", "<code>d</code>",
                  "<ol>", "<li>one</li>", "<blockquote>", "<table>", "<th>x</th>", "<td>2</td>",
                  "<pre><code>if a &lt; b:\n    pass\n</code></pre>"):
        assert piece in out, piece
    assert "style=" not in out and "class=" not in out  # the fence's language is dropped


def test_bidi_controls_and_bytes_that_are_not_utf8_are_spelled_out():
    assert "\u202e" not in markdown_html("a\u202eb") and "\\u202e" in markdown_html("a\u202eb")
    assert "\\xff" in markdown_html("bad \udcff byte")
    assert escaped('<b a="1">\u202e\udcff') == "&lt;b a=&quot;1&quot;&gt;\\u202e\\xff (not UTF-8)"


def test_a_long_text_is_rendered_whole_and_a_short_one_once():
    from inspector.safety import inert_html

    long = "word " * 5_000
    assert markdown_html(long).count("word") == 5_000
    inert_html._cached.cache_clear()
    markdown_html("kept")
    markdown_html("kept")
    assert inert_html._cached.cache_info().hits == 1


def test_an_aligned_table_from_a_model_is_drawn_as_a_table():
    out = markdown_html("| metal | USD/kWh |\n|:---|---:|\n| LFP | 89 |")
    assert "<table>" in out and "<th>metal</th>" in out and "<td>89</td>" in out
    assert ":---" not in out and "style" not in out  # the row that aligns it is read, its alignment not kept
