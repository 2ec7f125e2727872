"""Messages read as a conversation, the way a chat UI shows them.

Each message becomes a ``Turn``: its role, name, content parts (text, images,
other blocks), the tool calls it made (each matched to the tool message that
answered it) or the call it answers. What the app's chat UI does with it rides
along, from the chat rules of the thread's profile (``Profile.chat``; DeerFlow's:
``inspector.profiles.deerflow.messages``): why it is hidden (marked, never
dropped), its text with the UI's tag stripping and a note of what was stripped,
its attached files, and a ``task`` result's subagent status. A profile without
chat rules (generic LangGraph) hides, strips and attaches nothing.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..profiles import in_force
from ..store.not_utf8 import quoted

if TYPE_CHECKING:
    from ..profiles.chat import Attachment, SubagentResult

# An app's record of text its chat UI strips from a message (its ``tag``, ``whole_block``, ``count``, ``chars`` and
# ``note``), as its chat rules' ``displayed_text`` returns it.
Stripped = Any

ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system", "function": "tool"}


@dataclass(frozen=True)
class Part:
    kind: str  # "text", "image" or "other"
    text: str = ""
    mime_type: str | None = None
    size: int | None = None  # decoded bytes of an inline image
    source: str | None = None  # an image's URL or path (never the inline base64 itself)
    raw: Any = None


@dataclass
class ToolCall:
    id: str | None
    name: str
    args: Any
    result: int | None = None  # index of the tool message that answered it


@dataclass
class Turn:
    index: int
    role: str
    type: str
    name: str | None
    id: str | None
    parts: list[Part]
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_call_id: str | None = None
    answers: int | None = None  # index of the message whose call this tool message answers
    status: str | None = None
    hidden: str | None = None  # why DeerFlow's chat UI does not show it
    notes: list[str] = field(default_factory=list)
    shown_parts: list[Part] = field(default_factory=list)  # the parts with DeerFlow's tag stripping applied
    stripped: list[Stripped] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    subagent: SubagentResult | None = None
    reasoning: str | None = None

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.parts if p.kind == "text" and p.text)


def _data_url(url: str) -> tuple[str | None, int | None]:
    """(mime type, decoded size) of a ``data:`` URL, without decoding it."""
    head, _, payload = url.partition(",")
    mime = head[5:].split(";", 1)[0] or None
    if ";base64" in head:
        return mime, len(payload) * 3 // 4 - payload[-2:].count("=")
    return mime, len(payload)


def _image_part(block: dict[str, Any]) -> Part:
    image = block.get("image_url")
    url = image.get("url") if isinstance(image, dict) else image if isinstance(image, str) else block.get("url")
    if isinstance(url, str) and url.startswith("data:"):
        mime, size = _data_url(url)
        return Part("image", mime_type=mime, size=size, source="inline data URL")
    data = block.get("data") or block.get("base64")
    if isinstance(data, str):
        mime = block.get("mime_type") or block.get("media_type")
        return Part("image", mime_type=mime, size=len(data) * 3 // 4, source="inline base64")
    return Part("image", mime_type=block.get("mime_type"), source=url if isinstance(url, str) else None)


def content_parts(content: Any) -> list[Part]:
    """Text, image and other blocks of a message's ``content`` (a string or a list of blocks)."""
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [Part("text", content)]
    if not isinstance(content, list):
        return [Part("other", json.dumps(content, default=str)[:2000], raw=content)]
    parts: list[Part] = []
    for block in content:
        if isinstance(block, str):
            parts.append(Part("text", block))
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(Part("text", str(block.get("text", ""))))
        elif isinstance(block, dict) and block.get("type") in ("image_url", "image", "input_image"):
            parts.append(_image_part(block))
        else:
            parts.append(Part("other", json.dumps(block, default=str)[:2000], raw=block))
    return parts


def _tool_calls(message: dict[str, Any]) -> list[ToolCall]:
    calls = message.get("tool_calls") or []
    out = []
    for call in calls if isinstance(calls, list) else []:
        if isinstance(call, dict):
            out.append(ToolCall(call.get("id"), str(call.get("name", "?")), call.get("args", {})))
    return out


def _displayed(kind: str, parts: list[Part], rules: Any) -> tuple[list[Part], list[Stripped]]:
    """``parts`` as DeerFlow's UI shows them (text parts stripped of its internal tags; emptied ones dropped)."""
    shown: list[Part] = []
    removed: dict[tuple[str, bool], Stripped] = {}
    for part in parts:
        if part.kind != "text":
            shown.append(part)
            continue
        text, stripped = rules.displayed_text(kind, part.text)
        for item in stripped:
            key = (item.tag, item.whole_block)
            before = removed.get(key)
            removed[key] = item if before is None else type(item)(
                item.tag, item.whole_block, before.count + item.count, before.chars + item.chars)
        if text:
            shown.append(Part("text", text) if stripped else part)
    return shown, list(removed.values())


def _subagent(message: dict[str, Any], rules: Any) -> SubagentResult | None:
    """A ``task`` result's subagent status, read the way the thread's app writes it (its chat rules:
    DeerFlow's ``subagent_*`` keys, deepagents' tool message status); none without such a rule."""
    rule = getattr(rules, "subagent_result", None)
    return rule(message) if rule is not None else None


def _rule(rules: Any, name: str, message: dict[str, Any]) -> Any:
    """What the app's chat rule ``name`` says of ``message``; None where its rules offer no such rule."""
    rule = getattr(rules, name, None)
    return rule(message) if rule is not None else None


def _turn(index: int, message: Any) -> Turn:
    if not isinstance(message, dict):
        return Turn(index, "unknown", "unknown", None, None, content_parts(message), hidden="not a message")
    kind = str(message.get("type") or "unknown")
    parts = content_parts(message.get("content"))
    rules = in_force().chat  # the app's chat UI rules: hidden kinds, tag stripping, attached files
    shown, stripped = _displayed(kind, parts, rules) if hasattr(rules, "displayed_text") else (parts, [])
    return Turn(
        index=index,
        role=ROLES.get(kind, kind),
        type=kind,
        name=message.get("name"),
        id=message.get("id"),
        parts=parts,
        tool_calls=_tool_calls(message),
        tool_call_id=message.get("tool_call_id"),
        status=message.get("status"),
        hidden=_rule(rules, "hidden_reason", message),
        shown_parts=shown,
        stripped=stripped,
        attachments=_rule(rules, "attachments", message) or [],
        subagent=_subagent(message, rules),
        reasoning=_rule(rules, "reasoning_text", message),
    )


def conversation(messages: Any) -> list[Turn]:
    """``messages`` (decoded message dicts) as turns, tool calls matched to their results."""
    turns = [_turn(i, m) for i, m in enumerate(messages if isinstance(messages, list) else [])]
    calls: dict[str, tuple[int, ToolCall]] = {}
    for turn in turns:
        for call in turn.tool_calls:
            if call.id:
                calls[call.id] = (turn.index, call)
        if turn.type == "tool" and turn.tool_call_id in calls:
            owner, call = calls[turn.tool_call_id]
            if call.result is None:
                call.result = turn.index
            turn.answers = owner
    for turn in turns:
        if turn.type == "tool" and turn.answers is None:
            turn.notes.append(f"answers call {quoted(str(turn.tool_call_id))}, which no earlier message made")
        for call in turn.tool_calls:
            if call.result is None:
                turn.notes.append(f"call {call.name} ({quoted(str(call.id))}) has no result yet")
    return turns


# Conversations ``kept_conversation`` keeps: the step a page shows, the one read ahead of it, a few more
KEPT = 8
_KEPT: OrderedDict[tuple[int, int], tuple[list, Any, list[Turn]]] = OrderedDict()
_KEPT_LOCK = threading.Lock()


def kept_conversation(messages: Any) -> list[Turn]:
    """``conversation(messages)``, kept for the same list under the same profile: a decoded state the dashboard
    keeps is read as a conversation once, whether its page runs again or the step was read ahead. The turns are
    shared: read them, never change them."""
    if not isinstance(messages, list):
        return conversation(messages)
    profile = in_force()
    key = (id(messages), id(profile))
    with _KEPT_LOCK:
        found = _KEPT.get(key)
        if found is not None and found[0] is messages and found[1] is profile:  # the list itself, not its id's heir
            _KEPT.move_to_end(key)
            return found[2]
    turns = conversation(messages)
    with _KEPT_LOCK:
        _KEPT[key] = (messages, profile, turns)  # held here: its id names no other list while it is kept
        _KEPT.move_to_end(key)
        while len(_KEPT) > KEPT:
            _KEPT.popitem(last=False)
    return turns


def counts(turns: list[Turn]) -> dict[str, int]:
    """Messages by role, plus how many a chat UI would hide."""
    out: dict[str, int] = {}
    for turn in turns:
        out[turn.role] = out.get(turn.role, 0) + 1
    out["hidden"] = sum(1 for t in turns if t.hidden)
    return out
