"""The profile type and the registry: ``Profile`` (one app's knowledge), ``Reading`` (the profile a thread
is read with, and why), ``PROFILE_MODULES`` (the registered profiles) and look-ups by name."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from ..store.not_utf8 import quoted
from .fact_model import ThreadFacts
from .shape_rules import ShapeRule

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
class Evidence:
    """How a thread is recognised as an app's. ``clues(facts)``: the clues in the data that this app wrote the
    thread, as short phrases (empty: none), the app's own decision from its store, its metadata markers, its
    channels and their shapes; ``shapes``: what the app's channels hold (``shape_rules.ShapeRule`` each), so a
    value of another type counts against the app and the reading says so; ``markers``: the metadata keys
    ``clues`` reads (kept, as short values, with a thread's facts in the analysis cache)."""

    clues: Callable[[ThreadFacts], list[str]]
    shapes: tuple[ShapeRule, ...] = ()
    markers: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Profile:
    """One app's knowledge.

    ``name``: the word the operator names it by (``--profile deerflow``); ``title``: how pages name it;
    ``description``: one line of what it knows; ``evidence``: what the choice of a thread's profile reads of
    the app (``Evidence``); ``schema``: the app's state schema,
    taken without cost when a thread's reading starts (``inspector.schema.Schema``; a
    ``schema.model.DeferredSchema`` when reading it imports the app's package, built when a reducer or a
    field is first asked for; ``DEFAULT`` for DeerFlow's ThreadState; None: every reducer unknown);
    ``knowledge``: named pieces other packages ask for (``knows``); ``texts``: advice and wording by key,
    the base's filling what an app leaves out (``text``); ``value_lints``: the app's health lints on a
    decoded newest state, each ``lint(state, rows) -> [flag fields]``; ``size_lints``: the app's health
    lints on a thread's size rows, each ``lint(rows, settings) -> [flag fields]`` (flag fields: ``code``,
    ``field``, ``checkpoint_ids``, ``summary``, ``why``, ``fix``). LangGraph's own lints live in
    ``inspector.sizes`` and run for every thread. ``chat``: the app's chat-UI rules for the conversation
    view (an object with any of ``hidden_reason``, ``displayed_text``, ``attachments``, ``reasoning_text``,
    ``subagent_result`` and ``transient_reason``, their values declared in
    ``profiles.chat``; DeerFlow's: ``profiles.deerflow.messages``); None: none.
    ``checkpoint_kind(metadata, parent_row)``: names the app's own checkpoints written outside graph
    steps (``inspector.history.checkpoint_kinds``);
    ``delta_marker(metadata)``: the app's metadata key marking delta mode; None: the app has none.
    ``uploads(values)``: the files a user uploaded that a state names (``media.located.FileRef``
    entries), opened like artifacts; None: the app names none. ``field_views``: field -> the name of
    the view the state page draws it with (``inspector.ui.panels.VIEWS``), the base's filling what an
    app leaves out. ``folders(thread_id, values, metadata, data_dir, store)``: the folders on this
    machine that hold the files a thread's state names, as ``(media.folders.UserData or None,
    problems)``, each folder checked (support bundles copy files from them); None: the app keeps none.
    ``referenced_files(values)``: every file a state's values name (``media.located.FileRef`` entries,
    each found by ``media.located`` as the pages find it), from any subset of the channels
    ``file_channels`` names, a list's items one at a time (a support bundle asks it once per distinct
    stored value, so a history re-storing the same messages costs the messages); None: the app names
    none, and a bundle collects no file. ``file_channels``: the channels whose values name files or
    the thread's folders (``folders`` reads those from the newest checkpoint).
    ``searched``: the state's fields the thread search reads, each with what it holds (``profiles.searched``:
    ``messages``, ``title``, ``files``), the base's filling what an app leaves out; the field holding
    ``title`` is the thread's title the thread list shows. ``searches_strings``: every other top-level string
    value is searched too (the generic base, which knows no app's fields). ``media()``: the app's media
    module, imported when first asked: ``report_for_state`` (the files a state names, a
    ``profiles.media_report.MediaReport``), ``span_entries``, ``check_entry``, ``checked_bytes``,
    ``entry_thumbnail``, ``lifecycle_note``, ``area_rows`` and ``AREA_KEYS`` (the user-data folders' rows), as
    ``profiles.deerflow.files.media_report`` offers them; None: the app names no files.
    """

    name: str
    title: str
    description: str
    evidence: Evidence
    schema: Any
    knowledge: frozenset[str] = frozenset()
    texts: Mapping[str, str] = field(default_factory=dict)
    value_lints: tuple[Callable[..., list[dict[str, Any]]], ...] = ()
    size_lints: tuple[Callable[..., list[dict[str, Any]]], ...] = ()
    chat: Any = None
    checkpoint_kind: Callable[..., Any] | None = None
    delta_marker: Callable[[dict[str, Any]], str | None] | None = None
    field_views: Mapping[str, str] = field(default_factory=dict)
    uploads: Callable[[dict[str, Any]], list[Any]] | None = None
    folders: Callable[..., tuple[Any, list[str]]] | None = None
    referenced_files: Callable[[dict[str, Any]], list[Any]] | None = None
    file_channels: frozenset[str] = frozenset()
    searched: Mapping[str, str] = field(default_factory=dict)
    searches_strings: bool = False
    media: Callable[[], Any] | None = None


@dataclass(frozen=True)
class Reading:
    """The profile a thread is read with, and why: ``clues`` for it; ``against``, what in the data is not
    that app's (a value of another shape), said in the reason too; ``context``: the store's other threads,
    when they chose it (``store_context``)."""

    profile: Profile
    reason: str
    named: bool = False
    clues: tuple[str, ...] = field(default=())
    against: tuple[str, ...] = field(default=())
    context: str | None = None

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
                "evidence": list(self.clues), "against": list(self.against), "store_context": self.context}


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
    raise ProfileError(f"unknown profile {quoted(name)}: known profiles are {known}")


def base() -> Profile:
    return profile_named(BASE)
