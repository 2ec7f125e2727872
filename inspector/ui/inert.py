"""Text from the data on screen: through ``inspector.safety.inert_text``, never as raw Markdown.

Streamlit renders Markdown in ``st.markdown``, ``st.write`` of a string, titles,
headers, captions, alerts, spinners, image captions, ``select_slider`` options
and the labels of widgets, tabs, expanders and page links; any of them can show
an image, which the browser fetches. Every view puts data into those through
``literal`` (ids, names, titles, messages of problems) or ``show_markdown``
(messages, Markdown files); ``routes.link`` escapes its labels itself.
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

from ..safety.display_text import bidi_shown, cut_for_display
from ..safety.inert_text import code_span, inert_markdown, links_in, text_table
from ..safety.inert_text import literal as _literal
from ..store.not_utf8 import shown, token

__all__ = ["code_span", "key_text", "literal", "option_text", "plain", "show_markdown", "show_table"]


LITERAL_CHARS = 5_000  # of a title, a label, a todo or a problem's message; longer ones are cut, with their length


def literal(text: object) -> str:
    """Markdown showing ``text`` exactly as written (see ``inert_text.literal``); a text longer than
    ``LITERAL_CHARS`` shows its first part and its whole length (the state's JSON download holds it all)."""
    text = str(text)
    if len(text) <= LITERAL_CHARS:
        return _literal(text)
    return _literal(text[:LITERAL_CHARS]) + f" … *(cut for display: {len(text):,} characters in all)*"


def key_text(*parts: object) -> str:
    """Widget keys and file names built from ids: Streamlit encodes them as UTF-8, which an id a hostile SQLite
    store holds as text that is not UTF-8 is not; such an id is spelled as its ``not_utf8.token``, so two ids
    never share a key. A key reaches the browser: a name holding a secret's shape is spelled masked
    (``names.shown``)."""
    from .names import shown

    return "_".join(token(shown(p) if isinstance(p, str) else str(p)) for p in parts)


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


def show_markdown(text: object, key: str | None = None) -> None:
    """``text`` with its Markdown formatting, where nothing loads; the links it names behind a click.

    A very long text is cut for display (``cut_for_display``): the page says so, with the whole size, and
    offers the whole text (as the views have it: masked) as a download. ``key`` names that download."""
    text = str(text)
    shown = cut_for_display(text)
    st.markdown(inert_markdown(shown.text))
    if shown.cut:
        st.caption(literal(shown.note()))
        _download_whole(text, key or "text-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16])
    links = links_in(text)
    if links:
        with st.expander(f":material/link: {len(links)} link(s) in this text"):
            st.caption("Shown, never loaded by the dashboard: a link opens in a new tab only when clicked.")
            for url in links:
                st.link_button(literal(url), url, icon=":material/open_in_new:")


def _download_whole(text: str, key: str) -> None:
    from . import audit_trail  # (imports the connection, which shows text through this module)

    for attempt in range(20):  # the same long text shown twice on a page needs a second key
        try:
            st.download_button("Download the whole text", data=audit_trail.exported(
                lambda: text.encode("utf-8", "surrogatepass"), what="whole text"), file_name="text.txt",
                mime="text/plain", icon=":material/download:", on_click="ignore",
                key=key if not attempt else f"{key}-{attempt}")
            return
        except StreamlitDuplicateElementKey:
            continue
