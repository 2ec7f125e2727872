"""AppTest: a thread whose messages and fields hold bidi controls (an attacker's ``\\u202e`` makes the text after
it read backwards) shows them as their code points in message text, code blocks, plain text and JSON trees."""

from __future__ import annotations

import json
import sqlite3
from typing import Annotated, Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict
from ui_app import html_shown, html_text, open_page

from inspector.ui import connection

RLO, LRI = "\u202e", "\u2066"
LRM, RLM, ALM = "\u200e", "\u200f", "\u061c"  # marks: they move the neutral characters around them
CONTROLS = ("\u202a", "\u202b", "\u202c", "\u202d", RLO, LRI, "\u2067", "\u2068", "\u2069", LRM, RLM, ALM)


class BidiState(TypedDict):
    messages: Annotated[list, add_messages]
    notes: dict


def plant(path) -> None:
    graph = StateGraph(BidiState)
    graph.add_node("agent", lambda state: {})
    graph.add_edge(START, "agent")
    graph.add_edge("agent", END)
    messages = [
        HumanMessage(f"Pay **{RLO}txt.exe** to 12-{RLM}34 now\n\n```\ncode {LRI}held{chr(0x2069)} {ALM}5-6\n```"),
        AIMessage("", tool_calls=[{"name": "pay", "args": {"to": f"acct-{RLO}4321"}, "id": "call-1"}]),
        ToolMessage(f"paid acct-{RLO}4321", tool_call_id="call-1"),
    ]
    with sqlite3.connect(path, check_same_thread=False) as conn:
        graph.compile(checkpointer=SqliteSaver(conn)).invoke(
            {"messages": messages, "notes": {f"key-{RLO}": f"value-{LRI}", f"mark-{LRM}": f"7-{ALM}8"}},
            {"configurable": {"thread_id": "bidi"}})


def values(at) -> list[Any]:
    """What the page gives the browser to show as text: Markdown sources, plain texts, code and JSON trees."""
    found: list[Any] = [e.value for kind in ("markdown", "caption", "text", "code") for e in getattr(at, kind)]
    return found + [json.loads(e.proto.body) for e in at.json]


def test_bidi_controls_in_messages_code_and_json_trees_are_shown_as_code_points(tmp_path, monkeypatch):
    path = tmp_path / "bidi.db"
    plant(path)
    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{path}")
    connection.settings.clear()
    try:
        at = open_page("thread", thread="bidi")
    finally:
        connection.settings.clear()
    assert not at.exception, at.exception
    page = json.dumps(values(at), ensure_ascii=False)
    assert not [c for c in CONTROLS if c in page]
    assert not [c for c in CONTROLS if c in html_text(at)]  # nor in the messages drawn as HTML
    prose = "\n".join(html_shown(at, "si-md"))  # the messages' Markdown, as the browser shows it
    assert "\\u202etxt.exe" in prose  # reads \u202e
    assert "to 12-\\u200f34" in prose  # a mark in prose
    assert "code \\u2066held\\u2069 \\u061c5-6" in prose  # a fenced block: as written
    plain_blocks = html_shown(at, "si-plain")
    assert "paid acct-\\u202e4321" in plain_blocks  # a tool's output
    assert any('"acct-\\\\u202e4321"' in block for block in plain_blocks)  # the tool call's arguments, as JSON
    trees = json.dumps([json.loads(e.proto.body) for e in at.json])
    assert "key-\\\\u202e" in trees and "value-\\\\u2066" in trees  # a field of the app's own
    assert "mark-\\\\u200e" in trees and "7-\\\\u061c8" in trees
