"""The caption a thread's pages show: which profile reads the thread, and what in the data shows it
(``profiles.Reading.line``), the same words on the thread page and the Diff page."""

from __future__ import annotations

from typing import Any

import streamlit as st

from .inert import literal

READS_THIS = ("Which app's knowledge reads this thread, and what in the data shows it (setting profile / --profile "
              "names one for every thread)")
READS_BOTH = "Which app's knowledge reads both threads: the first one's"


def show_profile(chosen: Any, help: str = READS_THIS) -> None:
    """``chosen`` (a ``profiles.Reading``) as one caption, its ``help`` on hover."""
    st.caption(literal(chosen.line()), help=help)
