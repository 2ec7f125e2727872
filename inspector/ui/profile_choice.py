"""The profile a thread's pages read it with, switchable where one looks: ``?profile=<name>`` in the URL.

Absent, the thread is read as it would be anyway ("automatic": the operator's ``--profile`` / setting
``profile`` if named, else the evidence's choice, with its reason). A name picked in the page (any
registered profile, the generic LangGraph reading included) is kept in the URL, so it survives Back,
Refresh and a copied link, and the thread page, Play, Export and the Diff page read the thread with it
(``profiles.asking``): every cached result computed under a thread's profile is keyed by it
(``data.read_as``). An unknown name in a link is named on the page and left out.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from .. import profiles
from ..profiles import Reading
from . import routes
from .inert import literal, option_text

PARAM = routes.PROFILE_PARAM
AUTOMATIC = "automatic"  # the picker's first option: no ``profile=`` in the URL
HELP = ("Which app's knowledge reads this thread: its views, reducers, files and advice. Automatic: the evidence's "
        "choice (or the operator's --profile / setting profile), with its reason. Another choice is kept in the URL "
        "(profile=) and used by every panel, Play, the Diff page and Export.")
HELP_BOTH = "Which app's knowledge reads both threads: the first one's. " + HELP


def _parse(text: str) -> str:
    text = text.strip().lower()
    if not text or text == AUTOMATIC:
        return AUTOMATIC
    try:
        return profiles.profile_named(text).name
    except profiles.ProfileError as exc:
        raise ValueError(str(exc)) from None


def bind(key: str) -> str | None:
    """Before the page reads the thread: the profile ``?profile=`` names (None: automatic), given to the
    picker ``key`` draws later in the run; an unknown name is said in a warning and left out."""
    problem = routes.bind(key, PARAM, AUTOMATIC, _parse)
    if problem:
        st.warning(literal(problem), icon=":material/link_off:")
    return named(key)


def named(key: str) -> str | None:
    """The profile picked in ``key`` (bound by ``bind`` earlier in the page's run), or None for automatic."""
    picked = st.session_state.get(key)
    return None if picked in (None, "", AUTOMATIC) else picked


def _caption(chosen: Reading, automatic: Reading | None) -> str:
    """``Profile: DeerFlow: 11 of 14 ThreadState channels``; for a page's choice, what the automatic choice
    would have been."""
    if automatic is None:
        return chosen.line()
    clues = f"; the data shows {', '.join(chosen.clues)}" if chosen.clues else ""
    return f"Profile: {chosen.title} (chosen on this page{clues}; automatic: {automatic.reason})"


def picker(store: Any, thread_id: str, chosen: Reading, key: str, rows: list[Any] | None = None,
           help: str = HELP) -> None:
    """The profile the thread is read with (``chosen``) and why, and the picker that switches it: automatic,
    then every registered profile by title; the choice is written to the URL."""
    named = profiles.asked(store, thread_id)
    automatic = profiles.reading_for(store, thread_id, None, rows) if named else chosen
    titles = {AUTOMATIC: f"Automatic ({automatic.title})",
              **{p.name: p.title for p in profiles.profiles()}}
    with st.container(horizontal=True, gap="small", vertical_alignment="center", key=f"{key}_row"):
        picked = st.selectbox("Profile", list(titles), key=key, format_func=lambda n: option_text(titles.get(n, n)),
                              help=help, width=240, label_visibility="collapsed")
        st.caption(literal(_caption(chosen, automatic if named else None)), help=help)
    routes.keep(key, PARAM, picked, AUTOMATIC)
