"""Text from the data on screen: through ``inspector.safety.inert_text``, never as raw Markdown.

Streamlit renders Markdown in ``st.markdown``, ``st.write`` of a string, titles,
headers, captions, alerts, spinners, image captions, ``select_slider`` options
and the labels of widgets, tabs, expanders and page links; any of them can show
an image, which the browser fetches. Every view puts data into those through
``literal`` (ids, names, titles, messages of problems) or ``show_markdown``
(messages, Markdown files); ``routes.link`` escapes its labels itself.
Plain-text elements (``st.text``, ``st.code``, ``st.json``, ``st.dataframe``
cells, ``st.selectbox`` options) take the text as is.
"""

from __future__ import annotations

import streamlit as st

from ..safety.inert_text import code_span, inert_markdown, links_in, literal

__all__ = ["code_span", "literal", "show_markdown"]


def show_markdown(text: object) -> None:
    """``text`` with its Markdown formatting, where nothing loads; the links it names behind a click."""
    st.markdown(inert_markdown(text))
    links = links_in(text)
    if links:
        with st.expander(f":material/link: {len(links)} link(s) in this text"):
            st.caption("Shown, never loaded by the dashboard: a link opens in a new tab only when clicked.")
            for url in links:
                st.link_button(literal(url), url, icon=":material/open_in_new:")
