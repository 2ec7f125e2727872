"""Field diffs in the terms of each field's reducer.

Each function takes the value before, the value after and, for adjacent
checkpoints, the values the step's nodes wrote to that field (``writes``; None
when unknown). It returns the changes and an optional note about the reducer.
"""

from __future__ import annotations

from typing import Any

from ..schema.thread_state_reducers import DELEGATIONS_MAX_ENTRIES, SKILL_CONTEXT_MAX_ENTRIES, TERMINAL_STATUSES
from ..store.decode import overwritten
from .model import Change
from .nested import first_difference, nested_changes
from .summaries import content_hash, message_line, preview, summarise

Result = tuple[list[Change], str | None]
# LangGraph's ``REMOVE_ALL_MESSAGES`` (``langgraph.graph.message``; a test holds them equal), named here so that
# loading the diff does not load LangGraph's graph package: seconds on a dashboard's first page.
REMOVE_ALL_MESSAGES = "__remove_all__"


# -- messages (add_messages) ---------------------------------------------------


def _keyed(items: list[Any], key_of) -> dict[str, Any]:
    keyed: dict[str, Any] = {}
    for index, item in enumerate(items):
        key = key_of(item, index)
        while key in keyed:
            key = f"{key}#dup"
        keyed[key] = item
    return keyed


def _message_key(message: Any, index: int) -> str:
    mid = message.get("id") if isinstance(message, dict) else None
    return str(mid) if mid else f"#{index}"


def _written_items(writes: list[Any] | None) -> list[Any]:
    items: list[Any] = []
    for value in writes or []:
        items.extend(value if isinstance(value, list) else [value])
    return items


def removal_ids(writes: list[Any] | None) -> set[str]:
    """Ids named by RemoveMessage writes (``REMOVE_ALL_MESSAGES`` included)."""
    return {
        str(m.get("id"))
        for m in _written_items(writes)
        if isinstance(m, dict) and m.get("type") == "remove" and m.get("id")
    }


def message_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    old = _keyed(list(before or []), _message_key)
    new = _keyed(list(after or []), _message_key)
    removals = removal_ids(writes)
    remove_all = REMOVE_ALL_MESSAGES in removals
    changes: list[Change] = []
    for key, message in old.items():
        if key not in new:
            how = " by RemoveMessage" if remove_all or key in removals else ""
            changes.append(Change("removed", key, f"removed{how}: {message_line(message)}", before=message_line(message)))
    for key, message in new.items():
        if key not in old:
            changes.append(Change("added", key, f"added: {message_line(message)}", after=message_line(message)))
        elif old[key] != message:
            where = first_difference(old[key], message) or ""
            changes.append(Change("changed", key, f"changed: {message_line(message)} ({where})",
                                  before=message_line(old[key]), after=message_line(message)))
    note = None
    if remove_all:
        note = f"all {len(old)} earlier message(s) removed by RemoveMessage(id={REMOVE_ALL_MESSAGES!r})"
    elif removals:
        note = f"{len(removals)} RemoveMessage write(s)"
    return changes, note


# -- artifacts (merge_artifacts) -----------------------------------------------


def dropped_artifacts(before: Any, writes: list[Any] | None) -> list[str]:
    """Paths the step's writes carried that de-duplication dropped (already present or repeated)."""
    seen = set(before or [])
    dropped: list[str] = []
    for value in writes or []:
        for path in value or []:
            if path in seen:
                dropped.append(path)
            else:
                seen.add(path)
    return dropped


def list_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    """A list whose reducer is not ``merge_artifacts`` (``operator.add``, unknown): items appended at its end
    (repeats included: nothing is de-duplicated), else added and removed items."""
    old, new = list(before or []), list(after or [])
    if len(new) >= len(old) and new[: len(old)] == old:
        return [Change("added", str(p), f"added{' again' if p in old or new[len(old):i].count(p) else ''}: {p}",
                       after=p) for i, p in enumerate(new[len(old):], len(old))], None
    return nested_changes(before, after, ""), None


def artifact_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    old, new = list(before or []), list(after or [])
    old_set, new_set = set(old), set(new)
    changes = [Change("added", p, f"added: {p}", after=p) for p in new if p not in old_set]
    changes += [Change("removed", p, f"removed: {p}", before=p) for p in old if p not in new_set]
    dropped = dropped_artifacts(before, writes) if writes is not None else []
    changes += [Change("dropped", p, f"dropped as a duplicate: {p}", after=p) for p in dropped]
    note = f"{len(dropped)} duplicate path(s) dropped by merge_artifacts" if dropped else None
    return changes, note


# -- viewed_images (merge_viewed_images) ---------------------------------------

CLEARED_NOTE = "cleared by the {} rule"


def image_summary(entry: Any) -> Any:
    """An image entry without its base64: mime type, sizes and a content hash."""
    if not isinstance(entry, dict):
        return summarise(entry)
    shown = {k: summarise(v) for k, v in entry.items() if k != "base64"}
    if isinstance(entry.get("base64"), str):
        shown["base64_chars"] = len(entry["base64"])
        shown["sha256"] = content_hash(entry["base64"])
    return shown


def _image_line(entry: Any) -> str:
    shown = image_summary(entry)
    if not isinstance(shown, dict):
        return str(shown)
    parts = [str(shown.get("mime_type", "?"))]
    if "base64_chars" in shown:
        parts.append(f"{shown['base64_chars']} base64 chars, sha256 {shown['sha256']}")
    elif "size" in shown:
        parts.append(f"{shown['size']} bytes on disk")
    return ", ".join(parts)


def image_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    old = before if isinstance(before, dict) else {}
    new = after if isinstance(after, dict) else {}
    changes: list[Change] = []
    for key in old:
        if key not in new:
            changes.append(Change("removed", key, f"removed: {key}", before=image_summary(old[key])))
    for key, entry in new.items():
        if key not in old:
            changes.append(Change("added", key, f"added: {key} ({_image_line(entry)})", after=image_summary(entry)))
        elif old[key] != entry:
            changes.append(Change("changed", key, f"image changed: {key} ({_image_line(old[key])} -> {_image_line(entry)})",
                                  before=image_summary(old[key]), after=image_summary(entry)))
    return changes, _image_note(old, new, writes)


def _image_note(old: dict, new: dict, writes: list[Any] | None) -> str | None:
    wrote_empty = writes is not None and any(isinstance(w, dict) and not w for w in writes)
    if wrote_empty and old:
        return CLEARED_NOTE + (f", then {len(new)} image(s) added" if new else "")
    if old and not new:
        if writes is None:
            return CLEARED_NOTE
        return "emptied without a {} write: merge_viewed_images does not do that"
    if writes and all(w is None for w in writes):
        return "None written: the None rule keeps every image ({} would clear them)"
    return None


# -- todos ---------------------------------------------------------------------


def _todo_label(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("content") or item.get("title") or item.get("id") or preview(repr(item), 60))
    return preview(str(item), 60)


def _todo_key(item: Any, index: int) -> str:
    if isinstance(item, dict) and item.get("id") is not None:
        return str(item["id"])
    return _todo_label(item) if item is not None else f"#{index}"


def todo_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    old = _keyed(list(before or []), _todo_key)
    new = _keyed(list(after or []), _todo_key)
    changes: list[Change] = []
    for key, item in old.items():
        if key not in new:
            changes.append(Change("removed", key, f"removed: {_todo_label(item)}", before=summarise(item)))
    for key, item in new.items():
        if key not in old:
            status = f" [{item.get('status')}]" if isinstance(item, dict) and item.get("status") else ""
            changes.append(Change("added", key, f"added: {_todo_label(item)}{status}", after=summarise(item)))
            continue
        was = old[key]
        if was == item:
            continue
        was_status = was.get("status") if isinstance(was, dict) else None
        now_status = item.get("status") if isinstance(item, dict) else None
        if was_status != now_status:
            changes.append(Change("status", key, f"{_todo_label(item)}: {was_status} -> {now_status}",
                                  before=was_status, after=now_status))
        rest_old = {k: v for k, v in was.items() if k != "status"} if isinstance(was, dict) else was
        rest_new = {k: v for k, v in item.items() if k != "status"} if isinstance(item, dict) else item
        if rest_old != rest_new:
            changes.append(Change("changed", key, f"changed: {first_difference(rest_old, rest_new)}",
                                  before=summarise(was), after=summarise(item)))
    return changes, None


# -- delegations (merge_delegations), skill_context (merge_skill_context) -----------


def delegation_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    """Ledger entries by id: added, status changes, stale writes the terminal rule refused, the cap."""
    changes, _ = todo_changes(before, after, writes)
    old = {e.get("id"): e for e in before or [] if isinstance(e, dict)}
    for value in writes or []:
        for entry in value if isinstance(value, list) else []:
            was = old.get(entry.get("id")) if isinstance(entry, dict) else None
            if was and was.get("status") in TERMINAL_STATUSES and entry.get("status") not in TERMINAL_STATUSES:
                changes.append(Change("kept", str(entry["id"]), f"{entry['id']}: stays {was['status']} "
                                      f"(a {entry.get('status')} write was ignored: a terminal status is final)"))
    dropped = sum(1 for c in changes if c.kind == "removed")
    note = (f"{dropped} oldest entr(ies) dropped: merge_delegations keeps the newest {DELEGATIONS_MAX_ENTRIES}"
            if dropped and len(after or []) >= DELEGATIONS_MAX_ENTRIES else None)
    return changes, note


def skill_changes(before: Any, after: Any, writes: list[Any] | None = None) -> Result:
    """Skill references by path: added, read again (moved to the end), normalised, removed by the cap."""
    old = {e.get("path"): e for e in before or [] if isinstance(e, dict)}
    new = {e.get("path"): e for e in after or [] if isinstance(e, dict)}
    written = {e.get("path") for e in _written_items(writes) if isinstance(e, dict)}
    changes = [Change("removed", str(p), f"removed: {p}", before=summarise(e)) for p, e in old.items() if p not in new]
    for path, entry in new.items():
        if path not in old:
            changes.append(Change("added", str(path), f"added: {path}", after=summarise(entry)))
        elif path in written:
            changes.append(Change("changed", str(path), f"read again, moved to the end: {path}",
                                  before=summarise(old[path]), after=summarise(entry)))
        elif old[path] != entry:
            changes.append(Change("changed", str(path), f"normalised: {path} ({first_difference(old[path], entry)})",
                                  before=summarise(old[path]), after=summarise(entry)))
    dropped = sum(1 for c in changes if c.kind == "removed")
    note = (f"{dropped} entr(ies) dropped: merge_skill_context keeps the newest {SKILL_CONTEXT_MAX_ENTRIES}"
            if dropped and len(after or []) >= SKILL_CONTEXT_MAX_ENTRIES else None)
    return changes, note


# -- an Overwrite write ------------------------------------------------------------


def _count(value: Any) -> str:
    if isinstance(value, (list, tuple, dict)):
        return f"{len(value)} item{'s' if len(value) != 1 else ''}"
    return "nothing" if value is None else "a value"


def overwrite_change(field: str, before: Any, after: Any, writes: list[Any] | None) -> Change | None:
    """One line for a field an ``Overwrite`` write replaced (the reducer bypassed): "overwritten (N items → M)"."""
    if not any(overwritten(w)[0] for w in writes or []):
        return None
    return Change("overwritten", field, f"overwritten ({_count(before)} → {_count(after)})",
                  before=summarise(before), after=summarise(after))


# -- everything else (replace) -------------------------------------------------


def value_changes(before: Any, after: Any, writes: list[Any] | None = None, field: str = "") -> Result:
    return nested_changes(before, after, field), None


# By reducer first (a channel of any name merged by add_messages diffs as messages), then by field name.
REDUCER_DIFFS = {
    "add_messages": message_changes,
    "merge_message_writes": message_changes,
    "merge_artifacts": artifact_changes,
    "merge_viewed_images": image_changes,
    "merge_todos": todo_changes,
    "merge_delegations": delegation_changes,
    "merge_skill_context": skill_changes,
}
FIELD_DIFFS = {  # a reducer not named above: shown by shape, never claiming what merge_artifacts would drop
    "messages": message_changes,
    "artifacts": list_changes,
    "viewed_images": image_changes,
    "todos": todo_changes,
}


def _diff_for(field: str, reducer: str | None):
    return REDUCER_DIFFS.get(reducer or "") or FIELD_DIFFS.get(field)


def has_field_diff(field: str, reducer: str | None = None) -> bool:
    return _diff_for(field, reducer) is not None


def changes_for(field: str, before: Any, after: Any, writes: list[Any] | None = None,
                reducer: str | None = None) -> Result:
    """A field's changes in its reducer's terms; a value not shaped as that field should be (an opaque
    value, a number where a list belongs) is compared as a plain value, and the note says so."""
    diff_of = _diff_for(field, reducer)
    if diff_of is not None:
        try:
            return diff_of(before, after, writes)
        except (TypeError, AttributeError, ValueError, KeyError):
            changes, _ = value_changes(before, after, writes, field)
            return changes, f"{field} does not have its usual shape here: compared as plain values"
    return value_changes(before, after, writes, field)

