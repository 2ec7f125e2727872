"""DeerFlow's chat-UI rules: hidden messages, tag stripping, attachments, subagent results."""

from __future__ import annotations

import pytest

from inspector.profiles.deerflow.messages import (
    attachments,
    displayed_text,
    hidden_reason,
    message_text,
    parse_upload_block,
    strip_human_blocks,
    strip_marker_tags,
    subagent_result,
)

UPLOADS = """<current_uploads>
The following files were uploaded in this message:

- photo (1).png (177.6 KB)
  Path: /mnt/user-data/uploads/photo (1).png
  Use `grep` to search for keywords.

- notes.md (2.0 MB)
  Path: /mnt/user-data/uploads/notes.md

To work with these files:
- Read from the file first.
</current_uploads>"""

SKILL = """<slash_skill_activation>
The user explicitly activated the `deep-research` skill for this turn.
<user_request>
compare two chips
</user_request>
</slash_skill_activation>"""


def msg(kind, content="", **extra):
    return {"type": kind, "content": content, **extra}


@pytest.mark.parametrize("message, reason", [
    (msg("human", "x", additional_kwargs={"hide_from_ui": True}), "marked hide_from_ui"),
    (msg("human", [{"type": "text", "text": "Here are the images you've viewed:"}],
         id="view-image-context:ab12", additional_kwargs={"hide_from_ui": True, "deerflow_view_image_context": True}),
     "marked hide_from_ui: the view-image middleware's transient image context"),
    (msg("system", "<system-reminder>\n<current_date>2026-08-22, Saturday</current_date>\n</system-reminder>",
         additional_kwargs={"hide_from_ui": True, "dynamic_context_reminder": True}),
     "marked hide_from_ui: the dynamic-context middleware's reminder"),
    (msg("human", "Summary of the conversation so far", name="summary"), "a summary control message"),
    (msg("human", "You keep calling the same tool", name="loop_warning"), "a loop_warning control message"),
    (msg("human", "<system_reminder>todos</system_reminder>", name="todo_reminder"), "a todo_reminder control message"),
    (msg("ai", "done?", name="todo_completion_reminder"), "a todo_completion_reminder control message"),
    (msg("human", SKILL), "only a <slash_skill_activation> block"),
    (msg("human", [{"type": "text", "text": UPLOADS}, {"type": "text", "text": SKILL}]),
     "only a <slash_skill_activation> block"),
    (msg("system", "You are DeerFlow"), "a system message: DeerFlow's UI draws only human, assistant and tool messages"),
    (msg("ai", ""), "an empty assistant message"),
    (msg("ai", "   "), "an empty assistant message"),
])
def test_messages_deerflow_hides(message, reason):
    assert hidden_reason(message) == reason


@pytest.mark.parametrize("message", [
    msg("human", "hello"),
    msg("human", SKILL + "\n\nand also summarise it"),  # a skill activation with the user's own words
    msg("human", "x", additional_kwargs={"hide_from_ui": "yes"}),  # only the boolean true hides
    msg("human", "x", name="reviewer"),
    msg("ai", "", tool_calls=[{"id": "c1", "name": "ls", "args": {}}]),
    msg("ai", "", additional_kwargs={"reasoning_content": "thinking"}),
    msg("ai", [{"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}}]),
    msg("tool", "", tool_call_id="c1"),
    # an injected image message from a DeerFlow version that did not mark it: its UI shows it
    msg("human", [{"type": "text", "text": "Here are the images you've viewed:"}]),
])
def test_messages_deerflow_shows(message):
    assert hidden_reason(message) is None


def test_message_text_joins_text_blocks_and_trims():
    assert message_text(msg("human", [{"type": "text", "text": " a"}, {"type": "image_url"}, "b ", {"x": 1}])) == "a\n\nb"
    assert message_text(msg("human", None)) == ""


def test_human_text_loses_upload_and_skill_blocks_with_a_note_each():
    text = f"{UPLOADS}\n\n{SKILL}\n\nWhat is in the photo?"
    shown, stripped = strip_human_blocks(text)
    assert shown == "What is in the photo?"
    assert {(s.tag, s.whole_block, s.count) for s in stripped} == {("current_uploads", True, 1),
                                                                  ("slash_skill_activation", True, 1)}
    uploads = next(s for s in stripped if s.tag == "current_uploads")
    assert uploads.chars == len(UPLOADS)
    assert "removes the <current_uploads> block" in uploads.note and "uploads middleware" in uploads.note


def test_human_text_keeps_reminder_tags_as_deerflow_renders_them_verbatim():
    text = "<system-reminder><memory>likes tea</memory></system-reminder>\nhi"
    assert displayed_text("human", text) == (text, [])


def test_older_uploaded_files_blocks_are_stripped_too():
    shown, stripped = strip_human_blocks("<uploaded_files>\n- a.csv (1.0 KB)\n  Path: /x\n</uploaded_files>\n\nGo")
    assert shown == "Go" and stripped[0].tag == "uploaded_files"


def test_assistant_markdown_loses_internal_tags_but_keeps_their_content():
    text = "Noted.\n<system-reminder>\n<current_date>2026-08-22</current_date>\n</system-reminder> done <memory attr=\"x\"/>"
    shown, stripped = strip_marker_tags(text)
    assert shown == "Noted.\n\n2026-08-22\n done "
    assert {s.tag: (s.whole_block, s.count) for s in stripped} == {
        "system-reminder": (False, 2), "current_date": (False, 2), "memory": (False, 1)}
    assert "shows what they enclose" in stripped[0].note


def test_assistant_tags_inside_code_blocks_are_left_alone():
    text = "```xml\n<memory>kept</memory>\n```\n    <current_date>indented</current_date>\n<memory>x</memory>"
    shown, stripped = strip_marker_tags(text)
    assert shown == "```xml\n<memory>kept</memory>\n```\n    <current_date>indented</current_date>\nx"
    assert [(s.tag, s.count) for s in stripped] == [("memory", 2)]
    # a shorter fence inside a longer one does not close it
    assert strip_marker_tags("````\n```\n<memory>a</memory>\n````")[1] == []


def test_tool_text_is_shown_as_stored():
    assert displayed_text("tool", "<memory>x</memory>") == ("<memory>x</memory>", [])


def test_attachments_come_from_additional_kwargs_files():
    files = [{"filename": "a.csv", "size": 2048, "path": "/mnt/user-data/uploads/a.csv", "status": "uploaded"},
             {"filename": "b.png", "size": True}, "odd"]
    found = attachments(msg("human", UPLOADS + "\n\nhi", additional_kwargs={"files": files}))
    assert [(a.filename, a.size, a.path, a.status) for a in found] == [
        ("a.csv", 2048, "/mnt/user-data/uploads/a.csv", "uploaded"), ("b.png", None, None, None), ("odd", None, None, None)]
    assert {a.source for a in found} == {"additional_kwargs.files"}


def test_attachments_fall_back_to_the_upload_block():
    found = attachments(msg("human", UPLOADS + "\n\nhi"))
    assert [(a.filename, a.size, a.path) for a in found] == [
        ("photo (1).png", round(177.6 * 1024), "/mnt/user-data/uploads/photo (1).png"),
        ("notes.md", 2 * 1024 * 1024, "/mnt/user-data/uploads/notes.md")]
    assert found[0].source == "<current_uploads> block"
    assert parse_upload_block("<current_uploads>\n(empty)\n</current_uploads>") == []
    assert attachments(msg("human", "no block")) == []


def test_task_results_carry_the_subagent_status_stop_reason_model_and_tokens():
    kwargs = {"subagent_status": "completed", "subagent_stop_reason": "token_capped",
              "subagent_result_brief": "Found 3 sources", "subagent_result_sha256": "a" * 64,
              "subagent_model_name": "gpt-4o-mini",
              "subagent_token_usage": {"input_tokens": 1234, "output_tokens": 567, "total_tokens": 1801}}
    result = subagent_result(msg("tool", "Task Succeeded (capped: token budget). Result: ...", name="task",
                                 additional_kwargs=kwargs))
    assert (result.status, result.pill, result.stop_reason, result.model_name) == (
        "completed", "completed", "token_capped", "gpt-4o-mini")
    assert result.token_usage == {"input_tokens": 1234, "output_tokens": 567, "total_tokens": 1801}
    assert result.result_brief == "Found 3 sources" and not result.problems
    assert result.summary == ("completed · stopped: token_capped · model gpt-4o-mini · "
                              "1,801 tokens (1,234 in, 567 out)")


def test_failed_and_odd_subagent_results_say_what_the_card_shows():
    timed_out = subagent_result(msg("tool", "Task timed out.", name="task", additional_kwargs={
        "subagent_status": "timed_out", "subagent_error": "Task timed out."}))
    assert (timed_out.pill, timed_out.error) == ("failed", "Task timed out.")
    assert timed_out.summary.startswith("timed_out (shown as failed)")
    odd = subagent_result(msg("tool", "?", name="task", additional_kwargs={
        "subagent_status": "exploded", "subagent_stop_reason": "bored", "subagent_token_usage": {"input_tokens": -1}}))
    assert odd.pill == "in_progress" and len(odd.problems) == 3 and odd.token_usage is None
    planted = subagent_result(msg("tool", "?", name="task", additional_kwargs={"subagent_status": "C:\\it's\u202e",
                                                                              "subagent_stop_reason": ["x"]}))
    assert planted.problems[:2] == ["subagent_status 'C:\\it's\\u202e' is not one DeerFlow knows: its card shows the task "
                                    "as still running", "subagent_stop_reason ['x'] is not one DeerFlow knows"]


def test_legacy_task_results_are_read_from_their_text():
    assert subagent_result(msg("tool", "Task Succeeded. Result: ok", name="task")).status == "completed"
    assert subagent_result(msg("tool", "Error: boom", name="task")).pill == "failed"
    running = subagent_result(msg("tool", "still going", name="task"))
    assert running.pill == "in_progress" and running.legacy
    assert subagent_result(msg("tool", "ok", name="read_file")) is None
    assert subagent_result(msg("ai", "x", additional_kwargs={"subagent_status": "completed"})) is None
