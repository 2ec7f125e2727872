"""Choosing a thread's profile: the operator's word (``name_profile``) and the evidence in the data
(``choose``), in words the page shows."""

from __future__ import annotations

from .facts import ThreadFacts
from .profile import BASE, Profile, Reading, base, profile_named, profiles

# -- the operator's word ------------------------------------------------------------

_named: list[str | None] = [None]


def name_profile(name: str | None) -> Profile | None:
    """The profile every thread is read with (the CLI's ``--profile``, setting ``profile``); None or
    empty: each thread's own evidence decides. Raises ``ProfileError`` for an unknown name."""
    profile = profile_named(name) if name and name.strip() else None
    _named[0] = profile.name if profile else None
    return profile


def named_profile() -> str | None:
    return _named[0]


# -- choosing ----------------------------------------------------------------------


def choose(facts: ThreadFacts, named: str | None = None) -> Reading:
    """The profile that reads the thread ``facts`` describe: the one named (``named``, else the
    operator's), else the first whose evidence holds, else the generic base."""
    named = named if named is not None else _named[0]
    if named:
        profile = profile_named(named)
        clues = profile.evidence(facts)
        because = f"; the data shows {', '.join(clues)}" if clues else ""
        return Reading(profile, f"{profile.title} (named by the operator{because})", True, tuple(clues))
    for profile in profiles():
        if profile.name == BASE:
            continue
        clues = profile.evidence(facts)
        if clues:
            return Reading(profile, f"{profile.title}: {', '.join(clues)}", False, tuple(clues))
    generic = base()
    return Reading(generic, f"{generic.title}: no app's profile matches the data", False)
