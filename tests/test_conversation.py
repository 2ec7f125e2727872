"""Messages as a conversation: roles, parts, matched tool calls, hidden marks."""

from __future__ import annotations

from inspector.state.conversation import content_parts, conversation, counts
from inspector.store import open_store
from inspector.store.not_utf8 import quoted


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
    assert turns[0].notes == ["call ask ('c9') has no result yet"]
    assert turns[1].notes == ["answers call 'nobody', which no earlier message made"]


def test_a_note_names_a_call_id_as_error_lines_name_an_id():
    hostile = "\x1b[2J\u202e" + "c" * 5_000
    turns = conversation([msg("ai", "", tool_calls=[{"id": hostile, "name": "ask", "args": {}}]),
                          msg("tool", "?", tool_call_id=hostile + "x")])
    assert turns[0].notes == [f"call ask ({quoted(hostile)}) has no result yet"]
    assert turns[1].notes == [f"answers call {quoted(hostile + 'x')}, which no earlier message made"]
    assert quoted(hostile).startswith("'\\x1b[2J\\u202eccc") and "(5,005 characters)" in quoted(hostile)


def test_hidden_messages_are_marked_not_dropped():
    messages = [
        msg("system", "You are DeerFlow"),
        msg("human", [{"type": "text", "text": "Here are the images you've viewed:"},
                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}],
            id="view-image-context:1f2e", additional_kwargs={"hide_from_ui": True, "deerflow_view_image_context": True}),
        msg("ai", "ok", additional_kwargs={"hide_from_ui": True}),
        msg("human", "Your todo list is no longer visible", name="todo_reminder"),
        msg("human", "visible"),
        # an image message from a DeerFlow version that did not mark it hidden: DeerFlow's UI shows it
        msg("human", [{"type": "text", "text": "Here are the images you've viewed:"}]),
    ]
    turns = conversation(messages)
    assert len(turns) == 6
    assert [bool(t.hidden) for t in turns] == [True, True, True, True, False, False]
    assert "view-image" in turns[1].hidden and "todo_reminder" in turns[3].hidden
    assert counts(turns)["hidden"] == 4


def test_turns_carry_deerflow_stripping_attachments_and_subagent_results():
    uploads = "<current_uploads>\n- a.csv (1.0 KB)\n  Path: /mnt/user-data/uploads/a.csv\n</current_uploads>"
    files = [{"filename": "a.csv", "size": 1024, "path": "/mnt/user-data/uploads/a.csv", "status": "uploaded"}]
    turns = conversation([
        msg("human", f"{uploads}\n\nSum column B.", additional_kwargs={"files": files}),
        msg("ai", "", tool_calls=[{"id": "t1", "name": "task", "args": {"description": "sum"}}]),
        msg("tool", "Task Succeeded. Result: 42", name="task", tool_call_id="t1",
            additional_kwargs={"subagent_status": "completed", "subagent_model_name": "m1",
                               "subagent_token_usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}),
        msg("ai", "<system-reminder>It is **42**.</system-reminder>", additional_kwargs={"reasoning_content": "add"}),
    ])
    user, _, result, answer = turns
    assert [p.text for p in user.shown_parts] == ["Sum column B."] and user.text.startswith("<current_uploads>")
    assert [s.tag for s in user.stripped] == ["current_uploads"]
    assert [a.filename for a in user.attachments] == ["a.csv"]
    assert result.subagent.status == "completed" and result.subagent.token_usage["total_tokens"] == 7
    assert [p.text for p in answer.shown_parts] == ["It is **42**."] and answer.reasoning == "add"
    assert not any(t.hidden for t in turns)


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
    first = next(t for t in turns if t.type == "human")
    assert [s.tag for s in first.stripped] == ["uploaded_files"]
    assert "<uploaded_files>" not in first.shown_parts[0].text and "<uploaded_files>" in first.text
    assert {a.filename for a in first.attachments} == {"cell_prices.csv", "field_notes.md"}


def test_vision_demo_marks_injected_images(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        messages = store.state("demo-vision").values["messages"]
    turns = conversation(messages)
    injected = [t for t in turns if t.hidden and "view-image" in t.hidden]
    assert injected
    assert any(p.kind == "image" and p.size for t in injected for p in t.parts)


def test_a_kept_conversation_is_read_once_per_list_and_profile(demo_db):
    from inspector import profiles
    from inspector.state.conversation import KEPT, kept_conversation

    with open_store(f"sqlite:///{demo_db}") as store:
        messages = store.state("demo-research").values["messages"]
        with profiles.reading(store, "demo-research", named="deerflow"):
            turns = kept_conversation(messages)
            assert kept_conversation(messages) is turns  # the same list: read once
            assert kept_conversation(list(messages)) is not turns  # an equal list is another state's
            assert [(t.role, t.hidden, t.answers) for t in turns] == [(t.role, t.hidden, t.answers)
                                                                      for t in conversation(messages)]
        with profiles.reading(store, "demo-research", named="langgraph"):
            assert kept_conversation(messages) is not turns  # another profile reads it by its own rules
        for _ in range(KEPT):
            kept_conversation([{"type": "human", "content": "hi"}])
        with profiles.reading(store, "demo-research", named="deerflow"):
            assert kept_conversation(messages) is not turns  # a bounded number are kept
