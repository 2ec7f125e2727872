"""The plain data a diff and a replay check return (JSON through ``inspector.jsonable``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Change:
    """One change inside a field, in the terms of that field's reducer.

    ``kind`` is one of: added, removed, changed, dropped, cleared, kept, status.
    ``key`` names what changed: a message id, an artifact path, an image key, a
    todo, or a nested path such as ``thread_data.workspace_path``.
    """

    kind: str
    key: str
    summary: str
    before: Any = None
    after: Any = None


@dataclass
class FieldDiff:
    field: str
    reducer: str
    status: str  # unchanged, changed, added, removed, written (the reducer kept the value)
    changes: list[Change] = field(default_factory=list)
    note: str | None = None
    before: Any = None  # summarised
    after: Any = None  # summarised
    internal: bool = False

    @property
    def changed(self) -> bool:
        return self.status != "unchanged"


@dataclass
class StateDiff:
    """``after`` compared with ``before``, field by field."""

    thread_id: str | None
    checkpoint_ns: str
    before_id: str | None
    after_id: str | None
    adjacent: bool
    fields: list[FieldDiff]
    wrote: list[dict[str, Any]] = field(default_factory=list)

    def field(self, name: str) -> FieldDiff | None:
        return next((f for f in self.fields if f.field == name), None)

    @property
    def changed_fields(self) -> list[FieldDiff]:
        return [f for f in self.fields if f.changed]


@dataclass(frozen=True)
class FieldCheck:
    """One field of a replayed step: ``confirmed``, ``mismatch`` or ``unverified``."""

    field: str
    reducer: str
    status: str
    written: bool
    first_difference: str | None = None


@dataclass
class StepReplay:
    """The replay check of one checkpoint against its parent and the writes stored on it."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None
    status: str  # match, mismatch, unverified, first, broken (on a broken link of the history: see note)
    fields: list[FieldCheck] = field(default_factory=list)
    wrote: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None

    @property
    def matches(self) -> bool:
        return self.status != "mismatch"

    @property
    def mismatches(self) -> list[FieldCheck]:
        return [f for f in self.fields if f.status == "mismatch"]
