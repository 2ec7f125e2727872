"""DeerFlow's nine reducers and the shapes of the entries they merge, without LangGraph or LangChain.

They follow DeerFlow's main branch (``deerflow/agents/thread_state.py``) branch for
branch. ``thread_state`` declares ``ThreadState`` over them (with LangGraph's
``add_messages`` for ``messages``); they live here so that replaying a thread in that
schema loads neither package until a write needs LangGraph's own message reducer
(``inspector.schema.default_schema``). None of them mutates its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from ..store.not_utf8 import named
from .model import SandboxConflict


class SandboxState(TypedDict):
    sandbox_id: NotRequired[str | None]


class ThreadDataState(TypedDict):
    workspace_path: NotRequired[str | None]
    uploads_path: NotRequired[str | None]
    outputs_path: NotRequired[str | None]


class ViewedImageData(TypedDict):
    """One viewed image. DeerFlow's main branch stores metadata only (``mime_type``, ``size``,
    ``actual_path``: the file on disk); the documented, older shape carried ``base64``."""

    mime_type: str
    size: NotRequired[int]
    actual_path: NotRequired[str]
    base64: NotRequired[str]


class GoalState(TypedDict):
    objective: str
    status: str
    created_at: str
    updated_at: str
    continuation_count: int
    max_continuations: int
    no_progress_count: int
    max_no_progress_continuations: int
    last_evaluation: NotRequired[dict[str, Any]]


class PromotedTools(TypedDict):
    catalog_hash: str
    names: list[str]


class DelegationEntry(TypedDict):
    id: str
    run_id: NotRequired[str]
    description: str
    subagent_type: str
    status: str
    result_brief: NotRequired[str]
    result_sha256: NotRequired[str]
    result_ref: NotRequired[str]
    stop_reason: NotRequired[str]
    created_at: str


class SkillEntry(TypedDict):
    name: str
    path: str
    description: str
    loaded_at: int


class BackgroundTaskState(TypedDict):
    task_id: str
    task_name: str
    status: str
    updated_at: str


# -- the reducers ------------------------------------------------------------------


def merge_sandbox(existing: SandboxState | None, new: SandboxState | None) -> SandboxState | None:
    """Idempotent writes only: None keeps, a first value is taken, the same ``sandbox_id`` keeps
    the existing value, and a different id raises ``SandboxConflict``."""
    if new is None:
        return existing
    if existing is None:
        return new
    if existing.get("sandbox_id") == new.get("sandbox_id"):
        return existing
    raise SandboxConflict(
        f"conflicting sandbox writes: {named(existing.get('sandbox_id'))} != {named(new.get('sandbox_id'))}"
    )


def merge_artifacts(existing: list[str] | None, new: list[str] | None) -> list[str]:
    """Concatenate and de-duplicate, keeping the first occurrence; paths are not normalised."""
    if existing is None:
        return list(new or [])
    if new is None:
        return existing
    return list(dict.fromkeys(existing + new))


def merge_viewed_images(
    existing: dict[str, ViewedImageData] | None,
    new: dict[str, ViewedImageData] | None,
) -> dict[str, ViewedImageData]:
    """Shallow merge, new wins per key. ``None`` keeps everything; ``{}`` clears everything."""
    if existing is None:
        return dict(new or {})
    if new is None:
        return existing
    if len(new) == 0:
        return {}
    return {**existing, **new}


def merge_todos(existing: list | None, new: list | None) -> list | None:
    """None keeps the existing list; anything else, an empty list too, replaces it."""
    return existing if new is None else new


def merge_goal(existing: GoalState | None, new: GoalState | None) -> GoalState | None:
    """None keeps the existing goal; anything else replaces it."""
    return existing if new is None else new


def merge_promoted(existing: PromotedTools | None, new: PromotedTools | None) -> PromotedTools | None:
    """Promoted tool names, scoped by catalog hash.

    None or empty keeps; a different ``catalog_hash`` (or nothing before) replaces
    wholesale with the new names de-duplicated; the same hash unions the names in order.
    """
    if not new:
        return existing
    if existing is None or existing.get("catalog_hash") != new["catalog_hash"]:
        return {"catalog_hash": new["catalog_hash"], "names": list(dict.fromkeys(new["names"]))}
    return {"catalog_hash": existing["catalog_hash"], "names": list(dict.fromkeys([*existing["names"], *new["names"]]))}


TERMINAL_STATUSES: frozenset[str] = frozenset({"completed", "failed", "cancelled", "timed_out", "polling_timed_out"})
DELEGATIONS_MAX_ENTRIES = 50


def merge_delegations(existing: list[DelegationEntry] | None, new: list[DelegationEntry] | None) -> list[DelegationEntry]:
    """The delegation ledger: entries merged by ``id`` in first-seen order.

    None or empty keeps the existing list (or ``[]``). A later version of an entry
    replaces the earlier one but keeps its ``created_at`` (and its ``run_id`` when
    the new version has none); a terminal status is never replaced by a
    non-terminal one. Only the newest ``DELEGATIONS_MAX_ENTRIES`` entries are kept.
    """
    if not new:
        return existing or []
    merged: dict[str, DelegationEntry] = {}  # insertion order is first-seen order
    for entry in [*(existing or []), *new]:
        key = entry["id"]
        previous = merged.get(key)
        if previous is None:
            merged[key] = entry
            continue
        if previous["status"] in TERMINAL_STATUSES and entry["status"] not in TERMINAL_STATUSES:
            continue
        if previous.get("created_at"):
            entry = {**entry, "created_at": previous["created_at"]}
            if previous.get("run_id") and not entry.get("run_id"):
                entry["run_id"] = previous["run_id"]
        merged[key] = entry
    return list(merged.values())[-DELEGATIONS_MAX_ENTRIES:]


SKILL_CONTEXT_MAX_ENTRIES = 8
SKILL_DESCRIPTION_MAX_CHARS = 500


def normalise_skill_entry(entry: Mapping[str, Any]) -> SkillEntry:
    """A skill reference as DeerFlow stores it: unknown keys dropped, the description's whitespace
    collapsed and cut to ``SKILL_DESCRIPTION_MAX_CHARS``, a ``loaded_at`` that is not an int -> 0."""
    description = entry.get("description")
    loaded_at = entry.get("loaded_at")
    return {
        "name": str(entry.get("name") or ""),
        "path": str(entry["path"]),
        "description": " ".join(description.split())[:SKILL_DESCRIPTION_MAX_CHARS] if isinstance(description, str) else "",
        "loaded_at": loaded_at if isinstance(loaded_at, int) else 0,
    }


def merge_skill_context(existing: list[SkillEntry] | None, new: list[SkillEntry] | None) -> list[SkillEntry]:
    """Skill references read this thread, de-duplicated by ``path``.

    Every entry, existing ones too, is normalised; None or empty returns the
    normalised existing list. Reading a skill again moves it to the end; only the
    newest ``SKILL_CONTEXT_MAX_ENTRIES`` are kept.
    """
    by_path: dict[str, SkillEntry] = {}
    for entry in existing or []:
        normalised = normalise_skill_entry(entry)
        by_path[normalised["path"]] = normalised  # a repeated path keeps its first place
    if not new:
        return list(by_path.values())
    for entry in new:
        normalised = normalise_skill_entry(entry)
        by_path.pop(normalised["path"], None)
        by_path[normalised["path"]] = normalised
    return list(by_path.values())[-SKILL_CONTEXT_MAX_ENTRIES:]
