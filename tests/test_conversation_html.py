"""Messages as one piece of HTML (``ui.conversation_html``): what each bubble shows, which messages stay Streamlit
bubbles (they need a widget), and that nothing from the data becomes markup, a URL or an attribute."""

from __future__ import annotations

from corpus.hostile_content import hostile_markdown
from test_inert_html import Tags

from inspector.safety.display_text import DISPLAY_CHARS
from inspector.safety.inert_html import TAGS
from inspector.safety.inert_text import links_in
from inspector.state.conversation import conversation
from inspector.ui.conversation_html import CHAT_CLASS, MESSAGE_CLASS, chat_html, needs_widgets, turn_html

TRACKER = "http://tracker.invalid:8080"
# The markup the code adds around the data's formatting, and the only attributes it may carry.
OWN_TAGS = {"div", "span", "b", "i", "details", "summary", "a"}
OWN_ATTRIBUTES = {"class", "data-index", "aria-hidden", "href", "target", "rel"}


def msg(kind, content="", **extra):
    return {"type": kind, "content": content, "id": extra.pop("id", None), **extra}


def research():
    return conversation([
        msg("human", "Compare **two** sources", id="m0"),
        msg("ai", "Reading them.", id="m1", tool_calls=[
            {"id": "c1", "name": "web_fetch", "args": {"url": "https://example.com/a", "deep": {"x": [1, 2]}}},
            {"id": "c2", "name": "web_fetch", "args": {"url": "https://example.com/b"}}]),
        msg("tool", "# page a\n<b>raw</b>", id="m2", tool_call_id="c1", name="web_fetch"),
        msg("ai", "See https://example.com/a and https://example.com/b.", id="m3",
            additional_kwargs={"reasoning_content": "think <i>"}),
    ])


def test_a_run_of_messages_is_one_chat_of_bubbles_in_order():
    turns = research()
    out = chat_html(turns, turns, show_ids=False, everything=False)
    assert out.startswith(f'<div class="{CHAT_CLASS}">') and out.count(f'class="{MESSAGE_CLASS} ') == 4
    assert [int(i) for _, attrs in Tags(out).tags for k, i in attrs if k == "data-index"] == [0, 1, 2, 3]
    assert "<b>user</b> · #0" in out and "<strong>two</strong>" in out  # a person's words are Markdown


def test_calls_results_reasoning_and_ids_are_where_the_streamlit_bubble_has_them():
    turns = research()
    assistant = turn_html(turns[1], turns, show_ids=False, everything=False)
    assert assistant.count("<details") == 2 and "web_fetch · answered by message #2" in assistant
    assert "web_fetch · no result yet" in assistant
    assert '&quot;deep&quot;: {\n    &quot;x&quot;: [\n      1,' in assistant  # the arguments as indented JSON
    assert "# page a\n&lt;b&gt;raw&lt;/b&gt;" in assistant  # the result under its call, as plain text
    assert "call id" not in assistant and "id <code>" not in assistant
    with_ids = turn_html(turns[1], turns, show_ids=True, everything=False)
    assert "id <code>m1</code>" in with_ids and "call id <code>c1</code>" in with_ids
    tool = turn_html(turns[2], turns, show_ids=True, everything=False)
    assert "result of the call in message #1" in tool and "(call id <code>c1</code>)" in tool
    assert '<pre class="si-plain"># page a\n&lt;b&gt;raw&lt;/b&gt;</pre>' in tool  # a tool's output is never Markdown
    answer = turn_html(turns[3], turns, show_ids=False, everything=False)
    assert "<summary>Reasoning</summary>" in answer and "think &lt;i&gt;" in answer


def test_the_links_a_text_names_are_behind_a_click_and_nowhere_else():
    turns = research()
    answer = turn_html(turns[3], turns, show_ids=False, everything=False)
    parsed = Tags(answer)
    anchors = [dict(attrs) for tag, attrs in parsed.tags if tag == "a"]
    assert [a["href"] for a in anchors] == ["https://example.com/a", "https://example.com/b"]
    assert all(a["target"] == "_blank" and a["rel"] == "noopener noreferrer" for a in anchors)
    assert "2 link(s) in this text" in answer
    assert "<code>https://example.com/a</code>" in answer  # in the text itself, a URL is code, not a link


def test_hidden_stripped_attachments_and_subagents_are_said():
    uploads = "<current_uploads>\n- a.csv (1.0 KB)\n  Path: /mnt/user-data/uploads/a.csv\n</current_uploads>"
    files = [{"filename": "a.csv", "size": 1024, "path": "/mnt/user-data/uploads/a.csv", "status": "uploaded"}]
    turns = conversation([
        msg("human", f"{uploads}\n\nSum column B.", additional_kwargs={"files": files}),
        msg("ai", "", tool_calls=[{"id": "t1", "name": "task", "args": {"description": "sum"}}]),
        msg("tool", "Task Succeeded. Result: 42", name="task", tool_call_id="t1",
            additional_kwargs={"subagent_status": "completed", "subagent_model_name": "m1"}),
        msg("human", "ctx", additional_kwargs={"hide_from_ui": True}),
    ])
    user = turn_html(turns[0], turns, show_ids=False, everything=False)
    assert "a.csv · 1.0 KB · /mnt/user-data/uploads/a.csv · uploaded" in user
    assert "&lt;current_uploads&gt; block" in user and "Sum column B." in user and "Path:" not in user
    assert "Path:" in turn_html(turns[0], turns, show_ids=False, everything=True)  # as stored on request
    assert "subagent completed" in turn_html(turns[2], turns, show_ids=False, everything=False)
    hidden = turn_html(turns[3], turns, show_ids=False, everything=True)
    assert "si-badge si-orange" in hidden and "hides it: " in hidden


def test_what_needs_a_widget_stays_a_streamlit_bubble():
    files = [{"filename": "a.csv", "size": 1, "path": "/mnt/user-data/uploads/a.csv", "status": "uploaded"}]
    plain, attached, long_text, long_tool = conversation([
        msg("human", "hi"), msg("human", "see", additional_kwargs={"files": files}),
        msg("ai", "x" * (DISPLAY_CHARS + 1)), msg("tool", "y" * (DISPLAY_CHARS + 1), tool_call_id="c"),
    ])
    assert not needs_widgets(plain, everything=False, can_open=True)
    assert needs_widgets(attached, everything=False, can_open=True)  # its file can be opened
    assert not needs_widgets(attached, everything=False, can_open=False)
    assert needs_widgets(long_text, everything=False)  # cut for display: its download
    assert needs_widgets(long_tool, everything=False)  # a tool's output too: cut for display, its download
    assert needs_widgets(plain, everything=True, images=[object()])  # a thumbnail


def test_hostile_messages_become_text_and_the_codes_markup_only():
    payload = hostile_markdown(TRACKER)
    turns = conversation([
        msg("human", payload, id=payload[:80], name="<img src=x onerror=alert(1)>"),
        msg("ai", payload, tool_calls=[{"id": "<c>", "name": "<script>x</script>", "args": {"<k>": payload}}],
            additional_kwargs={"reasoning_content": payload}, status="<b>error</b>"),
        msg("tool", payload, tool_call_id="<c>", name='"><svg onload=alert(1)>'),
    ])
    out = chat_html(turns, turns, show_ids=True, everything=True)
    parsed = Tags(out)
    assert {tag for tag, _ in parsed.tags} <= TAGS | OWN_TAGS | {"pre", "code"}
    assert {k for _, attrs in parsed.tags for k, _ in attrs} <= OWN_ATTRIBUTES
    hrefs = [v for _, attrs in parsed.tags for k, v in attrs if k == "href"]
    # only the http(s) links the text names, behind a click
    assert hrefs and set(hrefs) == set(links_in(payload)) and all(h.startswith("http") for h in hrefs)
    classes = {v for _, attrs in parsed.tags for k, v in attrs if k == "class"}
    assert all(c.startswith("si-") or " si-" in c for c in classes), classes  # the code's own, never the data's
    text = "".join(parsed.text)
    assert "<img src=x onerror=alert(1)>" in text and "<script>x</script>" in text and "onload=alert(1)" in text
