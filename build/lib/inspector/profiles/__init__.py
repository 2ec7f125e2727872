"""App profiles: what the inspector knows of one kind of LangGraph app, and which one reads a thread.

A profile (``Profile``) holds one app's knowledge: its state schema and reducers,
and the texts, lints and rules only that app makes true. Generic LangGraph
(``profiles.langgraph``) is the base every thread gets: it knows LangGraph's own
channels and no app's reducers, so a field's reducer is unknown and replay says
unverified. An app profile (``profiles.deerflow``, ...) applies to a thread only
on evidence in the data (``Profile.evidence``: the store's layout, metadata
markers, the thread's channels) or when the operator names it (``--profile``,
setting ``profile``); ``choose`` says which one and why, in words the page shows.

Profiles register in one list, ``PROFILE_MODULES`` (the way datasette lists its
built-in plugins): a module holding ``PROFILE = Profile(...)``. Adding an app's
profile is a new module and one line there; the first profile (in that order)
whose evidence holds reads the thread, the generic base last.

Work on one thread runs inside ``reading(store, thread_id)``: the chosen profile's
schema (or the operator's ``--schema``) is the active schema inside it, for the
diff, replay, delta rebuilds and field order; nested calls for the same thread
reuse the choice.

May import ``store`` and ``schema``; profile modules may import the core packages
whose behaviour they specialise, inside their functions.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..schema.default import DEFAULT, reading_schema

# The registered profiles, most specific first; the generic LangGraph base is last and always applies.
PROFILE_MODULES = (
    "inspector.profiles.deerflow",
    "inspector.profiles.deepagents",
    "inspector.profiles.langchain_agent",
    "inspector.profiles.langgraph",
)
BASE = "langgraph"


@dataclass(frozen=True)
class ThreadFacts:
    """What a thread shows of the app that wrote it, read without decoding any value.

    ``store_file``: the store's file name (SQLite); ``store_url``: the URL it was opened by;
    ``channels``: every channel the thread's root graph holds at its newest checkpoint or was
    ever written; ``metadata``: the metadata of its first and newest root checkpoints.
    """

    thread_id: str
    store_url: str = ""
    store_file: str = ""
    channels: frozenset[str] = frozenset()
    metadata: tuple[dict[str, Any], ...] = ()

    def metadata_key(self, key: str) -> Any:
        """The first value ``key`` has in the metadata read, or None."""
        for meta in self.metadata:
            if isinstance(meta, dict) and meta.get(key) is not None:
                return meta[key]
        return None


@dataclass(frozen=True)
class Profile:
    """One app's knowledge.

    ``name``: the word the operator names it by (``--profile deerflow``); ``title``: how pages
    name it; ``evidence(facts)``: the clues in the data that this app wrote the thread, as short
    phrases (empty: none); ``schema()``: the app's state schema (``inspector.schema.Schema``, or
    ``DEFAULT`` for DeerFlow's ThreadState; None: every reducer unknown); ``knowledge``: named
    pieces other packages ask for (``Reading.knows``), so an app's texts and lints live here.
    """

    name: str
    title: str
    description: str
    evidence: Callable[[ThreadFacts], list[str]]
    schema: Callable[[], Any]
    knowledge: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Reading:
    """The profile a thread is read with, and why."""

    profile: Profile
    reason: str
    named: bool = False
    clues: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def title(self) -> str:
        return self.profile.title

    def knows(self, piece: str) -> bool:
        """Whether the profile holds a piece of app knowledge (``deerflow.user-data``, ...)."""
        return piece in self.profile.knowledge

    def is_app(self) -> bool:
        """True for an app's profile, False for the generic LangGraph base."""
        return self.profile.name != BASE

    def line(self) -> str:
        """``Profile: DeerFlow (deerflow.db, 11 of 14 ThreadState channels)``."""
        return f"Profile: {self.reason}"

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "title": self.title, "named": self.named, "reason": self.reason,
                "evidence": list(self.clues)}


class ProfileError(ValueError):
    """An operator named a profile that is not registered."""


@cache
def profiles() -> tuple[Profile, ...]:
    """The registered profiles, in ``PROFILE_MODULES`` order."""
    return tuple(importlib.import_module(name).PROFILE for name in PROFILE_MODULES)


def profile_named(name: str) -> Profile:
    for profile in profiles():
        if profile.name == name.strip().lower():
            return profile
    known = ", ".join(p.name for p in profiles())
    raise ProfileError(f"unknown profile {name!r}: known profiles are {known}")


def base() -> Profile:
    return profile_named(BASE)


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


def thread_facts(store: Any, thread_id: str) -> ThreadFacts:
    """A thread's facts, read from keys, written channel names and two checkpoints' metadata and
    channel names (no value decoded)."""
    from pathlib import Path

    from ..store import StoreError

    url = str(getattr(store, "url", "") or "")
    path = getattr(store, "path", None)
    store_file = Path(path).name if path else ""
    try:
        rows = store.timeline_keys(thread_id)
    except StoreError:
        return ThreadFacts(thread_id, url, store_file)
    root = [r for r in rows if r.checkpoint_ns == ""] or rows
    channels: set[str] = set()
    for row in root:
        channels.update(row.write_channels)
    metadata: list[dict[str, Any]] = []
    if root:
        keys = {(root[0].checkpoint_ns, root[0].checkpoint_id), (root[-1].checkpoint_ns, root[-1].checkpoint_id)}
        try:
            metadata = [r.metadata for r in store.checkpoint_rows(thread_id, keys)]
            newest = (root[0].checkpoint_ns, root[0].checkpoint_id)
            for sizes in store.iter_field_sizes(thread_id, root[0].checkpoint_ns, keys=[newest]):
                channels.update(sizes.channels)
        except StoreError:
            pass
    return ThreadFacts(thread_id, url, store_file, frozenset(channels), tuple(metadata))


def _store_key(store: Any, thread_id: str) -> tuple[str, str, str]:
    try:
        rows = store.timeline_keys(thread_id)
    except Exception:  # noqa: BLE001 - an unknown thread: its facts are read (and fail) as usual
        rows = []
    newest = rows[0].checkpoint_id if rows else ""
    return (str(getattr(store, "identity", id(store))), thread_id, f"{len(rows)}:{newest}")


_chosen: dict[tuple[Any, ...], Reading] = {}
_CHOSEN_MAX = 256


def reading_for(store: Any, thread_id: str, named: str | None = None) -> Reading:
    """The profile ``thread_id`` is read with (remembered while the thread does not change)."""
    named = named if named is not None else _named[0]
    key = (*_store_key(store, thread_id), named)
    found = _chosen.get(key)
    if found is None:
        found = choose(thread_facts(store, thread_id), named)
        if len(_chosen) >= _CHOSEN_MAX:
            _chosen.clear()
        _chosen[key] = found
    return found


_CURRENT: ContextVar[tuple[str, str, Reading] | None] = ContextVar("profile_reading", default=None)


def current() -> Reading | None:
    """The reading of the thread the current work reads, inside ``reading``; None outside."""
    found = _CURRENT.get()
    return found[2] if found else None


def current_knows(piece: str, default: bool = True) -> bool:
    """Whether the thread being read has a profile holding ``piece``; ``default`` outside any reading."""
    found = current()
    return default if found is None else found.knows(piece)


def schema_of_reading(chosen: Reading) -> Any:
    """The schema a reading puts in force: the operator's ``--schema`` if named, else the profile's
    (``DEFAULT`` for DeerFlow's ThreadState); an empty schema for a profile without one."""
    import sys

    loaded = sys.modules.get("inspector.schema.reading")
    operator = loaded.operator_schema() if loaded is not None else None
    if operator is not None:
        return operator
    schema = chosen.profile.schema()
    if schema is None:
        from ..schema.model import Schema

        return Schema(f"{chosen.title} (reducers unknown)", (), {})
    return schema


@contextmanager
def reading(store: Any, thread_id: str, named: str | None = None) -> Iterator[Reading]:
    """Read ``thread_id`` with its profile inside the block (see the module's docstring)."""
    here = _CURRENT.get()
    identity = str(getattr(store, "identity", id(store)))
    if here is not None and here[:2] == (identity, thread_id) and named is None:
        yield here[2]
        return
    chosen = reading_for(store, thread_id, named)
    token = _CURRENT.set((identity, thread_id, chosen))
    try:
        with reading_schema(schema_of_reading(chosen)):
            yield chosen
    finally:
        _CURRENT.reset(token)


def reads_thread(function: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``function(store, thread_id, ...)`` inside ``reading(store, thread_id)``."""
    import functools

    @functools.wraps(function)
    def wrapper(store: Any, thread_id: str, *args: Any, **kwargs: Any) -> Any:
        with reading(store, thread_id):
            return function(store, thread_id, *args, **kwargs)

    return wrapper


__all__ = ["BASE", "DEFAULT", "PROFILE_MODULES", "Profile", "ProfileError", "Reading", "ThreadFacts", "base",
           "choose", "current", "current_knows", "name_profile", "named_profile", "profile_named", "profiles",
           "reading", "reading_for", "reads_thread", "thread_facts"]
