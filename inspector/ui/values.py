"""One decoded value on screen: containers as a JSON tree, text as text.

``st.json`` treats a ``str`` as serialized JSON and shows "Json Parse Error"
for ordinary text (a ``summary_text``, a written ``title``, an interrupt's
question), so strings and other scalars never go to it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ..formatting import dumps, to_jsonable
from ..safety.display_text import bidi_shown, bidi_shown_tree, cut_long_strings


def show_value(value: Any, expanded: bool | int = 1) -> None:
    """``value`` as a JSON tree or text; texts longer than ``DISPLAY_CHARS`` cut, each saying its length, bidi
    controls (in strings and keys) as their code points."""
    shown, cut = cut_long_strings(to_jsonable(value))
    if cut:
        st.caption(f"{cut:,} long text(s) cut for display, each saying its length; "
                   "the state's JSON download holds them whole.")
    if isinstance(shown, (dict, list)):
        st.json(shown, expanded=expanded)
    elif isinstance(shown, str):
        st.text(shown)
    else:
        st.code(bidi_shown(dumps(shown)), language=None)


def show_tree(value: Any, expanded: bool | int = 1) -> None:
    """``value`` (any decoded data) as a whole JSON tree (nothing cut), bidi controls as their code points."""
    st.json(bidi_shown_tree(to_jsonable(value)), expanded=expanded)
