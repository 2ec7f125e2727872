"""The texts of a thread the search index holds, read from a state's values or a step's writes as the thread's
profile names its fields (``profiles.searched``), and masked before anything is kept.

A text is kept as the views would show it with its secrets masked, but each mark is the bare ``[redacted
<kind>]``: no length class and no hash (the views' marks carry a hash keyed per process or by
``redact_hash_key``, which could confirm a guess). The words searched are the masked text's words, marks left
out, so neither a secret nor its mark can be searched for. Every transform here runs in time linear in the
text's length; a text is cut at ``TEXT_CHARS`` characters.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..cache.search import words  # noqa: F401 - the index's words: read here beside the query's
from ..safety.redaction import Redactor
from ..store.decode import overwritten

TEXT_CHARS = 50_000  # characters of one text kept (its head)
SNIPPET_CHARS = 120  # characters of a hit's snippet, around the first word matched
_WORD = re.compile(r"[^\W_]+")
_SPACE = re.compile(r"\s+")
MESSAGE_ROLES = {"human": "human message", "HumanMessageChunk": "human message", "ai": "AI message",
                 "AIMessageChunk": "AI message"}


@dataclass(frozen=True)
class Found:
    """One text of a state or of a write: the field holding it, what it is (``human message``, ``AI message``,
    ``tool call``, ``title``, ``file``, ``value``) and the text as stored (not yet masked)."""

    field: str
    kind: str
    text: str


class IndexMask(Redactor):
    """The views' rules, marking each secret ``[redacted <kind>]`` alone."""

    def mark(self, kind: str, secret: str) -> str:
        return f"[redacted {kind}]"


@lru_cache(maxsize=4)
def _mask(patterns: tuple[str, ...]) -> IndexMask:
    return IndexMask(patterns)


def index_mask(settings: Any = None) -> IndexMask:
    """The mask for the index: the operator's ``redact_patterns`` too."""
    if settings is None:
        from ..settings import load_settings

        settings = load_settings()
    return _mask(tuple(getattr(settings, "redact_patterns", ()) or ()))


def storable(text: str) -> str:
    """``text`` as every cache backend can hold it: cut, no NUL, no lone surrogate."""
    text = text[:TEXT_CHARS]
    if "\x00" in text:
        text = text.replace("\x00", " ")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text


def masked(text: str, mask: Redactor) -> str:
    """The text kept for the index and shown in a snippet."""
    return mask.text(storable(text))


def query_words(search: str) -> list[str]:
    """A search's words, as ``words`` splits a text (each matched as a word's beginning)."""
    return list(dict.fromkeys(_WORD.findall(search.lower())))[:32]


def digest(kind: str, shown: str) -> str:
    """Tells two kept texts of a thread apart (the text is kept beside it: it adds nothing to what is held)."""
    return hashlib.sha256(f"{kind}\x00{shown}".encode("utf-8", "replace")).hexdigest()[:16]


def snippet(shown: str, search_words: list[str], width: int = SNIPPET_CHARS) -> str:
    """About ``width`` characters of ``shown`` around the first place a word of the search begins a word, on
    one line; the text's start when none does (a match by id or metadata)."""
    lowered = shown.lower()
    at = -1
    for word in search_words:
        for match in re.finditer(re.escape(word), lowered):
            start = match.start()
            if start == 0 or not lowered[start - 1].isalnum():
                at = start if at < 0 else min(at, start)
                break
    at = max(at, 0)
    start = max(0, at - width // 3)
    piece = _SPACE.sub(" ", shown[start : start + width]).strip()
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(shown) else "")


# -- reading texts out of values -----------------------------------------------------------------------


def _text_of(content: Any) -> str:
    """A message's text: a string, or the text parts of a list of parts (images and files left out)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def looks_like_message(item: Any) -> bool:
    return isinstance(item, dict) and isinstance(item.get("type"), str) and "content" in item


def _call_text(call: Any) -> str | None:
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        return None
    args = call.get("args")
    try:
        shown = json.dumps(args, ensure_ascii=False, default=str)[:TEXT_CHARS] if args is not None else ""
    except (TypeError, ValueError, RecursionError):
        shown = ""
    return f"{call['name']}({shown})"


def message_texts(field: str, value: Any) -> list[Found]:
    """The human and AI text of LangChain messages, and the AI's tool calls (name and arguments)."""
    wrapped, inner = overwritten(value)
    items = inner if wrapped else value
    items = items if isinstance(items, list) else [items]
    found: list[Found] = []
    for item in items:
        if isinstance(item, str):  # add_messages takes a bare string as a human message
            found.append(Found(field, "human message", item))
            continue
        if not looks_like_message(item):
            continue
        role = MESSAGE_ROLES.get(item["type"])
        if role is None:
            continue
        text = _text_of(item.get("content"))
        if text.strip():
            found.append(Found(field, role, text))
        calls = item.get("tool_calls") if role == "AI message" else None
        for call in calls if isinstance(calls, list) else ():
            shown = _call_text(call)
            if shown:
                found.append(Found(field, "tool call", shown))
    return found


def file_texts(field: str, value: Any) -> list[Found]:
    """File names: a list of paths or of entries naming ``filename``, ``name`` or ``path``; a mapping by path."""
    wrapped, inner = overwritten(value)
    value = inner if wrapped else value
    names: list[str] = []
    if isinstance(value, dict):
        names = [k for k in value if isinstance(k, str)]
    elif isinstance(value, list):
        for entry in value:
            if isinstance(entry, str):
                names.append(entry)
            elif isinstance(entry, dict):
                named = [entry.get(k) for k in ("filename", "name", "path") if isinstance(entry.get(k), str)]
                names.extend(dict.fromkeys(named))
    return [Found(field, "file", name) for name in names if name.strip()]


def _looks_like_messages(value: Any) -> bool:
    wrapped, inner = overwritten(value)
    value = inner if wrapped else value
    items = value if isinstance(value, list) else [value]
    return bool(items) and any(looks_like_message(item) for item in items[:8])


def field_texts(field: str, kind: str | None, value: Any, strings: bool) -> list[Found]:
    """The texts of one field's value (a state's or a write's): by the ``kind`` its profile names (None: not
    named), any string value where ``strings``."""
    if kind == "messages":
        return message_texts(field, value) if _looks_like_messages(value) or isinstance(value, str) else []
    if kind == "files":
        return file_texts(field, value)
    wrapped, inner = overwritten(value)
    value = inner if wrapped else value
    if kind == "title":
        return [Found(field, "title", value)] if isinstance(value, str) and value.strip() else []
    if strings and isinstance(value, str) and value.strip():
        return [Found(field, "value", value)]
    return []


def values_texts(values: dict[str, Any], fields: dict[str, str], strings: bool) -> list[Found]:
    """Every text of a state's values (LangGraph's internal channels are not among them)."""
    found: list[Found] = []
    for name, value in values.items():
        if isinstance(name, str):
            found.extend(field_texts(name, fields.get(name), value, strings))
    return found


BOOKKEEPING = ("step", "source", "parents")  # LangGraph's own metadata: the same words in every thread


def metadata_text(metadata: Any, mask: Redactor) -> str | None:
    """A checkpoint's metadata as the index keeps it: masked as the views mask it (values under a secret's name
    too), LangGraph's bookkeeping left out, as JSON; None when nothing is left."""
    if not isinstance(metadata, dict):
        return None
    kept = {k: v for k, v in metadata.items() if k not in BOOKKEEPING}
    if not kept:
        return None
    try:
        return json.dumps(mask(kept), ensure_ascii=False, default=str)
    except (TypeError, ValueError, RecursionError):
        return None

