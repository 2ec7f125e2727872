"""Short descriptions of values: sizes, content hashes and first characters.

A diff of two multi-megabyte states must never render megabytes, so every value
that leaves this package goes through ``summarise`` first.
"""

from __future__ import annotations

import hashlib
import json
import reprlib
from typing import Any

from ..store.decode import Opaque

PREVIEW_CHARS = 80
INLINE_CHARS = 120
HASH_CHARS = 12


def content_hash(value: Any) -> str:
    """A short sha256 prefix of a value's content (strings and bytes hashed directly)."""
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
    elif isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
    else:
        data = json.dumps(value, sort_keys=True, default=repr, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def preview(text: str, limit: int = PREVIEW_CHARS) -> str:
    """The first ``limit`` characters of ``text`` on one line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def summarise(value: Any) -> Any:
    """``value`` itself when it is small, else a dict describing it without its content."""
    if isinstance(value, Opaque):
        return value.as_dict()
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        if len(value) <= INLINE_CHARS:
            return value
        return {"chars": len(value), "sha256": content_hash(value), "preview": preview(value)}
    if isinstance(value, (bytes, bytearray, memoryview)):
        return {"bytes": len(value), "sha256": content_hash(value)}
    if isinstance(value, (dict, list, tuple)):
        if _small(value):
            return value
        kind = "dict" if isinstance(value, dict) else "list"
        return {kind: len(value), "preview": preview(_BOUNDED.repr(value))}
    return preview(_BOUNDED.repr(value))


# Bounded work whatever the value's size: a few levels, items and characters.
def _bounded_repr() -> reprlib.Repr:
    bounded = reprlib.Repr()
    bounded.maxlevel, bounded.maxdict, bounded.maxlist, bounded.maxtuple = 3, 4, 4, 4
    bounded.maxstring = bounded.maxother = 40
    return bounded


_BOUNDED = _bounded_repr()


def _small(value: Any, budget: int = INLINE_CHARS) -> bool:
    """True when ``value`` prints in fewer than ``budget`` characters; stops early on big values."""
    stack = [value]
    used = 0
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            used += 2 + 2 * len(item)
            stack.extend(item.values())
            stack.extend(str(k) for k in item)
        elif isinstance(item, (list, tuple)):
            used += 2 + len(item)
            stack.extend(item)
        elif isinstance(item, str):
            used += len(item) + 2
        else:
            used += 8
        if used > budget:
            return False
    return True


ROLE_NAMES = {"human": "Human", "ai": "AI", "tool": "Tool", "system": "System", "remove": "Remove"}


def message_line(message: Any) -> str:
    """One line for a message dict: "AI: 2 tool calls: bash, present_files", "Human: 'Compare…'"."""
    if not isinstance(message, dict):
        return preview(repr(message))
    kind = str(message.get("type") or "unknown")
    role = ROLE_NAMES.get(kind, kind.capitalize())
    if kind == "tool" and message.get("name"):
        role = f"Tool {message['name']}"
    tool_calls = message.get("tool_calls")
    calls = [c for c in tool_calls if isinstance(c, dict)] if isinstance(tool_calls, list) else []
    text = _message_text(message.get("content"))
    if kind == "remove":
        return f"Remove: {message.get('id')}"
    if calls:
        names = ", ".join(str(c.get("name")) for c in calls)
        label = f"{len(calls)} tool call{'s' if len(calls) != 1 else ''}: {names}"
        return f"{role}: {label}" + (f" ({preview(text, 40)!r})" if text.strip() else "")
    return f"{role}: {preview(text, 70)!r}" if text else f"{role}: (empty)"


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
            elif isinstance(block, dict):
                parts.append(f"[{block.get('type', 'block')}]")
        return " ".join(parts)
    return "" if content is None else str(content)
