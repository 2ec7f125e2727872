"""The inspector's own CSS (constants of the code, never data), drawn once at the top of every page.

Streamlit draws a ``st.html`` of styles only in its event container, with a script the browser loads on first
use. A rule drawn beside the element it styles therefore arrives after it: on a first load, a small table's long
path stuck out of its column and a tool's output was in the body font for a moment. Drawn first thing in every
run, the rules are loading while the page computes, and in force when its elements arrive."""

from __future__ import annotations

import streamlit as st

from .inert import TABLE_KEY

# A small table's labels (its header and first column: field names, "namespace", "workspace") wrap only between
# words; its values (ids, paths) break anywhere rather than push the table out of a narrow column; its text is
# the size of a data grid's, so a time or a short id fits the history's column at 1024 px whole. Scoped to the
# tables ``inert.show_table`` draws (their containers' keys start with TABLE_KEY).
TABLE_WRAP = (f"[class*='st-key-{TABLE_KEY}'] :is(td, th) {{font-size: 0.875rem; padding: 0.375rem 0.5rem;}} "
              f"[class*='st-key-{TABLE_KEY}'] td {{overflow-wrap: anywhere;}} "
              f"[class*='st-key-{TABLE_KEY}'] th, [class*='st-key-{TABLE_KEY}'] td:first-child "
              "{overflow-wrap: normal; word-break: normal;}")
# Play's speed and view, and the thread page's panel tabs, wrap onto a second line in a narrow column instead of
# scrolling out of sight: at 1024 px no option is cut to "2 ste".
CHOICES_WRAP = (".st-key-nav_choices [role='radiogroup'], .st-key-thread_panel_tabs [role='radiogroup'] "
                "{flex-wrap: wrap; row-gap: 0.25rem;}")
# Plain text in a message (a tool's output, a structured part, reasoning, a result) in the code font, line
# breaks and spaces kept, long lines wrapped: st.text in a monospaced face rather than st.code, whose
# highlighter is megabytes of script the browser loads for the first code block of a page.
MONOSPACED = ("[data-testid='stChatMessageContent'] [data-testid='stText'] span {font-family: "
              "'Source Code Pro', monospace; font-size: 0.875rem; overflow-wrap: anywhere;}")
RULES = (TABLE_WRAP, CHOICES_WRAP, MONOSPACED)


def apply() -> None:
    """Every rule of the inspector's pages, in force for the rest of this run (called once, by ``app.py``)."""
    st.html("<style>" + " ".join(RULES) + "</style>")
