"""An item's value as the inspector reads it: its JSON parsed under the depth guard, the threads it names, and
its top-level keys as fields with their sizes.

A value is JSON: text in SQLite, ``jsonb`` in PostgreSQL (read with the same guard). One nested deeper than
``depth.MAX_DEPTH`` levels, one that is no JSON, or one that is no object are problems on the item, each one
line; the item's times, TTL and vectors still read.
"""

from __future__ import annotations

import json
from typing import Any

from ..state.fields import count_of
from ..store.depth import MAX_DEPTH, TOO_DEEP_KEY, TooDeep, loads, too_deep

# Where an item says which thread wrote it: a key of its value, or of a dict under one of ``ORIGIN_KEYS``
# (``{"metadata": {"thread_id": ...}}``). LangGraph's stores keep no origin of their own.
THREAD_KEYS = ("thread_id", "threadId", "source_thread_id", "origin_thread_id")
THREAD_LIST_KEYS = ("thread_ids", "threads", "source_threads")
ORIGIN_KEYS = ("metadata", "source", "origin", "context", "provenance")
# A value up to this deep is parsed (Python's JSON parser recurses: well inside its limit), then each top-level field
# nested past ``depth.MAX_DEPTH`` is set aside with a problem of its own, the other fields shown; a deeper one is
# not parsed at all (its depth is measured in linear time first).
PARSE_DEPTH = 400
MOST_THREADS = 20  # an item naming more is cut here, the rest counted
LONGEST_THREAD_ID = 1_000  # a "thread id" longer than this names no thread


def parse_value(stored: Any) -> tuple[Any, int, list[str]]:
    """A stored value as (data, its text's length in characters, problems). SQLite hands the JSON's bytes (as
    ``SqliteStore`` writes it) or text, PostgreSQL the parsed jsonb (a too-deep one as ``{TOO_DEEP_KEY: why}``)."""
    problems: list[str] = []
    if isinstance(stored, (bytes, bytearray, memoryview)):  # SqliteStore binds orjson's bytes: a BLOB
        stored = bytes(stored).decode("utf-8", "surrogateescape")
    if isinstance(stored, str):
        try:
            value = loads(stored, PARSE_DEPTH)
        except TooDeep:
            return None, len(stored), [*problems, f"value nested deeper than {PARSE_DEPTH} levels; not shown"]
        except ValueError as exc:
            return stored, len(stored), [*problems, f"value is not JSON ({exc}); shown as text"]
        chars = len(stored)
        value, deep = _without_deep_fields(value)
        problems += deep
    else:
        value = stored
        if isinstance(value, dict) and set(value) == {TOO_DEEP_KEY}:
            return None, 0, [*problems, f"value {value[TOO_DEEP_KEY]}"]
        chars = len(json.dumps(value, ensure_ascii=False))
    if not isinstance(value, dict):
        problems.append(f"value is a JSON {type(value).__name__}, not an object (LangGraph stores a dict)")
    return value, chars, problems


def _without_deep_fields(value: Any) -> tuple[Any, list[str]]:
    """``value`` with each top-level field deeper than ``MAX_DEPTH - 1`` replaced by a too-deep marker, and a problem
    naming each; a list or a scalar too deep as a whole is not kept."""
    if isinstance(value, dict):
        deep = [name for name, inner in value.items() if too_deep(inner, MAX_DEPTH - 1)]
        if not deep:
            return value, []
        kept = {name: ({TOO_DEEP_KEY: f"nested deeper than {MAX_DEPTH} levels; not shown"} if name in deep else inner)
                for name, inner in value.items()}
        return kept, [f"field {name!r} nested deeper than {MAX_DEPTH} levels; not shown" for name in deep]
    if too_deep(value, MAX_DEPTH):
        return None, [f"value nested deeper than {MAX_DEPTH} levels; not shown"]
    return value, []


def threads_named(value: Any) -> list[str]:
    """The thread ids the value says wrote it, first seen first, at most ``MOST_THREADS``."""
    if not isinstance(value, dict):
        return []
    found: list[str] = []
    places = [value, *(value.get(k) for k in ORIGIN_KEYS if isinstance(value.get(k), dict))]
    for place in places:
        for key in THREAD_KEYS:
            _add(found, place.get(key))
        for key in THREAD_LIST_KEYS:
            listed = place.get(key)
            if isinstance(listed, list):
                for entry in listed[:MOST_THREADS]:
                    _add(found, entry.get("thread_id") if isinstance(entry, dict) else entry)
    return found[:MOST_THREADS]


def _add(found: list[str], candidate: Any) -> None:
    if isinstance(candidate, str) and candidate.strip() and len(candidate) <= LONGEST_THREAD_ID \
            and candidate not in found:
        found.append(candidate)


def json_chars(value: Any) -> int:
    """How many characters ``value`` takes as compact JSON (a field's size on the item page)."""
    try:
        return len(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))
    except (TypeError, ValueError, RecursionError):
        return 0


_JSON_KINDS = {str: "text", bool: "true/false", int: "number", float: "number", type(None): "null"}


def field_rows(value: Any) -> list[dict[str, Any]]:
    """The value's top-level keys as fields, as the state view counts a field (``3 item(s)``, ``2 key(s)``; else
    ``text``, ``number``, ...), with its size as compact JSON."""
    if not isinstance(value, dict):
        return []
    rows = []
    for name, inner in value.items():
        holds = count_of(inner) or _JSON_KINDS.get(type(inner), type(inner).__name__)
        rows.append({"field": str(name), "holds": holds, "json chars": json_chars(inner)})
    return rows
