"""Path-level differences between two plain values (dicts, lists, scalars)."""

from __future__ import annotations

from typing import Any, Iterator

from .model import Change
from .summaries import summarise

MAX_CHANGES = 50


def join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def walk(before: Any, after: Any, path: str = "") -> Iterator[Change]:
    """Every differing leaf, depth first, in document order; values summarised."""
    if before == after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in list(before) + [k for k in after if k not in before]:
            where = join(path, key)
            if key not in after:
                yield Change("removed", where, f"{where} removed", before=summarise(before[key]))
            elif key not in before:
                yield Change("added", where, f"{where} added", after=summarise(after[key]))
            else:
                yield from walk(before[key], after[key], where)
        return
    if isinstance(before, list) and isinstance(after, list):
        for index in range(max(len(before), len(after))):
            where = join(path, index)
            if index >= len(after):
                yield Change("removed", where, f"{where} removed", before=summarise(before[index]))
            elif index >= len(before):
                yield Change("added", where, f"{where} added", after=summarise(after[index]))
            else:
                yield from walk(before[index], after[index], where)
        return
    where = path or "value"
    yield Change("changed", where, f"{where}: {_short(before)} -> {_short(after)}", summarise(before), summarise(after))


def nested_changes(before: Any, after: Any, path: str = "", limit: int = MAX_CHANGES) -> list[Change]:
    """At most ``limit`` path-level changes; a final entry says how many were left out."""
    changes: list[Change] = []
    hidden = 0
    for change in walk(before, after, path):
        if len(changes) < limit:
            changes.append(change)
        else:
            hidden += 1
    if hidden:
        changes.append(Change("more", "", f"{hidden} more change(s) not listed"))
    return changes


def first_difference(before: Any, after: Any, path: str = "") -> str | None:
    """The first differing path as one line, or None when the values are equal."""
    change = next(walk(before, after, path), None)
    return None if change is None else change.summary


def presence_change(where: str, before: Any, after: Any, present_before: bool, present_after: bool) -> Change | None:
    """The one change for a value that appears or disappears (``None`` would read as a value it never had)."""
    if not present_before and present_after:
        return Change("added", where, f"{where} set to {_short(after)}", after=summarise(after))
    if present_before and not present_after:
        return Change("removed", where, f"{where} removed (was {_short(before)})", before=summarise(before))
    return None


def _short(value: Any) -> str:
    shown = summarise(value)
    if isinstance(shown, dict) and "sha256" in shown:
        size = shown.get("chars", shown.get("bytes", shown.get("list", shown.get("dict"))))
        return f"<{size} sha256:{shown['sha256']}>"
    text = repr(shown)
    return text if len(text) <= 60 else text[:59] + "…"
