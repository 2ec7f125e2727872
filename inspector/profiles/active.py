"""The profile in force: ``reading(store, thread_id)`` puts a thread's profile (and its schema) in force
for the work inside it; ``in_force``, ``knows``, ``text``, ``field_views``, ``media``, the lints and
``delta_fold`` answer from it. ``asking(store, thread_id, name)`` names the profile one thread is read with inside a block
(the dashboard's choice for the thread it shows), which every ``reading`` of that thread without a name of its
own takes; ``asked`` says which."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from ..history import checkpoint_kinds
from ..schema.default import reading_schema
from .detection import reading_for
from .facts import keys_read_for_choice
from .profile import FALLBACK, Profile, Reading, base, profile_named

_CURRENT: ContextVar[tuple[str, str, Reading, list[Any] | None, str | None] | None] = ContextVar("profile_reading",
                                                                                                 default=None)
_ASKED: ContextVar[tuple[str, str, str] | None] = ContextVar("profile_asked", default=None)


def _identity(store: Any) -> str:
    return str(getattr(store, "identity", id(store)))


@contextmanager
def asking(store: Any, thread_id: str, name: str | None) -> Iterator[None]:
    """Read ``thread_id`` of ``store`` with the profile ``name`` inside the block: every ``reading`` of that
    thread that names no profile of its own takes it (None: as it is read anyway, by the operator's word or
    its evidence). A context variable: work handed to another thread (a background reader) asks again there.
    Raises ``ProfileError`` for an unknown name."""
    token = _ASKED.set((_identity(store), thread_id, profile_named(name).name) if name else None)
    try:
        yield
    finally:
        _ASKED.reset(token)


def asked(store: Any, thread_id: str) -> str | None:
    """The profile ``asking`` names for ``thread_id`` of ``store`` here, or None."""
    found = _ASKED.get()
    return found[2] if found is not None and found[:2] == (_identity(store), thread_id) else None


def keys_read(store: Any, thread_id: str) -> list[Any] | None:
    """The timeline keys (``Store.timeline_keys`` rows) the reading of ``thread_id`` in force read to choose its
    profile, or None (no reading, another thread, or a choice remembered from before)."""
    found = _CURRENT.get()
    if found is None or found[:2] != (_identity(store), thread_id):
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


checkpoint_kinds.answered_by(in_force)  # the timeline names the app's own kinds by the profile in force


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


def media() -> Any:
    """The media module of the profile in force (``Profile.media``), or None when its app names no files."""
    own = in_force().media
    return own() if own is not None else None


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
    schema = chosen.profile.schema
    if schema is None:
        from ..schema.model import Schema

        return Schema(f"{chosen.title} (reducers unknown)", (), {})
    return schema


@contextmanager
def reading(store: Any, thread_id: str, named: str | None = None, rows: list[Any] | None = None,
            cache: Any = None) -> Iterator[Reading]:
    """Read ``thread_id`` with its profile inside the block (see the module's docstring): the one ``named``,
    else the one ``asking`` names, else the operator's or its evidence's (``reading_for``); inside a reading of
    the same thread, that reading's (unless another is named). ``rows``: the thread's checkpoint rows when the
    caller has read them; ``cache``: the analysis cache, if any."""
    here = _CURRENT.get()
    identity = _identity(store)
    if here is not None and here[:2] == (identity, thread_id) and named in (None, here[4]):
        yield here[2]
        return
    named = named if named is not None else asked(store, thread_id)
    keys_read_for_choice.clear()
    chosen = reading_for(store, thread_id, named, rows, cache)
    token = _CURRENT.set((identity, thread_id, chosen, keys_read_for_choice.pop((identity, thread_id), None), named))
    keys_read_for_choice.clear()
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
