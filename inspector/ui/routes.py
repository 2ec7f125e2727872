"""The dashboard's pages, registered once by app.py, so pages can link to each other.

``url_path`` names are part of the URL contract: ``thread``, ``diff``, ``health`` and ``retention``.
The thread list is the default page, served at the root URL (``/``); it is
registered under the name ``threads`` for links between pages.
"""

from __future__ import annotations

import streamlit as st

from .inert import literal

_PAGES: dict[str, st.Page] = {}


def register(pages: list[st.Page]) -> list[st.Page]:
    for page in pages:
        _PAGES[page.url_path or "threads"] = page
    return pages


def page(url_path: str) -> st.Page | str:
    """The registered page for ``url_path``."""
    return _PAGES[url_path]


def link(url_path: str, label: str, params: dict[str, str] | None = None, icon: str | None = None) -> None:
    """A link to another page carrying query parameters (no link when the page is not registered).

    ``label`` is shown as written (page link labels are Markdown; thread ids in them come from the data).
    """
    if url_path in _PAGES:
        st.page_link(_PAGES[url_path], label=literal(label), icon=icon, query_params=params or {})


def go(url_path: str, params: dict[str, str] | None = None) -> None:
    st.switch_page(_PAGES[url_path], query_params=params or {})
