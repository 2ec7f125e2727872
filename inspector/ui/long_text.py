"""Text from the data, shown inert: Markdown (its links behind a click) or plain (a tool's output, monospaced),
cut for display where it is very long (the page says so and offers the whole text, as the views have it, as a
download the audit trail records)."""
from __future__ import annotations

import hashlib

import streamlit as st
from streamlit.errors import StreamlitDuplicateElementKey

from ..safety.display_text import Shown, cut_for_display
from ..safety.inert_text import inert_markdown, links_in
from . import audit_trail
from .inert import literal, plain


def show_markdown(text: object, key: str | None = None, lead: str | None = None) -> None:
    """``text`` with its Markdown formatting, where nothing loads; the links it names behind a click.

    A very long text is cut for display (``cut_for_display``): the page says so, with the whole size, and
    offers the whole text (as the views have it: masked) as a download. ``key`` names that download. ``lead``:
    a paragraph of the page's own Markdown (text from the data in it made literal) drawn above it, in the same
    element."""
    text = str(text)
    shown = cut_for_display(text)
    st.markdown(f"{lead}\n\n{inert_markdown(shown.text)}" if lead else inert_markdown(shown.text))
    _offer_whole(text, shown, key)
    links = links_in(text)
    if links:
        with st.expander(f":material/link: {len(links)} link(s) in this text"):
            st.caption("Shown, never loaded by the dashboard: a link opens in a new tab only when clicked.")
            for url in links:
                st.link_button(literal(url), url, icon=":material/open_in_new:")


def show_plain(text: object, key: str | None = None) -> None:
    """``text`` as the text it is (monospaced, line breaks kept, never Markdown), cut for display where very long
    (``cut_for_display``), as ``show_markdown`` cuts it: the page says so and offers the whole text."""
    text = str(text)
    shown = cut_for_display(text)
    st.text(plain(shown.text))
    _offer_whole(text, shown, key)


def _offer_whole(text: str, shown: Shown, key: str | None) -> None:
    """Where ``shown`` is cut: what was cut, said, and the whole ``text`` as a download (``key`` names it)."""
    if shown.cut:
        st.caption(literal(shown.note()))
        _download_whole(text, key or "text-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:16])


def _download_whole(text: str, key: str) -> None:
    for attempt in range(20):  # the same long text shown twice on a page needs a second key
        try:
            st.download_button("Download the whole text", data=audit_trail.exported(
                lambda: text.encode("utf-8", "surrogatepass"), what="whole text"), file_name="text.txt",
                mime="text/plain", icon=":material/download:", on_click="ignore",
                key=key if not attempt else f"{key}-{attempt}")
            return
        except StreamlitDuplicateElementKey:
            continue
