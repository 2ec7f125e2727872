"""The plain data a diff and a replay check return (JSON through ``inspector.formatting``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

UNKNOWN_REDUCER = "reducer unknown"
# A field no task wrote whose stored value changed: no reducer explains it (a field check's status and reason).
UNEXPLAINED = "unexplained"
CHANGED_WITHOUT_WRITE = "changed without a write"
# What a written field of unknown reducer is consistent with when none of LangGraph's standard folds
# (replace, ``operator.add``, ``add_messages``) gives its stored value (``FieldCheck.inferred``).
NO_FOLD = "none"
NO_FOLD_TEXT = "no standard fold explains it"
STANDARD_FOLDS = ("replace", "operator.add", "add_messages")


def channel_reducer(name: str, reducer: str, delta: "frozenset[str] | set[str]") -> tuple[str, str]:
    """(reducer, channel) a field is named by: a delta channel (``delta``: the channels the checkpoints'
    metadata names so) by ``DeltaChannel`` and the fold its profile knows (DeerFlow's ``messages``:
    ``merge_message_writes``), or its schema reducer where the profile names none; other fields by their
    reducer and no channel."""
    if name not in delta:
        return reducer, ""
    from ..profiles import delta_fold
    from ..store.delta import DELTA_CHANNEL

    fold = delta_fold(name)
    return (fold if fold is not None and reducer != "unknown" else reducer), DELTA_CHANNEL


def reducer_text(reducer: str, channel: str) -> str:
    """``add_messages``; ``merge_message_writes (DeltaChannel)``."""
    return f"{reducer} ({channel})" if channel else reducer


@dataclass(frozen=True)
class Change:
    """One change inside a field, in the terms of that field's reducer.

    ``kind`` is one of: added, removed, changed, dropped, cleared, kept, status, overwritten.
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
    channel: str = ""  # the channel kind where it is not the reducer's plain one: "DeltaChannel"

    @property
    def reducer_label(self) -> str:
        return reducer_text(self.reducer, self.channel)

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
    before_thread_id: str | None = None  # set when ``before`` belongs to another thread than ``thread_id``

    @property
    def across_threads(self) -> bool:
        return self.before_thread_id is not None and self.before_thread_id != self.thread_id

    def field(self, name: str) -> FieldDiff | None:
        return next((f for f in self.fields if f.field == name), None)

    @property
    def changed_fields(self) -> list[FieldDiff]:
        return [f for f in self.fields if f.changed]


@dataclass(frozen=True)
class FieldCheck:
    """One field of a replayed step: ``confirmed`` (verified), ``mismatch`` (the replay in the schema's terms
    disagrees), ``unexplained`` (a field of unknown reducer no task wrote, whose stored value changed) or
    ``unverified``. A field no task wrote whose value changed has the reason ``changed without a write``
    whatever its reducer (status ``mismatch`` where the schema knows it, ``unexplained`` where not).

    ``first_difference`` says where a mismatch or an unexplained change starts; ``reason`` why a field is
    unverified (``reducer unknown``, values not stored, a reducer refusing a write) or unexplained.
    ``inferred``: for a written field whose reducer is unknown, the standard folds its stored value is
    consistent with, joined by ``+`` (``operator.add``, ``replace+operator.add``, ``add_messages``), or
    ``none`` (``NO_FOLD``: none of them); never a verdict.
    """

    field: str
    reducer: str
    status: str
    written: bool
    first_difference: str | None = None
    reason: str | None = None
    inferred: str | None = None
    channel: str = ""  # "DeltaChannel" for a delta channel (``channel_reducer``)

    @property
    def reducer_label(self) -> str:
        return reducer_text(self.reducer, self.channel)

    @property
    def changed_without_write(self) -> bool:
        return self.reason == CHANGED_WITHOUT_WRITE and self.status in ("mismatch", UNEXPLAINED)

    @property
    def no_fold(self) -> bool:
        """A written value of unknown reducer that none of LangGraph's standard folds explains."""
        return self.written and self.inferred == NO_FOLD


@dataclass
class StepReplay:
    """The replay check of one checkpoint against its parent and the writes stored on it."""

    thread_id: str
    checkpoint_ns: str
    checkpoint_id: str
    parent_checkpoint_id: str | None
    step: int | None
    source: str | None
    status: str  # match, mismatch (a field mismatched or unexplained), unverified, first, broken (see note)
    fields: list[FieldCheck] = field(default_factory=list)
    wrote: list[dict[str, Any]] = field(default_factory=list)
    note: str | None = None
    findings: list[str] = field(default_factory=list)  # problems met on the way (a sandbox conflict ...)

    @property
    def matches(self) -> bool:
        return self.status != "mismatch"

    @property
    def mismatches(self) -> list[FieldCheck]:
        return [f for f in self.fields if f.status == "mismatch"]

    @property
    def unexplained(self) -> list[FieldCheck]:
        """Fields no task wrote whose stored value changed."""
        return [f for f in self.fields if f.status == UNEXPLAINED]

    @property
    def unverified(self) -> list[FieldCheck]:
        return [f for f in self.fields if f.status == "unverified"]

    @property
    def verified(self) -> list[FieldCheck]:
        return [f for f in self.fields if f.status == "confirmed"]

    def unverified_by_reason(self) -> dict[str, list[str]]:
        """Why fields are unverified -> those fields."""
        reasons: dict[str, list[str]] = {}
        for check in self.unverified:
            reasons.setdefault(check.reason or "not checked", []).append(check.field)
        return reasons

    def detail(self) -> str:
        """What the replay found: mismatches and changes without a write first, then unverified fields and why
        (and written values no standard fold explains), then findings."""
        parts = [f"{f.first_difference} ({CHANGED_WITHOUT_WRITE})" if f.changed_without_write
                 else f"{f.field}: {f.first_difference}" for f in self.mismatches + self.unexplained]
        parts += [f"unverified ({reason}): {', '.join(names)}" for reason, names in self.unverified_by_reason().items()]
        parts += [f"{f.field}: {NO_FOLD_TEXT} ({', '.join(STANDARD_FOLDS)})" for f in self.fields if f.no_fold]
        parts += self.findings
        return "; ".join(parts) or self.note or ""


@dataclass(frozen=True)
class ReplayVerdict:
    """A thread's replay in numbers: field checks verified, unverified (and why), mismatched, changed without
    a write; and the written values of unknown reducer no standard fold explains."""

    steps: int
    verified: int
    unverified: int
    mismatched: int  # field checks whose replay in the schema's terms disagrees (a known field changed without a write too)
    mismatched_steps: tuple[str, ...] = ()  # steps with a mismatched field or one changed without a write
    unverified_reasons: dict[str, int] = field(default_factory=dict)  # reason -> field checks
    unknown_reducer_fields: tuple[str, ...] = ()
    findings: int = 0
    inferred: dict[str, str] = field(default_factory=dict)  # field -> what its unknown reducer is consistent with
    changed_without_write: int = 0  # field checks: no task wrote the field, its stored value changed (any reducer)
    changed_without_write_fields: tuple[str, ...] = ()
    changed_known: int = 0  # of those, fields whose reducer the schema knows (counted as mismatched as well)
    changed_known_fields: tuple[str, ...] = ()
    no_standard_fold: int = 0  # written values of unknown reducer none of LangGraph's standard folds explains
    no_standard_fold_fields: tuple[str, ...] = ()

    @property
    def matches(self) -> bool:
        """True unless a field's replay really disagrees with the store or a value changed without a write
        (unverified fields, and values no standard fold explains, do not count)."""
        return self.mismatched == 0 and self.changed_without_write == 0

    def summary(self) -> str:
        """``12 step(s) replayed: 150 field check(s) verified, 3 unverified (reducer unknown: score), 0 mismatched,
        0 changed without a write``; a field of known reducer changed without a write is a mismatch in the
        schema's terms (``1 mismatched (1 of them changed without a write)``); then the written values no
        standard fold explains and what unknown reducers are consistent with, where there are any."""
        reasons = "; ".join(
            f"{n} {reason}" + (f": {', '.join(self.unknown_reducer_fields)}" if reason == UNKNOWN_REDUCER else "")
            for reason, n in self.unverified_reasons.items()
        )
        unverified = f"{self.unverified} unverified" + (f" ({reasons})" if reasons else "")
        mismatched = f"{self.mismatched} mismatched" + (
            f" ({self.changed_known} of them {CHANGED_WITHOUT_WRITE}: {', '.join(self.changed_known_fields)})"
            if self.changed_known else "")
        unknown = self.changed_without_write - self.changed_known
        others = [f for f in self.changed_without_write_fields if f not in self.changed_known_fields] or \
            list(self.changed_without_write_fields)
        changed = "" if self.changed_known and not unknown else f", {unknown} {CHANGED_WITHOUT_WRITE}" + (
            f" ({', '.join(others)})" if unknown else "")
        no_fold = (f"; {self.no_standard_fold} written value(s) of unknown reducer: {NO_FOLD_TEXT} "
                   f"({', '.join(self.no_standard_fold_fields)})" if self.no_standard_fold else "")
        inferred = "; ".join(f"{name} {what}" for name, what in self.inferred.items())
        return (f"{self.steps} step(s) replayed: {self.verified} field check(s) verified, {unverified}, "
                f"{mismatched}{changed}{no_fold}"
                + (f"; inferred, not verified: {inferred}" if inferred else ""))


def verdict(steps: list[StepReplay]) -> ReplayVerdict:
    """Count a thread's replayed field checks by outcome."""
    checks = [f for s in steps for f in s.fields]
    reasons: dict[str, int] = {}
    for check in checks:
        if check.status == "unverified":
            reasons[check.reason or "not checked"] = reasons.get(check.reason or "not checked", 0) + 1
    changed = [f for f in checks if f.changed_without_write]
    no_fold = [f for f in checks if f.no_fold]
    return ReplayVerdict(
        steps=sum(1 for s in steps if s.status not in ("first", "broken")),
        verified=sum(1 for f in checks if f.status == "confirmed"),
        unverified=sum(1 for f in checks if f.status == "unverified"),
        mismatched=sum(1 for f in checks if f.status == "mismatch"),
        mismatched_steps=tuple(s.checkpoint_id for s in steps if s.status == "mismatch"),
        unverified_reasons=reasons,
        unknown_reducer_fields=tuple(sorted({f.field for f in checks if f.reason == UNKNOWN_REDUCER})),
        findings=sum(len(s.findings) for s in steps),
        inferred=inferred_reducers(checks),
        changed_without_write=len(changed),
        changed_without_write_fields=tuple(sorted({f.field for f in changed})),
        changed_known=sum(1 for f in changed if f.status == "mismatch"),
        changed_known_fields=tuple(sorted({f.field for f in changed if f.status == "mismatch"})),
        no_standard_fold=len(no_fold),
        no_standard_fold_fields=tuple(sorted({f.field for f in no_fold})),
    )


def inferred_reducers(checks: list[FieldCheck]) -> dict[str, str]:
    """Per field of unknown reducer, the standard fold every written step is consistent with, in words
    (``consistent with operator.add on all 12 steps``; ``add_messages or operator.add`` where a list of
    messages was only ever appended to); a field some step contradicts is left out."""
    candidates: dict[str, set[str]] = {}
    steps: dict[str, int] = {}
    for check in checks:
        if check.reason != UNKNOWN_REDUCER or not check.written:
            continue
        steps[check.field] = steps.get(check.field, 0) + 1
        seen = candidates.setdefault(check.field, set(STANDARD_FOLDS))
        seen &= set(check.inferred.split("+")) if check.inferred else set()
    return {name: f"consistent with {' or '.join(sorted(seen))} on all {steps[name]} step(s)"
            for name, seen in sorted(candidates.items())
            if len(seen) == 1 or seen == {"add_messages", "operator.add"}}
