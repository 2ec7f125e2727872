"""Messages as a conversation: roles, parts, matched tool calls, hidden marks."""

from __future__ import annotations

from inspector.conversation import content_parts, conversation, counts
from inspector.store import open_store


def msg(kind, content="", **extra):
    return {"type": kind, "content": content, "id": extra.pop("id", None), **extra}


def test_tool_calls_are_matched_to_their_results_by_call_id():
    turns = conversation([
        msg("human", "hi"),
        msg("ai", "", tool_calls=[{"id": "c1", "name": "read_file", "args": {"path": "/x"}},
                                  {"id": "c2", "name": "web_search", "args": {"q": "y"}}]),
        msg("tool", "second", tool_call_id="c2", name="web_search"),
        msg("tool", "first", tool_call_id="c1", name="read_file"),
    ])
    calls = turns[1].tool_calls
    assert [(c.name, c.result) for c in calls] == [("read_file", 3), ("web_search", 2)]
    assert turns[2].answers == 1 and turns[3].answers == 1
    assert [t.role for t in turns] == ["user", "assistant", "tool", "tool"]


def test_unanswered_calls_and_orphan_results_are_noted():
    turns = conversation([msg("ai", "", tool_calls=[{"id": "c9", "name": "ask", "args": {}}]),
                          msg("tool", "?", tool_call_id="nobody")])
    assert any("no result yet" in n for n in turns[0].notes)
    assert any("nobody" in n for n in turns[1].notes)


def test_hidden_messages_are_marked_not_dropped():
    messages = [
        msg("system", "You are DeerFlow"),
        msg("human", [{"type": "text", "text": "Here are the images you've viewed:"},
                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]),
        msg("ai", "ok", additional_kwargs={"hide_from_ui": True}),
        msg("human", "visible"),
    ]
    turns = conversation(messages)
    assert len(turns) == 4
    assert [bool(t.hidden) for t in turns] == [True, True, True, False]
    assert counts(turns)["hidden"] == 3


def test_multimodal_parts_report_image_type_and_size_without_the_base64():
    parts = content_parts([
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + "A" * 400}},
        {"type": "image", "source_type": "base64", "data": "B" * 80, "mime_type": "image/png"},
        {"type": "audio", "data": "x"},
    ])
    assert [p.kind for p in parts] == ["text", "image", "image", "other"]
    assert parts[1].mime_type == "image/jpeg" and parts[1].size == 300
    assert parts[2].mime_type == "image/png" and parts[2].size == 60
    assert "A" * 40 not in (parts[1].source or "")


def test_non_message_values_do_not_break_the_view():
    turns = conversation([42, msg("weird", {"a": 1})])
    assert turns[0].hidden == "not a message"
    assert turns[1].role == "weird" and turns[1].parts[0].kind == "other"
    assert conversation(None) == []


def test_research_demo_conversation(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        messages = store.state("demo-research").values["messages"]
    turns = conversation(messages)
    tool_turns = [t for t in turns if t.type == "tool"]
    assert tool_turns and all(t.answers is not None for t in tool_turns)
    assert any("<uploaded_files>" in n for t in turns for n in t.notes)


def test_vision_demo_marks_injected_images(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        messages = store.state("demo-vision").values["messages"]
    turns = conversation(messages)
    injected = [t for t in turns if t.hidden and "view-image" in t.hidden]
    assert injected
    assert any(p.kind == "image" and p.size for t in injected for p in t.parts)
