"""App profiles: what the inspector knows of one kind of LangGraph app, and which one reads a thread.

A profile (``Profile``) holds one app's knowledge: its state schema and reducers,
and the texts, lints and rules only that app makes true. Generic LangGraph
(``profiles.langgraph``) is the base every thread gets: it knows LangGraph's own
channels and no app's reducers, so a field's reducer is unknown and replay says
unverified. An app profile (``profiles.deerflow``, ...) applies to a thread only
on evidence in the data (``Profile.evidence``: the store's layout, metadata
markers, what the thread's newest checkpoint holds: its channels and the shapes of
their values, ``Evidence.shapes``; a name holding another app's type counts against)
or when the operator names it (``--profile``, setting ``profile``). A thread that
shows no app of its own is read like the store's other threads when they agree and
nothing in it contradicts them (``store_context``). ``choose`` says which one and
why, in words the page shows.

Profiles register in one list, ``PROFILE_MODULES`` (the way datasette lists its
built-in plugins): a module holding ``PROFILE = Profile(...)``. Adding an app's
profile is a new module and one line there; the first profile (in that order)
whose evidence holds reads the thread, the generic base last.

Work on one thread runs inside ``reading(store, thread_id)``: the chosen profile's
schema (or the operator's ``--schema``) is the active schema inside it, for the
diff, replay, delta rebuilds and field order; nested calls for the same thread
reuse the choice. ``asking(store, thread_id, name)`` names the profile of one
thread for a block of work (the dashboard's choice for the thread it shows,
``?profile=``): every reading of that thread inside takes it.

Its modules: ``profile`` (the ``Profile`` type, ``Reading``, the registry), ``facts`` (what a thread
shows, read from the store), ``shape_rules`` (what a profile expects its channels to hold),
``choosing`` (the operator's word and the evidence), ``store_context`` (the store's other threads),
``detection`` (each thread's choice, remembered; a page of the thread list) and ``active`` (the profile
in force inside ``reading``); this package re-exports their names. ``media_report`` asks the thread's profile
for the files a checkpoint names (``Profile.media``), and ``chat`` and ``pieces`` declare what profiles offer.

May import ``store`` and ``schema``; profile modules may import the core packages
whose behaviour they specialise, inside their functions.
"""

from __future__ import annotations

from ..schema.default import DEFAULT
from .active import (
    asked,
    asking,
    current,
    current_knows,
    delta_fold,
    field_views,
    in_force,
    keys_read,
    knows,
    media,
    reading,
    reads_thread,
    schema_of_reading,
    size_lints,
    text,
    value_lints,
)
from .choosing import choose, name_profile, named_profile
from .detection import CHOSEN_SECONDS, forget, listed_readings, reading_for, store_tally
from .facts import CHANNELS_KIND, EVIDENCE_KIND, ThreadFacts, thread_facts
from .profile import (
    BASE,
    FALLBACK,
    PROFILE_MODULES,
    Evidence,
    Profile,
    ProfileError,
    Reading,
    base,
    profile_named,
    profiles,
)

__all__ = [
    "BASE",
    "CHANNELS_KIND",
    "CHOSEN_SECONDS",
    "EVIDENCE_KIND",
    "DEFAULT",
    "Evidence",
    "FALLBACK",
    "PROFILE_MODULES",
    "Profile",
    "ProfileError",
    "Reading",
    "ThreadFacts",
    "asked",
    "asking",
    "base",
    "choose",
    "current",
    "current_knows",
    "delta_fold",
    "field_views",
    "forget",
    "in_force",
    "keys_read",
    "knows",
    "listed_readings",
    "media",
    "name_profile",
    "named_profile",
    "profile_named",
    "profiles",
    "reading",
    "reading_for",
    "reads_thread",
    "schema_of_reading",
    "size_lints",
    "store_tally",
    "text",
    "thread_facts",
    "value_lints",
]
