"""How deep one decoded value nests, measured without recursion: the one depth guard of the inspector.

Every walker over decoded values (masking, sizes, diffs, search, bundles, the CLI's JSON) recurses
into lists and maps. A value planted 100,000 levels deep would break each of them, and with them the
page or the store-wide answer they serve. So depth is checked once, where a value enters the
inspector: the decoder (``store.decode``) and every JSON read of stored data (``loads``) replace a value
nested deeper than ``MAX_DEPTH`` by a too-deep marker with a problem on its own field. Past this
module, every value is at most ``MAX_DEPTH`` deep, which every recursive walker handles well inside
Python's recursion limit.

JSON is measured before it is parsed (Python's parser itself recurses), in linear time over the text.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable

MAX_DEPTH = 100  # lists and maps inside one value; LangGraph's own values nest a dozen levels at most

_CONTAINERS = (dict, list, tuple)
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)  # one pass, no nested repetition: linear
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


TOO_DEEP_KEY = "__too_deep__"  # what a too-deep metadata column reads as: {TOO_DEEP_KEY: why}


class TooDeep(ValueError):
    """A value nested deeper than the inspector walks."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"nested deeper than {limit} levels; not shown")
        self.limit = limit


def too_deep(value: Any, limit: int = MAX_DEPTH, inner: Callable[[Any], Any] | None = None) -> bool:
    """Whether ``value`` holds lists/maps (tuples too) nested more than ``limit`` levels; iterative.

    ``inner``: for a wrapper type of the caller's (an extension value), what it wraps (else None); a
    wrapper counts as a level."""
    if inner is not None and not isinstance(value, _CONTAINERS):
        value = inner(value)
    if not isinstance(value, _CONTAINERS):
        return False
    stack = [(value, 1)]
    pop, push = stack.pop, stack.append
    while stack:
        current, depth = pop()
        if depth > limit:
            return True
        children = current.values() if isinstance(current, dict) else current
        for child in children:
            if isinstance(child, _CONTAINERS):
                push((child, depth + 1))
            elif inner is not None:
                wrapped = inner(child)
                if isinstance(wrapped, _CONTAINERS):
                    push((wrapped, depth + 2))
    return False


def json_depth(data: bytes | str) -> int:
    """How deep the arrays and objects of a JSON text nest (strings skipped), in linear time."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    opened = brackets.count(b"[") + brackets.count(b"{")
    if opened <= 1:
        return opened
    depth = deepest = 0
    for byte in brackets:
        if byte in (0x5B, 0x7B):
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def loads(data: bytes | bytearray | memoryview | str, limit: int = MAX_DEPTH) -> Any:
    """``json.loads`` of stored data that raises ``TooDeep`` (a ``ValueError``) instead of recursing past
    ``limit`` levels."""
    raw = data if isinstance(data, str) else bytes(data)
    if _may_be_deep(raw, limit) and json_depth(raw) > limit:
        raise TooDeep(limit)
    return json.loads(raw)


def json_object(data: Any) -> dict[str, Any] | None:
    """A stored JSON column (metadata) as a dict: ``{TOO_DEEP_KEY: why}`` when it nests too deep, None when it
    is not JSON or not an object."""
    if data is None:
        return None
    try:
        value = loads(data)
    except TooDeep as exc:
        return {TOO_DEEP_KEY: str(exc)}
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None


def _may_be_deep(raw: bytes | str, limit: int) -> bool:
    """A quick bound: a text with at most ``limit`` opening brackets cannot nest deeper."""
    if isinstance(raw, str):
        return raw.count("[") + raw.count("{") > limit
    return raw.count(b"[") + raw.count(b"{") > limit
