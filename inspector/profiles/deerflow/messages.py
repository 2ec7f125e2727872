"""What DeerFlow's chat UI does with a message: hide it, strip tags from its text, show its files and subagent result.

The rules follow DeerFlow's frontend (``frontend/src/core/messages/utils.ts`` and
``core/tasks/subtask-result.ts``), re-implemented here:

- hidden: ``additional_kwargs.hide_from_ui`` is ``true``; the message is named
  ``summary``, ``loop_warning``, ``todo_reminder`` or ``todo_completion_reminder``;
  a human message whose only text is a ``<slash_skill_activation>`` block. The UI
  draws only human, assistant and tool messages, and no empty assistant message.
- stripped: a human message loses whole ``<current_uploads>``, ``<uploaded_files>``
  and ``<slash_skill_activation>`` blocks; assistant Markdown loses the
  ``<current_uploads>``, ``<uploaded_files>``, ``<slash_skill_activation>``,
  ``<system-reminder>``, ``<memory>`` and ``<current_date>`` tags themselves (their
  content stays), except inside code blocks.
- attachments: ``additional_kwargs.files``, else the files listed in an upload block.
- subagent results: ``task`` tool messages carry ``subagent_*`` keys in ``additional_kwargs``.
- transient: the view-image middleware's image context is in the state for one model call
  (``model_input.transient_reason``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterator

from ...store.not_utf8 import named
from ..chat import Attachment, SubagentResult
from .model_input import transient_reason  # noqa: F401 - part of the chat rules (``Profile.chat``)

HIDDEN_CONTROL_NAMES = ("summary", "loop_warning", "todo_reminder", "todo_completion_reminder")
HUMAN_BLOCK_TAGS = ("current_uploads", "uploaded_files", "slash_skill_activation")
INTERNAL_MARKER_TAGS = (*HUMAN_BLOCK_TAGS, "system-reminder", "memory", "current_date")
SHOWN_TYPES = ("human", "ai", "tool")

TAG_ORIGINS = {
    "current_uploads": "the uploads middleware",
    "uploaded_files": "the uploads middleware (older DeerFlow)",
    "slash_skill_activation": "the skill-activation middleware",
    "system-reminder": "the dynamic-context middleware",
    "memory": "the dynamic-context middleware",
    "current_date": "the dynamic-context middleware",
}
HIDDEN_ORIGINS = (  # additional_kwargs flag -> who writes such hidden messages
    ("deerflow_view_image_context", "the view-image middleware's transient image context"),
    ("dynamic_context_reminder", "the dynamic-context middleware's reminder"),
    ("slash_skill_activation", "the skill-activation middleware"),
    ("human_input_response", "an answer given on a question card"),
)
IMAGE_CONTEXT_PREFIX = "Here are the images you've viewed"

# Blocks are found by ``_blocks`` (an opening tag, then the first closing tag of its name, found with
# ``str.find``): linear in the text, where a lazy pattern with a back-reference rescans the rest of the text
# from every opening that never closes (quadratic on a message of repeated openings).
_HUMAN_BLOCK_OPEN = re.compile(r"<(current_uploads|uploaded_files|slash_skill_activation)>")
# attributes never cross a "<": an opening that never closes is read up to the next tag only (linear)
_MARKER_RE = re.compile(r"</?(?:%s)(?:\s[^<>]*)?/?>" % "|".join(re.escape(t) for t in INTERNAL_MARKER_TAGS))
_MARKER_NAME_RE = re.compile(r"</?([a-z_-]+)")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INDENTED_CODE_RE = re.compile(r"^(?: {4}|\t)")
_UPLOAD_BLOCK_OPEN = re.compile(r"<(current_uploads|uploaded_files)>")
# one listed file per line, "- name (12.3 KB)", its "Path: ..." on the next line with text; matched at the
# line's start, so a long line is read a bounded number of times
_UPLOADED_FILE_LINE = re.compile(r"- (.+)\(([\d.]+[ \t]*(?:B|KB|MB|GB|TB))\)[ \t]*$", re.IGNORECASE)
_PATH_LINE = re.compile(r"Path:[ \t]*(\S.*)$")
_SIZE_RE = re.compile(r"([\d.]+)\s*(B|KB|MB|GB|TB)?", re.IGNORECASE)
_SIZE_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}

SUBAGENT_KEYS = ("subagent_status", "subagent_stop_reason", "subagent_error", "subagent_result_brief",
                 "subagent_result_sha256", "subagent_model_name", "subagent_token_usage")
SUBAGENT_STOP_REASONS = ("token_capped", "turn_capped", "loop_capped")
# backend status -> the card's pill; max_turns_reached is a legacy value DeerFlow still reads
SUBAGENT_PILLS = {"completed": "completed", "failed": "failed", "cancelled": "failed", "timed_out": "failed",
                  "polling_timed_out": "failed", "max_turns_reached": "failed"}
_LEGACY_RESULT_PREFIXES = (("Task Succeeded. Result:", "completed"), ("Task failed.", "failed"),
                           ("Task timed out", "failed"), ("Task cancelled by user.", "failed"),
                           ("Task polling timed out", "failed"))


@dataclass(frozen=True)
class Stripped:
    """One tag DeerFlow's UI removes from a message's text: a whole block, or only its tags."""

    tag: str
    whole_block: bool
    count: int
    chars: int  # characters removed

    @property
    def note(self) -> str:
        origin = TAG_ORIGINS.get(self.tag, "a DeerFlow middleware")
        times = f" ×{self.count}" if self.count > 1 else ""
        if self.whole_block:
            return (f"DeerFlow's UI removes the <{self.tag}> block{times} ({self.chars:,} characters), "
                    f"added by {origin}")
        return f"DeerFlow's UI removes the <{self.tag}> tags{times} (written by {origin}) and shows what they enclose"


def _kwargs(message: dict[str, Any]) -> dict[str, Any]:
    kwargs = message.get("additional_kwargs")
    return kwargs if isinstance(kwargs, dict) else {}


def message_text(message: dict[str, Any]) -> str:
    """The message's text as DeerFlow extracts it: text blocks joined by newlines, trimmed."""
    content = message.get("content")
    if isinstance(content, str):
        return content.strip()
    if isinstance(content, list):
        texts = [b if isinstance(b, str) else str(b.get("text", "")) if isinstance(b, dict) and b.get("type") == "text"
                 else "" for b in content]
        return "\n".join(texts).strip()
    return ""


def strip_human_blocks(text: str) -> tuple[str, list[Stripped]]:
    """A human message's text as DeerFlow's UI shows it: upload and skill-activation blocks removed, trimmed."""
    removed: dict[str, list[int]] = {}
    kept: list[str] = []
    pos = 0
    for tag, start, _, _, end in _blocks(text, _HUMAN_BLOCK_OPEN):
        removed.setdefault(tag, []).append(end - start)
        kept.append(text[pos:start])
        pos = end
    if not removed:
        return text, []
    kept.append(text[pos:])
    return "".join(kept).strip(), [Stripped(tag, True, len(sizes), sum(sizes)) for tag, sizes in removed.items()]


def _blocks(text: str, opening: re.Pattern[str]) -> Iterator[tuple[str, int, int, int, int]]:
    """``(tag, start, body start, body end, end)`` of each block in ``text``: an opening tag up to the first
    closing tag of its name, left to right. A name that never closes is searched for once (linear)."""
    unclosed: set[str] = set()
    pos = 0
    while True:
        found = opening.search(text, pos)
        if found is None:
            return
        tag = found.group(1)
        pos = found.end()
        if tag in unclosed:
            continue
        close = text.find(f"</{tag}>", pos)
        if close < 0:
            unclosed.add(tag)
            continue
        end = close + len(tag) + 3
        yield tag, found.start(), found.end(), close, end
        pos = end


def strip_marker_tags(text: str) -> tuple[str, list[Stripped]]:
    """Assistant Markdown as DeerFlow's UI renders it: internal tags dropped (content kept) outside code blocks."""
    if "<" not in text:
        return text, []
    removed: dict[str, list[int]] = {}
    fence: str | None = None
    lines = []
    for line in text.split("\n"):
        opening = _FENCE_RE.match(line)
        if opening:
            marker = opening.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
        elif fence is None and not _INDENTED_CODE_RE.match(line):
            for match in _MARKER_RE.finditer(line):
                removed.setdefault(_MARKER_NAME_RE.match(match.group(0)).group(1), []).append(len(match.group(0)))
            line = _MARKER_RE.sub("", line)
        lines.append(line)
    if not removed:
        return text, []
    return "\n".join(lines), [Stripped(tag, False, len(sizes), sum(sizes)) for tag, sizes in removed.items()]


def displayed_text(kind: str, text: str) -> tuple[str, list[Stripped]]:
    """``text`` of a message of type ``kind`` as DeerFlow's UI displays it, and what it removed."""
    if kind == "human":
        return strip_human_blocks(text)
    if kind == "ai":
        return strip_marker_tags(text)
    return text, []


def _hidden_origin(message: dict[str, Any]) -> str | None:
    kwargs = _kwargs(message)
    for flag, origin in HIDDEN_ORIGINS:
        if kwargs.get(flag):
            return origin
    if message.get("type") == "human" and message_text(message).startswith(IMAGE_CONTEXT_PREFIX):
        return "images injected for the model by the view-image middleware"
    return None


def hidden_reason(message: dict[str, Any]) -> str | None:
    """Why DeerFlow's chat UI does not show this message, or None when it does."""
    kind = message.get("type")
    if _kwargs(message).get("hide_from_ui") is True:
        origin = _hidden_origin(message)
        return "marked hide_from_ui" + (f": {origin}" if origin else "")
    name = message.get("name")
    if isinstance(name, str) and name in HIDDEN_CONTROL_NAMES:
        return f"a {name} control message"
    if kind == "human":
        text = message_text(message)
        if "<slash_skill_activation>" in text and not strip_human_blocks(text)[0]:
            return "only a <slash_skill_activation> block"
        return None
    if kind not in SHOWN_TYPES:
        return f"a {kind} message: DeerFlow's UI draws only human, assistant and tool messages"
    if kind == "ai" and not _has_content(message) and not message.get("tool_calls") and not _reasoning(message):
        return "an empty assistant message"
    return None


def _has_content(message: dict[str, Any]) -> bool:
    content = message.get("content")
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and len(content) > 0


def _reasoning(message: dict[str, Any]) -> str | None:
    reasoning = _kwargs(message).get("reasoning_content")
    return reasoning if isinstance(reasoning, str) and reasoning else None


def reasoning_text(message: dict[str, Any]) -> str | None:
    """An assistant message's ``additional_kwargs.reasoning_content``, which DeerFlow shows folded."""
    return _reasoning(message) if message.get("type") == "ai" else None


def _size_in_bytes(raw: str) -> int:
    match = _SIZE_RE.search(raw.strip())
    if not match:
        return 0
    try:
        value = float(match.group(1))
    except ValueError:
        return 0
    return round(value * _SIZE_UNITS[(match.group(2) or "B").upper()])


def parse_upload_block(text: str) -> list[Attachment]:
    """Files listed in the first ``<current_uploads>`` / ``<uploaded_files>`` block of ``text``."""
    block = next(_blocks(text, _UPLOAD_BLOCK_OPEN), None)
    if block is None:
        return []
    tag, _, body_start, body_end, _ = block
    body = text[body_start:body_end]
    if "No files have been uploaded yet." in body or "(empty)" in body:
        return []
    source = f"<{tag}> block"
    found = []
    lines = [line.strip() for line in body.split("\n")]
    for i, line in enumerate(lines):
        listed = _UPLOADED_FILE_LINE.match(line)
        if listed is None:
            continue
        following = next((other for other in lines[i + 1:i + 20] if other), "")
        path = _PATH_LINE.match(following)
        if path is not None:
            found.append(Attachment(listed.group(1).strip(), _size_in_bytes(listed.group(2)), path.group(1).strip(),
                                    None, source))
    return found


def attachments(message: dict[str, Any]) -> list[Attachment]:
    """The files DeerFlow shows with a message: ``additional_kwargs.files``, else an upload block's list."""
    files = _kwargs(message).get("files")
    if isinstance(files, list) and files:
        found = []
        for item in files:
            entry = item if isinstance(item, dict) else {"filename": item}
            size = entry.get("size")
            found.append(Attachment(
                str(entry.get("filename", "?")),
                size if isinstance(size, int) and not isinstance(size, bool) else None,
                entry.get("path") if isinstance(entry.get("path"), str) else None,
                entry.get("status") if isinstance(entry.get("status"), str) else None,
                "additional_kwargs.files",
            ))
        return found
    text = message_text(message)
    if "<current_uploads>" in text or "<uploaded_files>" in text:
        return parse_upload_block(text)
    return []


def _token_usage(value: Any) -> dict[str, int] | None:
    if not isinstance(value, dict):
        return None
    usage = {}
    for key in ("input_tokens", "output_tokens", "total_tokens"):
        amount = value.get(key)
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount < 0:
            return None
        usage[key] = int(amount)
    return usage


def _text_or_none(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def subagent_result(message: dict[str, Any]) -> SubagentResult | None:
    """The subagent result of a ``task`` tool message (None for other messages)."""
    if message.get("type") != "tool":
        return None
    kwargs = _kwargs(message)
    if not any(key in kwargs for key in SUBAGENT_KEYS):
        if message.get("name") != "task":
            return None
        text = message_text(message)
        status = next((s for prefix, s in _LEGACY_RESULT_PREFIXES if text.startswith(prefix)), None)
        if status is None and re.match(r"Error\b", text, re.IGNORECASE):
            status = "failed"
        return SubagentResult(status, status or "in_progress", legacy=True)
    problems = []
    status = kwargs.get("subagent_status")
    pill = SUBAGENT_PILLS.get(status) if isinstance(status, str) else None
    if pill is None:
        problems.append(f"subagent_status {named(status)} is not one DeerFlow knows: its card shows the task as still running")
    stop = kwargs.get("subagent_stop_reason")
    if stop is not None and stop not in SUBAGENT_STOP_REASONS:
        problems.append(f"subagent_stop_reason {named(stop)} is not one DeerFlow knows")
    usage = _token_usage(kwargs.get("subagent_token_usage"))
    if "subagent_token_usage" in kwargs and usage is None:
        problems.append("subagent_token_usage is not {input_tokens, output_tokens, total_tokens} as non-negative numbers")
    return SubagentResult(
        status=status if isinstance(status, str) else None,
        pill=pill or "in_progress",
        stop_reason=stop if isinstance(stop, str) else None,
        error=_text_or_none(kwargs.get("subagent_error")),
        result_brief=_text_or_none(kwargs.get("subagent_result_brief")),
        result_sha256=_text_or_none(kwargs.get("subagent_result_sha256")),
        model_name=_text_or_none(kwargs.get("subagent_model_name")),
        token_usage=usage,
        problems=problems,
    )
