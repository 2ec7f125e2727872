"""The reading checks its own choice: a profile whose reducers refuse the data is doubted before the data is
accused.

A thread's profile is chosen by evidence (``inspector.profiles``), and evidence can mislead: another app may
share DeerFlow's field names. When the chosen app's reducers refuse stored writes (a reducer raising on a value
it was never meant to fold) or disagree with many steps (``DOUBT_STEPS`` and ``DOUBT_SHARE`` of them), the
thread is replayed again on the generic LangGraph reading. If that finds fewer steps in trouble, the profile is
doubted: ``checked_replay`` reports the generic reading's steps and verdict, and says the profile may be wrong
and how each reading fared (``ProfileDoubt``), so a mass of mismatches is never laid on the data under a profile
the data does not fit. If the generic reading flags the same steps, the data is accused as before. A single
mismatched step (one value altered under a fitting profile) never raises a doubt. The operator's word (a
profile named with ``--profile``, a schema named with ``--schema``) is never doubted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..profiles import BASE, Reading, reading
from .model import ReplayVerdict, StepReplay, verdict
from .replay_messages import REDUCER_FAILED

# mismatched steps before a profile is doubted: one altered value makes at most two (the step holding it and the
# next, where it changes back without a write), and that is the data's fault, not the profile's
DOUBT_STEPS = 3
DOUBT_SHARE = 0.25  # and this share of the steps replayed
CALM = frozenset({"match", "unverified", "first", "broken"})  # step statuses that accuse nothing


def troubled(steps: list[StepReplay]) -> list[str]:
    """The steps a reading finds in trouble: mismatched, or flagged in any other way than unverified."""
    return [s.checkpoint_id for s in steps if s.status not in CALM]


def refused(steps: list[StepReplay]) -> int:
    """Field checks whose reducer raised on a stored write (not a deliberate refusal such as DeerFlow's
    sandbox conflict, which is a finding about the data)."""
    return sum(1 for s in steps for f in s.fields if f.reason == REDUCER_FAILED)


@dataclass(frozen=True)
class ProfileDoubt:
    """A profile the replay doubts: its reducers' record on the thread and the generic reading's."""

    profile: str  # its title
    name: str  # its name, for ``--profile``
    steps: int  # steps replayed
    mismatched_steps: int
    mismatched_checks: int
    refused_writes: int
    generic_troubled: int  # steps the generic reading finds in trouble
    generic: ReplayVerdict

    def summary(self) -> str:
        """One line: the profile may be wrong, what its reducers did, how the generic reading fares."""
        did = [f"disagree with {self.mismatched_steps} of {self.steps} step(s) "
               f"({self.mismatched_checks} field check(s))"] if self.mismatched_steps else []
        if self.refused_writes:
            did.append(f"refused {self.refused_writes} stored write(s)")
        return (f"The profile may be wrong for this thread: {self.profile}'s reducers {' and '.join(did)}, where the "
                f"generic LangGraph reading finds {self.generic_troubled} step(s) in trouble. Shown: the generic "
                f"reading ({self.generic.mismatched} mismatched); --profile {self.name} shows {self.profile}'s.")

    def as_json(self) -> dict[str, Any]:
        return {"profile": self.name, "summary": self.summary(), "steps": self.steps,
                "mismatched_steps": self.mismatched_steps, "mismatched_checks": self.mismatched_checks,
                "refused_writes": self.refused_writes, "generic_troubled_steps": self.generic_troubled}


@dataclass(frozen=True)
class CheckedReplay:
    """A thread's replay as reported: the ``steps`` and ``verdict`` of the ``reading`` shown (the generic one
    when the chosen profile is doubted), the profile ``chosen`` by evidence, and the ``doubt`` (or None)."""

    steps: list[StepReplay]
    verdict: ReplayVerdict
    reading: Reading
    chosen: Reading
    doubt: ProfileDoubt | None = None


def suspect(chosen: Reading, steps: list[StepReplay]) -> bool:
    """Whether ``chosen``'s replay calls for the generic reading's: an app's profile chosen by evidence whose
    reducers raised on stored writes or mismatched on many steps."""
    loaded = sys.modules.get("inspector.schema.reading")
    if not chosen.is_app() or chosen.named or (loaded is not None and loaded.operator_schema() is not None):
        return False
    replayed = sum(1 for s in steps if s.status not in ("first", "broken"))
    mismatched = sum(1 for s in steps if s.status == "mismatch")
    many = mismatched >= DOUBT_STEPS and mismatched >= DOUBT_SHARE * max(replayed, 1)
    return many or refused(steps) > 0


def checked_replay(store: Any, thread_id: str, ns: str = "", cache: Any = None,
                   progress: Callable[[int, int], None] | None = None, keys: list[Any] | None = None) -> CheckedReplay:
    """Replay one namespace of a thread with its profile and check the profile by the result (see the module's
    docstring). ``keys``: the thread's ``Store.timeline_keys`` when the caller has read them."""
    from .thread_replay import replay_thread

    with reading(store, thread_id, rows=keys, cache=cache) as chosen:
        steps = replay_thread(store, thread_id, ns, cache=cache, progress=progress, keys=keys)
    if not suspect(chosen, steps):
        return CheckedReplay(steps, verdict(steps), chosen, chosen)
    with reading(store, thread_id, named=BASE) as generic:
        plain = replay_thread(store, thread_id, ns, cache=cache, progress=progress, keys=keys)
    mine = set(troubled(steps)) | {s.checkpoint_id for s in steps if any(f.reason == REDUCER_FAILED for f in s.fields)}
    theirs = troubled(plain)
    if len(theirs) >= len(mine):  # the generic reading finds as much wrong: the data is accused, as it was
        return CheckedReplay(steps, verdict(steps), chosen, chosen)
    result = verdict(plain)
    doubt = ProfileDoubt(chosen.title, chosen.name, sum(1 for s in steps if s.status not in ("first", "broken")),
                         sum(1 for s in steps if s.status == "mismatch"), sum(len(s.mismatches) for s in steps),
                         refused(steps), len(theirs), result)
    return CheckedReplay(plain, result, generic, chosen, doubt)


def cached_reading(store: Any, thread_id: str, rows: list[Any], cache: Any,
                   found: dict[tuple[str, str], StepReplay]) -> dict[tuple[str, str], StepReplay]:
    """The verdicts a page of a history shows from the analysis cache (``found``: those of the profile in force):
    the generic reading's where the profile's would be doubted on these rows and the cache holds the generic
    ones too (a replay that doubted the profile kept both), else ``found``."""
    from ..profiles import current
    from ..profiles.langgraph import GENERIC_SCHEMA
    from .thread_replay import cached_verdicts

    chosen = current()
    if chosen is None or not found or not suspect(chosen, list(found.values())):
        return found
    generic = cached_verdicts(store, thread_id, rows, cache, GENERIC_SCHEMA)
    if set(generic) != set(found) or len(troubled(list(generic.values()))) >= len(troubled(list(found.values()))):
        return found
    return generic
