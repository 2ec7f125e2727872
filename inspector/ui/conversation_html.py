"""Messages as one piece of HTML: the chat bubbles of a run of messages, drawn by the browser in one go.

A long thread's conversation is the costliest part of a step: as Streamlit elements, each message is a chat
bubble holding a header, its Markdown, captions and expanders, each laid out again by the browser's script at
every step. Here a run of messages is one ``st.html`` element: bubbles, headers, text, the tool calls and the
reasoning behind native ``<details>``, the links a text names behind a click.

What needs a widget stays a Streamlit bubble (``conversation_view.show_turn``): an attachment the page can open,
an inline image's thumbnail, a text cut for display (its download). ``needs_widgets`` says which.

Inert by construction: text from the data is escaped (``inert_html.escaped``) or is Markdown made safe as HTML
(``inert_html.markdown_html``); the only URLs are the http(s) links a text names (``inert_text.links_in``), each an
escaped ``href`` that opens in a new tab only when clicked. Markup, classes and icons are the code's own. Pure: no
Streamlit here, so the pieces are tested as strings.
"""

from __future__ import annotations

import html
import json
from typing import Sequence

from ..formatting import human_bytes, to_jsonable
from ..profiles import in_force, knows
from ..profiles.pieces import HIDDEN_MESSAGES
from ..safety.display_text import cut_for_display, cut_long_strings, too_long
from ..safety.inert_html import escaped, markdown_html
from ..safety.inert_text import links_in
from ..state.conversation import Part, ToolCall, Turn

CHAT_CLASS = "si-chat"
MESSAGE_CLASS = "si-msg"
ICONS = {"user": "person", "assistant": "smart_toy", "tool": "build", "system": "settings"}
RESULT_CHARS = 4_000  # of a call's result under the call (the result's own message holds it all)
SUBAGENT_CHARS = 2_000
ARGS_CHARS = 20_000  # of a call's arguments as JSON text


def needs_widgets(turn: Turn, everything: bool, images: Sequence[object] = (), can_open: bool = False) -> bool:
    """Whether ``turn`` needs Streamlit widgets: an attachment the page can open (``can_open``), an inline image
    shown as a thumbnail (``images``, in *Show everything*), or a text (a tool's output, its reasoning) cut for
    display (its download)."""
    if (turn.attachments and can_open) or images:
        return True
    parts = turn.parts if everything else turn.shown_parts
    return (any(p.kind == "text" and too_long(p.text) for p in parts)
            or bool(turn.reasoning and too_long(turn.reasoning)))


def icon(name: str) -> str:
    """A Material Symbols icon (the font Streamlit's own icons use), by its code name."""
    return f'<span class="si-icon" aria-hidden="true">{name}</span>'


def _code(text: object) -> str:
    return f"<code>{escaped(text)}</code>"


def _caption(symbol: str, body: str) -> str:
    return f'<div class="si-cap">{icon(symbol)} {body}</div>'


def _plain(text: object) -> str:
    """A tool's output or other plain text: monospaced, line breaks and spaces kept (cut for display where a
    message's is long: ``needs_widgets`` draws such a message as a bubble offering the whole text)."""
    return f'<pre class="si-plain">{escaped(cut_for_display(text).text)}</pre>'


def header_bits(turn: Turn, show_ids: bool) -> list[tuple[str, str]]:
    """What a message's header says, as ``(kind, text)``: its role, name, status (when not a success), why it is
    hidden, id and index; the Streamlit bubble (``conversation_view``) and the HTML one each draw them."""
    bits = [("role", turn.role)]
    if turn.name:
        bits.append(("code", turn.name))
    if turn.status and turn.status != "success":
        bits.append(("status", turn.status))
    if turn.hidden:
        bits.append(("hidden", f"hidden in {in_force().title}'s UI" if knows(HIDDEN_MESSAGES) else "hidden"))
    if show_ids:
        bits.append(("id", str(turn.id)))
    return bits


_HEADER_HTML = {"role": "<b>{}</b>", "code": "<code>{}</code>", "status": '<span class="si-red">{}</span>',
                "hidden": '<span class="si-badge si-orange">{}</span>', "id": "id <code>{}</code>"}


def header(turn: Turn, show_ids: bool) -> str:
    """``role · name · status · hidden · id · #index`` (and, for a tool's result, the call it answers)."""
    bits = [_HEADER_HTML[kind].format(escaped(text)) for kind, text in header_bits(turn, show_ids)]
    bits.append(f"#{turn.index}")
    if turn.type == "tool" and turn.answers is not None:
        call_id = f" (call id {_code(turn.tool_call_id)})" if show_ids else ""
        bits.append(f'<span class="si-gray">result of the call in message #{turn.answers}</span>{call_id}')
    return '<div class="si-head-line">' + " · ".join(bits) + "</div>"


def _markdown(text: str) -> str:
    body = f'<div class="si-md">{markdown_html(text)}</div>'
    links = links_in(text)
    if not links:
        return body
    anchors = "".join(f'<li><a href="{html.escape(url, quote=True)}" target="_blank" rel="noopener noreferrer">'
                      f"{escaped(url)}</a></li>" for url in links)
    return (body + f'<details class="si-links"><summary>{icon("link")} {len(links)} link(s) in this text</summary>'
            '<div class="si-cap">Shown, never loaded by the dashboard: a link opens in a new tab only when clicked.'
            f"</div><ul>{anchors}</ul></details>")


def _image(part: Part) -> str:
    size = f", {human_bytes(part.size)}" if part.size is not None else ""
    return _caption("image", escaped(f"image ({part.mime_type or 'unknown type'}{size}) · {part.source or ''}"))


def _part(part: Part, as_text: bool) -> str:
    if part.kind == "text" and not as_text:
        return _markdown(part.text)
    if part.kind == "image":
        return _image(part)
    return _plain(part.text)


def _subagent(turn: Turn) -> str:
    result = turn.subagent
    if result is None:
        return ""
    colour = {"completed": "si-green", "failed": "si-red-badge"}.get(result.pill, "si-orange")
    out = [f'<div><span class="si-badge {colour}">subagent {escaped(result.summary)}</span></div>']
    out += [_plain(text[:SUBAGENT_CHARS]) for text in (result.error, result.result_brief) if text]
    out += [_caption("warning", escaped(problem)) for problem in result.problems]
    return "".join(out)


def _args(args: object) -> str:
    value, cut = cut_long_strings(to_jsonable(args))
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False, default=str)
    note = ""
    if cut or len(text) > ARGS_CHARS:
        note = _caption("content_cut", "Long text cut for display; the state's JSON download holds it whole.")
        text = text[:ARGS_CHARS]
    return note + _plain(text)


def _call(call: ToolCall, turns: Sequence[Turn], show_ids: bool) -> str:
    answered = f"answered by message #{call.result}" if call.result is not None else "no result yet"
    body = [f'<div class="si-cap">call id {_code(call.id)}</div>' if show_ids else "", _args(call.args)]
    if call.result is not None and call.result < len(turns):
        body += ['<div class="si-cap">result</div>', _plain(turns[call.result].text[:RESULT_CHARS])]
    return (f'<details class="si-call"><summary>{icon("build")} {escaped(call.name)} · {answered}</summary>'
            + "".join(body) + "</details>")


def turn_html(turn: Turn, turns: Sequence[Turn], show_ids: bool, everything: bool) -> str:
    """One message as a chat bubble: its header, why it is hidden, a subagent's result, its attachments, its
    reasoning, its parts, what was stripped from it, its tool calls and notes."""
    out = [header(turn, show_ids)]
    if turn.hidden:
        who = f"{in_force().title}'s UI hides it" if knows(HIDDEN_MESSAGES) else "hidden"
        out.append(_caption("visibility_off", f"{escaped(who)}: {escaped(turn.hidden)}"))
    out.append(_subagent(turn))
    for attachment in turn.attachments:
        size = f" · {human_bytes(attachment.size)}" if attachment.size is not None else ""
        status = f" · {attachment.status}" if attachment.status else ""
        out.append(_caption("attach_file", escaped(f"{attachment.filename}{size} · {attachment.path or 'no path'}"
                                                   f"{status}") + f" · <i>from {escaped(attachment.source)}</i>"))
    if turn.reasoning:
        out.append(f"<details><summary>Reasoning</summary>{_plain(turn.reasoning)}</details>")
    out += [_part(part, as_text=turn.type == "tool") for part in (turn.parts if everything else turn.shown_parts)]
    shown_note = " (shown above as stored)" if everything else ""
    out += [_caption("content_cut", escaped(stripped.note) + shown_note) for stripped in turn.stripped]
    out += [_call(call, turns, show_ids) for call in turn.tool_calls]
    out += [_caption("info", escaped(note)) for note in turn.notes]
    role = turn.role if turn.role in ICONS else "other"
    return (f'<div class="{MESSAGE_CLASS} si-{role}" data-index="{turn.index}">'
            f'<div class="si-avatar">{icon(ICONS.get(turn.role, "chat"))}</div>'
            f'<div class="si-content">{"".join(out)}</div></div>')


def chat_html(run: Sequence[Turn], turns: Sequence[Turn], show_ids: bool, everything: bool) -> str:
    """A run of messages, in order, as one element."""
    return f'<div class="{CHAT_CLASS}">' + "".join(turn_html(t, turns, show_ids, everything) for t in run) + "</div>"
