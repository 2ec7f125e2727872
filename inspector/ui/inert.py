"""Text from the data on screen: through ``inspector.safety.inert_text``, never as raw Markdown.

Streamlit renders Markdown in ``st.markdown``, ``st.write`` of a string, titles,
headers, captions, alerts, spinners, image captions, ``select_slider`` options
and the labels of widgets, tabs, expanders and page links; any of them can show
an image, which the browser fetches. Every view puts data into those through
``literal`` (ids, names, titles, messages of problems) or ``long_text.show_markdown``
(messages, Markdown files); ``routes.link`` escapes its labels itself. HTML the dashboard draws (``st.html``:
a conversation's runs of messages, a Play frame) holds text from the data only escaped or as Markdown made
safe as HTML (``inspector.safety.inert_html``).
Plain-text elements (``st.text``, ``st.code``, ``st.json``, ``st.dataframe``
cells, ``st.selectbox`` options) take the text as is, through ``plain``
(``values.show_value`` for JSON trees, ``tables`` for cells): its bidi controls
as their code points, as everywhere else.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

from ..safety.display_text import bidi_shown
from ..safety.inert_text import code_span, text_table
from ..safety.inert_text import literal as _literal
from ..store.not_utf8 import shown

__all__ = ["code_span", "literal", "option_text", "plain", "show_table"]


LITERAL_CHARS = 5_000  # of a title, a label, a todo or a problem's message; longer ones are cut, with their length


def literal(text: object) -> str:
    """Markdown showing ``text`` exactly as written (see ``inert_text.literal``); a text longer than
    ``LITERAL_CHARS`` shows its first part and its whole length (the state's JSON download holds it all)."""
    text = str(text)
    if len(text) <= LITERAL_CHARS:
        return _literal(text)
    return _literal(text[:LITERAL_CHARS]) + f" … *(cut for display: {len(text):,} characters in all)*"


def plain(text: object) -> str:
    """Text from the data for a plain-text element (``st.text``, ``st.code``, a select option's label), as it can
    carry it (``not_utf8.shown``), its bidi controls as their code points (``display_text.bidi_shown``)."""
    return bidi_shown(shown(str(text)))


option_text = plain  # a select option's label


# The tables ``show_table`` draws are in containers whose keys start with TABLE_KEY (``page_css`` styles them).
TABLE_KEY = "text-table"


def show_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """A few rows as a Markdown table (``text_table``: every cell inert, never split), no data grid: the grid's
    script is megabytes the browser would load for them. The header and the first column are labels, wrapped
    between words only; the other cells are values, broken anywhere where the column is narrow."""
    text = text_table(rows, columns)
    key = f"{TABLE_KEY}-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    for attempt in range(20):  # the same table twice on a page needs a second key
        try:
            box = st.container(key=key if not attempt else f"{key}-{attempt}")
            break
        except StreamlitDuplicateElementKey:
            continue
    else:
        box = st.container()
    box.markdown(text)


