"""Choosing a thread's profile: the operator's word (``name_profile``), the evidence in the data and, for a
thread that shows little of its own, the store's other threads (``choose``), in words the page shows."""

from __future__ import annotations

from ..store.model import is_internal_channel
from .fact_model import ThreadFacts
from .profile import BASE, Profile, Reading, base, profile_named, profiles
from .shape_rules import judge
from .store_context import StoreTally

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


def against(profile: Profile, facts: ThreadFacts) -> tuple[str, ...]:
    """What in the thread's newest values is shaped otherwise than ``profile`` expects, in words."""
    return judge(profile.evidence.shapes, facts, profile.title).against


def _contradicted(profile: Profile, facts: ThreadFacts) -> bool:
    """A value of one of the profile's distinctive channels shaped otherwise (``viewed_images`` a list)."""
    judged = judge(profile.evidence.shapes, facts, profile.title)
    return bool(judged.distinctive_foreign(profile.evidence.shapes))


def choose(facts: ThreadFacts, named: str | None = None, context: StoreTally | None = None) -> Reading:
    """The profile that reads the thread ``facts`` describe: the one named (``named``, else the
    operator's), else the first whose evidence holds, else (with ``context``, the store's other threads)
    the profile most of them are read with when nothing in this thread contradicts it, else the generic
    base. Values shaped otherwise than a profile expects are said in the reason."""
    named = named if named is not None else _named[0]
    if named:
        profile = profile_named(named)
        clues = profile.evidence.clues(facts)
        foreign = against(profile, facts)
        because = f"; the data shows {', '.join(clues)}" if clues else ""
        though = f"; though {'; '.join(foreign)}" if foreign else ""
        return Reading(profile, f"{profile.title} (named by the operator{because}{though})", True, tuple(clues),
                       foreign)
    for profile in profiles():
        if profile.name == BASE:
            continue
        clues = profile.evidence.clues(facts)
        if clues:
            foreign = against(profile, facts)
            though = f"; though {'; '.join(foreign)}" if foreign else ""
            return Reading(profile, f"{profile.title}: {', '.join(clues)}{though}", False, tuple(clues), foreign)
    rejected = [(p, against(p, facts)) for p in profiles() if p.name != BASE and _contradicted(p, facts)]
    generic = base()
    if context is not None:
        found = in_context(facts, context)
        if found is not None:
            return found
    words = "; ".join(f"{p.title}'s names with other shapes: {'; '.join(phrases)}" for p, phrases in rejected)
    mixed = context.mix_text() if context is not None and context.usual() is None else None
    reason = f"{generic.title}: no app's profile matches the data" + (f" ({words})" if words else "") + \
        (f"; {mixed}" if mixed else "")
    return Reading(generic, reason, False, (), tuple(phrase for _, phrases in rejected for phrase in phrases))


def in_context(facts: ThreadFacts, context: StoreTally) -> Reading | None:
    """The store's usual profile for a thread that shows none of its own, when nothing in it contradicts
    that profile: no value shaped otherwise, no channel the profile's shapes do not name (a thread of another
    graph); None when the store has no usual profile."""
    usual = context.usual()
    if usual is None:
        return None
    name, count = usual
    profile = profile_named(name)
    known = {rule.channel for rule in profile.evidence.shapes}
    if against(profile, facts) or any(c not in known for c in facts.channels if not is_internal_channel(c)):
        return None
    shown = ", ".join(sorted(c for c in facts.held if not is_internal_channel(c))) or "no channel"
    said = (f"as {count} of this store's {context.sampled} {context.which} threads (this one holds {shown}; "
            f"nothing in it contradicts {profile.title})")
    return Reading(profile, f"{profile.title}: {said}", False, (said,), (), said)
