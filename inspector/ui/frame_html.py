"""A Play frame's words as one piece of HTML: the step, the node(s) that ran in their colours, the fields they
wrote, where the step is on the branch, and the diff or what the model saw; with the style that lights the
step's node(s) in the graph beside it.

One element holds all of it, so the browser replaces a frame's heading, its body and the graph's lit nodes in one
go: a frame is on screen whole or not at all, never one step's heading over another step's body. Every text from
the data is escaped (``_text``: no tag, no entity, no link of the data's reaches the page; bidi controls and bytes
that are not UTF-8 spelled out) and cut to a length a room can read; the markup, classes and colours are the
code's own. Pure: no Streamlit here, so the pieces are tested as strings.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Sequence

from ..diff import StateDiff
from ..profiles import in_force
from ..safety.display_text import bidi_shown
from ..state.model_input import ModelInput, SeenMessage
from ..store.not_utf8 import shown

FRAME_CLASS = "si-frame"
LINE_CHARS = 160  # of one line of a frame's body
MESSAGE_CHARS = 280  # of one message's text
CHANGES_PER_FIELD = 4
FIELDS = 8
MESSAGES = 3  # the newest messages the model saw, shown whole
STATUS_MARKS = {"changed": "✎", "added": "+", "removed": "−", "written": "✎"}


def _text(value: object, limit: int = LINE_CHARS) -> str:
    """``value`` as escaped HTML text, cut at ``limit`` characters (with an ellipsis)."""
    text = bidi_shown(shown(str(value)))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return html.escape(text, quote=True)


@dataclass(frozen=True)
class Ran:
    """Who made the step: its nodes with their colours, the fields they wrote, or what made it (no task)."""

    step: str  # the step's number as text ("12", "?")
    nodes: Sequence[tuple[str, str]]  # (node, colour)
    fields: Sequence[str]
    what: str = ""  # input, update, fork, ...: what made a step no task ran
    note: str = ""
    failed: bool = False
    cancelled: bool = False  # a task of it was cancelled (LangGraph stopped it when a task beside it failed)


def heading(ran: Ran, index: int, length: int) -> str:
    """``Step 12 · [agent] → [messages]`` with a bar of the branch done so far and ``13 of 36 on this branch``."""
    done = 100 * (index + 1) / max(length, 1)
    if ran.nodes:
        who = " ".join(f'<span class="si-node" style="background:{c}40;border-color:{c}">{_text(n, 60)}</span>'
                       for n, c in ran.nodes)
        wrote = " ".join(f'<span class="si-field">{_text(f, 60)}</span>' for f in ran.fields)
        what = f"{who} <span class='si-arrow'>→</span> {wrote or '<span class=si-none>no field</span>'}"
    else:
        what = f'<span class="si-node si-none">{_text(ran.what or "?", 60)}</span>'
    failed = (' <span class="si-failed">failed</span>' if ran.failed else "") + (
        ' <span class="si-cancelled">cancelled</span>' if ran.cancelled else "")
    note = f'<div class="si-note">{_text(ran.note)}</div>' if ran.note else ""
    return (f'<div class="si-where"><div class="si-bar"><div style="width:{done:.1f}%"></div></div>'
            f'<span>{index + 1} of {length} on this branch</span></div>'
            f'<div class="si-head">Step {_text(ran.step, 20)} · {what}{failed}</div>{note}')


def diff_body(result: StateDiff | None, first: bool = False) -> str:
    """What each field became: a line per changed field (its status, name and reducer), its first changes."""
    if first or result is None:
        return '<p class="si-quiet">The first checkpoint of this namespace: there is no parent to compare with.</p>'
    changed = result.changed_fields
    if not changed:
        return '<p class="si-quiet">No field changed.</p>'
    parts = ['<div class="si-title">What the state became</div>']
    for item in changed[:FIELDS]:
        mark = STATUS_MARKS.get(item.status, "·")
        parts.append(f'<div class="si-field-line"><span class="si-mark">{mark}</span> <b>{_text(item.field, 80)}</b>'
                     f' <span class="si-quiet">{_text(item.reducer_label, 60)} · {_text(item.status, 20)}</span></div>')
        lines = [f"<li>{_text(c.summary)}</li>" for c in item.changes[:CHANGES_PER_FIELD]]
        if len(item.changes) > CHANGES_PER_FIELD:
            lines.append(f'<li class="si-quiet">… {len(item.changes) - CHANGES_PER_FIELD:,} more change(s)</li>')
        if item.note:
            lines.append(f'<li class="si-quiet">{_text(item.note)}</li>')
        if lines:
            parts.append("<ul>" + "".join(lines) + "</ul>")
    if len(changed) > FIELDS:
        parts.append(f'<p class="si-quiet">… {len(changed) - FIELDS:,} more field(s) changed</p>')
    unchanged = sum(1 for f in result.fields if not f.changed)
    if unchanged:
        parts.append(f'<p class="si-quiet">{unchanged:,} field(s) unchanged</p>')
    return "".join(parts)


def _message(message: SeenMessage) -> str:
    turn = message.turn
    who = turn.role + (f" · {turn.name}" if turn.name else "")
    text = turn.text or ", ".join(f"calls {call.name}" for call in turn.tool_calls) or f"({turn.type})"
    extra = []
    if turn.tool_calls and turn.text:
        extra.append("calls " + ", ".join(call.name for call in turn.tool_calls))
    if message.images:
        extra.append(f"{len(message.images)} image(s)")
    if message.transient:
        extra.append("in the state for this call only")
    if turn.hidden:
        extra.append(f"hidden in {in_force().title}'s UI")
    tail = f' <span class="si-quiet">({_text("; ".join(extra))})</span>' if extra else ""
    return f'<div class="si-message"><b>{_text(who, 60)}</b>{tail}<div>{_text(text, MESSAGE_CHARS)}</div></div>'


def model_body(seen: ModelInput | None, no_call: str) -> str:
    """What the model saw: how many messages, the newest ``MESSAGES`` of them, then what the step added."""
    if seen is None:
        return f'<p class="si-quiet">{_text(no_call)}</p>'
    earlier = len(seen.seen) - MESSAGES
    parts = [f'<div class="si-title">The model received {len(seen.seen):,} message(s)</div>']
    if earlier > 0:
        parts.append(f'<p class="si-quiet">… {earlier:,} earlier message(s)</p>')
    parts += [_message(m) for m in seen.seen[-MESSAGES:]]
    parts.append('<div class="si-title">What the step added</div>')
    parts += [_message(m) for m in seen.added[-MESSAGES:]] or ['<p class="si-quiet">No new message.</p>']
    return "".join(parts)


def frame(step: str, head: str, body: str, style: str = "") -> str:
    """The frame's one piece of HTML: ``style`` (the graph's lit nodes) first, then the heading and the body, each
    marked with the step (``data-step``) so a test can tell which step each part shows."""
    step = _text(step, 20)
    return (f"<style>{style}</style>" if style else "") + (
        f'<div class="{FRAME_CLASS}" data-step="{step}"><div class="si-heading" data-step="{step}">{head}</div>'
        f'<div class="si-body" data-step="{step}">{body}</div></div>')


def caption(text: str, style: str = "") -> str:
    """A line under a graph saying what is lit, with the style lighting it (one element: they change together)."""
    return (f"<style>{style}</style>" if style else "") + f'<p class="si-caption">{_text(text, 400)}</p>'


def problem(message: str) -> str:
    """A part of a frame that could not be read, saying why."""
    return f'<p class="si-problem">{_text(message, 400)}</p>'
