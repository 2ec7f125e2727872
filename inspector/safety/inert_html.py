"""Markdown text from the data as HTML in which nothing loads, links or runs.

A page that draws many messages draws them faster as one piece of HTML than as one Markdown element each (each
element is a component the browser's script renders again at every step). The HTML is made here, on the
server, in three stages:

1. ``inert_text.inert_markdown`` first: links, images, raw HTML, autolinks, entities and math are already text.
2. A CommonMark parser (markdown-it-py) with raw HTML off and its link, image, autolink and reference rules
   disabled renders that to HTML: headings, emphasis, lists, tables, strikethrough, code.
3. An allow-list sanitizer (nh3, the Ammonia crate) keeps only the tags of that formatting and drops every
   attribute: no ``href``, ``src``, ``style``, ``on*`` or class of the data's survives, whatever the first two
   stages let through.

Pure: no Streamlit here.
"""

from __future__ import annotations

import html
from functools import lru_cache

import nh3
from markdown_it import MarkdownIt

from ..store.not_utf8 import shown
from .display_text import bidi_shown
from .inert_text import inert_markdown

__all__ = ["TAGS", "escaped", "markdown_html"]

# The formatting a message's Markdown may keep: nothing that names a URL, a script, a style or a form.
TAGS = frozenset({"p", "br", "hr", "em", "strong", "del", "s", "code", "pre", "blockquote", "ul", "ol", "li",
                  "h1", "h2", "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td"})

_PARSER = (MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
           .enable(["table", "strikethrough"])
           .disable(["link", "image", "autolink", "html_inline", "html_block", "reference"]))
_CLEANER = nh3.Cleaner(tags=set(TAGS), clean_content_tags={"script", "style"}, attributes={}, url_schemes=set(),
                       strip_comments=True, link_rel=None)
CACHED_CHARS = 20_000  # texts up to this length keep their HTML (a step's messages are mostly the last step's)


def escaped(text: object) -> str:
    """``text`` as HTML text: every tag, entity and quote escaped, bytes that are not UTF-8 and bidi controls
    spelled out (``not_utf8.shown``, ``display_text.bidi_shown``)."""
    return html.escape(bidi_shown(shown(str(text))), quote=True)


def markdown_html(text: str) -> str:
    """``text`` (Markdown from the data) as sanitized HTML: its formatting kept, nothing that loads or links."""
    return _cached(text) if len(text) <= CACHED_CHARS else _render(text)


@lru_cache(maxsize=512)
def _cached(text: str) -> str:
    return _render(text)


def _render(text: str) -> str:
    return _CLEANER.clean(_PARSER.render(inert_markdown(text)))
