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
from collections.abc import Callable, Iterator, Mapping
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
    "inspector.profiles.swarm",
    "inspector.profiles.langgraph",
)
BASE = "langgraph"
# Outside any reading (a function handed bare values, not a thread of a store) DeerFlow's profile is in
# force, as DeerFlow's ThreadState is the schema there (``inspector.schema.active``).
FALLBACK = "deerflow"


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
    pieces other packages ask for (``knows``); ``texts``: advice and wording by key, the base's
    filling what an app leaves out (``text``); ``value_lints``: the app's health lints on a decoded
    newest state, each ``lint(state, rows) -> [flag fields]``; ``size_lints``: the app's health
    lints on a thread's size rows, each ``lint(rows, settings) -> [flag fields]`` (flag fields:
    ``code``, ``field``, ``checkpoint_ids``, ``summary``, ``why``, ``fix``). LangGraph's own lints
    live in ``inspector.sizes`` and run for every thread. ``chat``: the app's chat-UI rules for the
    conversation view (an object with any of ``hidden_reason``, ``displayed_text``, ``attachments``,
    ``reasoning_text``, ``subagent_result`` and ``transient_reason``, their values declared in
    ``profiles.chat``; DeerFlow's: ``profiles.deerflow.messages``); None: none.
    ``checkpoint_kind(metadata, parent_row)``: names the app's own checkpoints written outside graph
    steps (``inspector.history.checkpoint_kinds``);
    ``delta_marker(metadata)``: the app's metadata key marking delta mode; None: the app has none.
    ``uploads(values)``: the files a user uploaded that a state names (``media.located.FileRef``
    entries), opened like artifacts; None: the app names none. ``field_views``: field -> the name of
    the view the state page draws it with (``inspector.ui.panels.VIEWS``), the base's filling what an
    app leaves out.
    """

    name: str
    title: str
    description: str
    evidence: Callable[[ThreadFacts], list[str]]
    schema: Callable[[], Any]
    knowledge: frozenset[str] = frozenset()
    texts: Mapping[str, str] = field(default_factory=dict)
    value_lints: tuple[Callable[..., list[dict[str, Any]]], ...] = ()
    size_lints: tuple[Callable[..., list[dict[str, Any]]], ...] = ()
    chat: Any = None
    checkpoint_kind: Callable[..., Any] | None = None
    delta_marker: Callable[[dict[str, Any]], str | None] | None = None
    field_views: Mapping[str, str] = field(default_factory=dict)
    uploads: Callable[[dict[str, Any]], list[Any]] | None = None


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


CHANNELS_KIND = "channels/1"  # analysis-cache facts: the channel names a checkpoint's blob holds


def thread_facts(store: Any, thread_id: str, rows: list[Any] | None = None, cache: Any = None) -> ThreadFacts:
    """A thread's facts, read from its checkpoints' keys and written channels (``rows``, when the caller
    has read them: ``Store.timeline_keys`` or fuller rows) and the metadata of its newest and oldest root
    checkpoints (from ``rows`` where they hold it). Only a thread that stored no writes at all has its
    newest checkpoint's channel names read (no value decoded), once: they are kept in the analysis
    ``cache`` (a ``FactCache``) when one is given."""
    from pathlib import Path

    from ..store import StoreError

    url = str(getattr(store, "url", "") or "")
    path = getattr(store, "path", None)
    store_file = Path(path).name if path else ""
    try:
        if rows is not None:
            rows = list(rows)
        else:
            rows = store.timeline_keys(thread_id)
            _keys_read[(str(getattr(store, "identity", id(store))), thread_id)] = rows
    except StoreError:
        return ThreadFacts(thread_id, url, store_file)
    root = sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id, reverse=True)
    channels: set[str] = set()
    for row in root:
        channels.update(row.write_channels)
    if not root:
        return ThreadFacts(thread_id, url, store_file, frozenset(channels))
    ends = {(r.checkpoint_ns, r.checkpoint_id): r for r in (root[0], root[-1])}
    held = [r.metadata for r in ends.values() if not getattr(r, "keys_only", False)]
    wanted = [key for key, r in ends.items() if getattr(r, "keys_only", False)]
    try:
        if wanted:
            held += [r.metadata for r in store.checkpoint_rows(thread_id, wanted)]
        if not channels:  # no writes stored (checkpoints put straight into the saver): what the newest holds
            channels.update(_newest_channels(store, thread_id, (root[0].checkpoint_ns, root[0].checkpoint_id), cache))
    except StoreError:
        pass
    return ThreadFacts(thread_id, url, store_file, frozenset(channels), tuple(held))


def _newest_channels(store: Any, thread_id: str, newest: tuple[str, str], cache: Any) -> list[str]:
    """The channel names ``newest``'s blob holds: from ``cache`` when measured before (checkpoints never
    change), else from the store's stored sizes (no value decoded), then kept in ``cache``."""
    identity = str(getattr(store, "identity", ""))
    if cache is not None and identity:
        known = cache.get(identity, thread_id, CHANNELS_KIND, [newest]).get(newest)
        if isinstance(known, list):
            return [name for name in known if isinstance(name, str)]
    names = sorted({name for sizes in store.iter_field_sizes(thread_id, "", keys=[newest]) for name in sizes.channels})
    if cache is not None and identity:
        cache.put(identity, thread_id, CHANNELS_KIND, {newest: names})
    return names


_chosen: dict[tuple[Any, ...], tuple[float, Reading]] = {}
# The timeline keys ``thread_facts`` read for a choice, handed to the ``reading`` that asked for it (and
# through it to the analyses inside: ``keys_read``), so a look at a thread reads its keys once.
_keys_read: dict[tuple[str, str], list[Any]] = {}
_CHOSEN_MAX = 256
CHOSEN_SECONDS = 60.0  # a thread's profile is read again after this long (a running thread may show more)


def reading_for(store: Any, thread_id: str, named: str | None = None, rows: list[Any] | None = None,
                cache: Any = None) -> Reading:
    """The profile ``thread_id`` is read with (remembered for ``CHOSEN_SECONDS``); ``rows``: the thread's
    checkpoint rows when the caller has read them; ``cache``: the analysis cache (see ``thread_facts``)."""
    import time

    named = named if named is not None else _named[0]
    key = (str(getattr(store, "identity", id(store))), thread_id, named)
    found = _chosen.get(key)
    now = time.monotonic()
    if found is None or now - found[0] > CHOSEN_SECONDS:
        found = (now, choose(thread_facts(store, thread_id, rows, cache), named))
        if len(_chosen) >= _CHOSEN_MAX:
            _chosen.clear()
        _chosen[key] = found
    return found[1]


def forget(store: Any, thread_id: str) -> None:
    """Choose ``thread_id``'s profile again on its next reading (after Refresh)."""
    identity = str(getattr(store, "identity", id(store)))
    for key in [k for k in _chosen if k[:2] == (identity, thread_id)]:
        _chosen.pop(key, None)


_CURRENT: ContextVar[tuple[str, str, Reading, list[Any] | None] | None] = ContextVar("profile_reading", default=None)


def keys_read(store: Any, thread_id: str) -> list[Any] | None:
    """The timeline keys (``Store.timeline_keys`` rows) the reading of ``thread_id`` in force read to choose its
    profile, or None (no reading, another thread, or a choice remembered from before)."""
    found = _CURRENT.get()
    if found is None or found[:2] != (str(getattr(store, "identity", id(store))), thread_id):
        return None
    return found[3]


def current() -> Reading | None:
    """The reading of the thread the current work reads, inside ``reading``; None outside."""
    found = _CURRENT.get()
    return found[2] if found else None


def current_knows(piece: str, default: bool = True) -> bool:
    """Whether the thread being read has a profile holding ``piece``; ``default`` outside any reading."""
    found = current()
    return default if found is None else found.knows(piece)


def in_force() -> Profile:
    """The profile of the thread being read; outside any reading, ``FALLBACK``'s."""
    found = current()
    return found.profile if found is not None else profile_named(FALLBACK)


def knows(piece: str) -> bool:
    """Whether the profile in force holds a piece of app knowledge (``deerflow.user-data``, ...)."""
    return piece in in_force().knowledge


def text(key: str) -> str:
    """The profile in force's wording for ``key`` (advice, a note), else the generic base's."""
    own = in_force().texts.get(key)
    return own if own is not None else base().texts[key]


def field_views() -> dict[str, str]:
    """Field -> view name for the thread being read: its profile's, filled by the generic base's."""
    return {**base().field_views, **in_force().field_views}


def delta_fold(channel: str) -> str | None:
    """The fold a delta channel of the profile in force is rebuilt with (its ``texts["delta-fold:<channel>"]``),
    or None when the profile names none."""
    return in_force().texts.get(f"delta-fold:{channel}")


def value_lints() -> tuple[Callable[..., list[dict[str, Any]]], ...]:
    """The profile in force's own health lints on a decoded state."""
    return in_force().value_lints


def size_lints() -> tuple[Callable[..., list[dict[str, Any]]], ...]:
    """The profile in force's own health lints on a thread's size rows."""
    return in_force().size_lints


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
def reading(store: Any, thread_id: str, named: str | None = None, rows: list[Any] | None = None,
            cache: Any = None) -> Iterator[Reading]:
    """Read ``thread_id`` with its profile inside the block (see the module's docstring); ``rows``: the
    thread's checkpoint rows when the caller has read them; ``cache``: the analysis cache, if any."""
    here = _CURRENT.get()
    identity = str(getattr(store, "identity", id(store)))
    if here is not None and here[:2] == (identity, thread_id) and named is None:
        yield here[2]
        return
    _keys_read.clear()
    chosen = reading_for(store, thread_id, named, rows, cache)
    token = _CURRENT.set((identity, thread_id, chosen, _keys_read.pop((identity, thread_id), None)))
    _keys_read.clear()
    try:
        with reading_schema(schema_of_reading(chosen)):
            yield chosen
    finally:
        _CURRENT.reset(token)


def reads_thread(function: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``function(store, thread_id, ...)`` inside ``reading(store, thread_id)``, choosing the profile with
    the analysis cache the function was handed (its ``cache`` argument, if it has one)."""
    import functools
    import inspect

    signature = inspect.signature(function)
    takes_cache = "cache" in signature.parameters

    @functools.wraps(function)
    def wrapper(store: Any, thread_id: str, *args: Any, **kwargs: Any) -> Any:
        cache = None
        if takes_cache:
            try:
                cache = signature.bind_partial(store, thread_id, *args, **kwargs).arguments.get("cache")
            except TypeError:
                cache = None
        with reading(store, thread_id, cache=cache):
            return function(store, thread_id, *args, **kwargs)

    return wrapper


__all__ = [
    "BASE",
    "DEFAULT",
    "PROFILE_MODULES",
    "Profile",
    "ProfileError",
    "Reading",
    "ThreadFacts",
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
    "name_profile",
    "named_profile",
    "profile_named",
    "profiles",
    "reading",
    "reading_for",
    "reads_thread",
    "size_lints",
    "text",
    "thread_facts",
    "value_lints",
]
