"""The inspector's own CSS (constants of the code, never data), drawn once at the top of every page.

Streamlit draws a ``st.html`` of styles only in its event container, with a script the browser loads on first
use. A rule drawn beside the element it styles therefore arrives after it: on a first load, a small table's long
path stuck out of its column and a tool's output was in the body font for a moment. Drawn first thing in every
run, the rules are loading while the page computes, and in force when its elements arrive."""

from __future__ import annotations

import streamlit as st

from ..history.flow_dot import EDGE_PT, LABEL_PT, NODE_PT
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
CHOICES_WRAP = (".st-key-nav_choices [role='radiogroup'], .st-key-thread_panel_tabs [role='radiogroup'], "
                ".st-key-thread_list_choices [role='radiogroup'] {flex-wrap: wrap; row-gap: 0.25rem;}")
# Plain text in a message (a tool's output, a structured part, reasoning, a result) in the code font, line
# breaks and spaces kept, long lines wrapped: st.text in a monospaced face rather than st.code, whose
# highlighter is megabytes of script the browser loads for the first code block of a page.
MONOSPACED = ("[data-testid='stChatMessageContent'] [data-testid='stText'] span {font-family: "
              "'Source Code Pro', monospace; font-size: 0.875rem; overflow-wrap: anywhere;}")
# A graph's text at the sizes its layout was computed for (``flow_dot``: Graphviz measured the labels at these
# sizes), where Streamlit's chart would draw every text of it at one small size: names fill their boxes.
GRAPH = "[data-testid='stGraphVizChart']"
GRAPH_TEXT = (f"{GRAPH} g.node text {{font-size: {NODE_PT}px;}} {GRAPH} g.edge text {{font-size: {EDGE_PT}px;}} "
              f"{GRAPH} :is(g.cluster, g.graph) > text {{font-size: {LABEL_PT}px;}} "
              # drawn to the panel's width, but never taller than most of the window (a long graph is scaled down)
              ".st-key-flow-graph svg {max-height: 80vh;}")
# A Play frame's words (``frame_html``): the step and its node(s) large, the node(s) in their colours.
FRAME = (".si-where {display: flex; align-items: center; gap: 0.75rem; color: #475569; font-size: 0.875rem;} "
         ".si-bar {flex: 1; height: 0.4rem; background: #e2e8f0; border-radius: 0.2rem; overflow: hidden;} "
         ".si-bar > div {height: 100%; background: #64748b;} "
         ".si-head {font-size: 1.5rem; font-weight: 700; line-height: 1.4; margin: 0.3rem 0 0.4rem;} "
         ".si-node {display: inline-block; padding: 0 0.45rem; border: 2px solid; border-radius: 0.4rem;} "
         ".si-field {display: inline-block; padding: 0 0.4rem; border-radius: 0.4rem; background: #dcfce7; "
         "color: #14532d; font-weight: 600;} "
         ".si-none {border-color: #cbd5e1; background: #f1f5f9; color: #475569;} .si-head .si-none {font-weight: 400;} "
         ".si-failed, .si-problem {color: #b91c1c;} .si-quiet, .si-caption, .si-cancelled {color: #64748b;} "
         ".si-title {font-weight: 700; margin: 0.5rem 0 0.2rem;} .si-field-line {margin-top: 0.3rem;} "
         ".si-body ul {margin: 0.1rem 0 0.3rem 1.2rem; padding: 0;} .si-body p {margin: 0.3rem 0;} "
         ".si-message {border-left: 3px solid #cbd5e1; padding-left: 0.5rem; margin: 0.35rem 0; "
         "overflow-wrap: anywhere;}")
# The conversation's runs of messages (``conversation_html``): chat bubbles as Streamlit draws them (the avatar's icon in an
# outlined box), the text's Markdown at the body's size (a message's heading is a heading, not the page's title),
# plain text monospaced, tool calls and links behind native <details>.
CHAT = (".si-chat {display: flex; flex-direction: column; gap: 1rem;} "
        ".si-msg {display: flex; gap: 0.5rem; padding: 1rem; border-radius: 0.5rem; overflow-wrap: anywhere; "
        "line-height: 1.6;} "
        ".si-msg.si-user {background: rgba(240, 242, 246, 0.5);} "
        ".si-avatar {flex: none; width: 2rem; height: 2rem; border-radius: 0.5rem; display: flex; "
        "align-items: center; justify-content: center; color: rgb(49, 51, 63); background: #fff; "
        "border: 1px solid rgba(49, 51, 63, 0.2);} "
        ".si-content {flex: 1; min-width: 0; display: flex; flex-direction: column; gap: 0.5rem;} "
        ".si-icon {font-family: 'Material Symbols Rounded'; font-weight: 400; font-style: normal; "
        "font-size: 1.15em; line-height: 1; vertical-align: -0.2em; display: inline-block; user-select: none;} "
        ".si-avatar .si-icon {font-size: 1.25rem; vertical-align: 0;} "
        ".si-chat code {font-family: 'Source Code Pro', monospace; font-size: 0.85em; padding: 0.1em 0.25em; "
        "border-radius: 0.25rem; background: rgba(172, 177, 195, 0.25); overflow-wrap: anywhere;} "
        ".si-chat pre {margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; "
        "font-family: 'Source Code Pro', monospace; font-size: 0.875rem;} "
        ".si-chat pre code {background: none; padding: 0;} "
        ".si-md pre {padding: 0.75rem; border-radius: 0.5rem; background: rgba(172, 177, 195, 0.15);} "
        ".si-md > :first-child {margin-top: 0;} .si-md > :last-child {margin-bottom: 0;} "
        ".si-md p, .si-md ul, .si-md ol, .si-md blockquote, .si-md table {margin: 0 0 0.6rem;} "
        ".si-md :is(h1, h2, h3, h4, h5, h6) {font-weight: 600; margin: 0.8rem 0 0.4rem; padding: 0; "
        "line-height: 1.3; scroll-margin-top: 0;} "
        ".si-md h1 {font-size: 1.5rem;} .si-md h2 {font-size: 1.3rem;} .si-md h3 {font-size: 1.15rem;} "
        ".si-md :is(h4, h5, h6) {font-size: 1rem;} "
        ".si-md blockquote {border-left: 3px solid #cbd5e1; padding-left: 0.75rem; color: #475569;} "
        ".si-md table {border-collapse: collapse; font-size: 0.875rem;} "
        ".si-md :is(th, td) {border: 1px solid #e2e8f0; padding: 0.25rem 0.5rem;} "
        ".si-cap {font-size: 0.875rem; color: rgba(49, 51, 63, 0.6);} "
        ".si-gray {color: rgba(49, 51, 63, 0.6);} .si-red {color: #ff2b2b;} "
        ".si-badge {display: inline-block; padding: 0 0.35rem; border-radius: 0.25rem; font-size: 0.875rem;} "
        ".si-orange {background: rgba(255, 164, 33, 0.15); color: #b45309;} "
        ".si-green {background: rgba(33, 195, 84, 0.15); color: #15803d;} "
        ".si-red-badge {background: rgba(255, 43, 43, 0.12); color: #b91c1c;} "
        ".si-chat details {border: 1px solid rgba(49, 51, 63, 0.2); border-radius: 0.5rem; padding: 0.25rem 0.75rem;} "
        ".si-chat details[open] {padding-bottom: 0.75rem;} "
        ".si-chat summary {cursor: pointer; padding: 0.25rem 0;} "
        ".si-chat details > :not(summary) {margin-top: 0.4rem;} "
        ".si-links ul {margin: 0.25rem 0 0 1.2rem; padding: 0;}")
# The presenter view (``presenter``): while its container is on the page, no sidebar and no app header, the page's
# margins small, the frame's type large, the graph as tall as the window leaves it and the words scrolled
# within their own box: the whole frame fits a 1280x720 or 1024x768 window.
ON = "body:has(.st-key-presenter)"
PRESENTER = (f"{ON} :is([data-testid='stSidebar'], [data-testid='stSidebarCollapsedControl'], "
             "[data-testid='stHeader']) {display: none;} "
             f"{ON} [data-testid='stMainBlockContainer'] {{padding: 0.5rem 1rem 0.25rem; max-width: none;}} "
             ".st-key-presenter {gap: 0.5rem;} "
             ".st-key-presenter .st-key-nav_controls {flex-wrap: wrap; gap: 0.25rem 0.4rem;} "
             ".st-key-presenter .st-key-nav_controls button {padding: 0.2rem 0.5rem; min-height: 2.2rem;} "
             ".st-key-presenter .si-head {font-size: 2.1rem; line-height: 1.3;} "
             ".st-key-presenter .si-where {font-size: 1rem;} "
             ".st-key-presenter .si-body {font-size: 1.3rem; line-height: 1.45; overflow-y: auto; "
             "max-height: calc(100vh - 13rem);} "
             ".st-key-presenter .st-key-flow-graph svg {width: 100%; height: calc(100vh - 6.5rem); max-height: none;} "
             ".st-key-presenter .st-key-graph-alone .st-key-flow-graph svg {height: calc(100vh - 10rem);}")
RULES = (TABLE_WRAP, CHOICES_WRAP, MONOSPACED, CHAT, GRAPH_TEXT, FRAME, PRESENTER)


def apply() -> None:
    """Every rule of the inspector's pages, in force for the rest of this run (called once, by ``app.py``)."""
    st.html("<style>" + " ".join(RULES) + "</style>")
