"""Cached reads for the pages: histories, timelines and decoded checkpoints, bounded by ttl and max_entries;
and the analysis cache the pages share with the CLI.

Entries are keyed by the store URL, so two stores never share one. A thread's
timeline carries a generation number; ``refresh_thread`` bumps it so the next
read goes back to the store (for threads that are still running). What is
computed under a thread's profile (diffs, replays, media, model input, health)
is also keyed by the profile the page reads it with (``read_as``), so switching
it never shows a result computed under another.

What the pages show is redacted (``inspector.safety.redaction``): ``timeline`` and
``state`` return masked rows and states. ``raw_state`` is for computations only
(the diff and the replay check compare raw values; their results are masked
with ``masked`` before they are shown) and for the operator-allowed reveal. A
masked state shares every unchanged part with its raw one, so both cost little more than one.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from .. import profiles
from ..cache import AnalysisCache, CacheError, open_cache
from ..history.lineage import History, build_history
from ..history.thread_history import ThreadHistory
from ..safety.redaction import Redactor, redactor_for
from ..settings import Settings
from ..store import CheckpointRow, CheckpointState, Store
from .connection import settings
from .connection import store as connection_store
from .inert import literal

try:
    _SIZED_BY = settings()
except ValueError:  # the gate stops every page on unreadable settings; the caches below still need a size
    _SIZED_BY = Settings()
TTL = _SIZED_BY.cache_ttl_seconds
MAX_ENTRIES = _SIZED_BY.cache_max_entries
_GENERATIONS: dict[tuple[str, str], int] = {}


def _text_key(text: str) -> bytes:
    """A cache key of ``text``: Streamlit hashes text as UTF-8, which an id that is not UTF-8 (``store.not_utf8``)
    is not; its lone surrogates are kept as themselves, so two ids never share a key."""
    return text.encode("utf-8", "surrogatepass")


# every cached read is keyed through these (a thread id from a hostile SQLite store is a valid key)
HASH_FUNCS = {str: _text_key}


def redactor() -> Redactor:
    """The redaction rules of the settings."""
    return redactor_for(settings())


def masked(value: Any, keys: bool = True, names: bool = False) -> Any:
    """``value`` as a page may show it: secrets masked (``keys=False``: text shapes only, for size reports;
    ``names``: namespaces masked as names, for what only draws them and looks nothing up by them)."""
    return redactor()(value, keys=keys, names=names)


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _timeline(url: str, thread_id: str, generation: int, _store: Store) -> list[CheckpointRow]:
    return masked(_store.timeline(thread_id))


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _history(url: str, thread_id: str, generation: int, _store: Store) -> History:
    return build_history(_timeline(url, thread_id, generation, _store))


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _raw_state(url: str, thread_id: str, ns: str, checkpoint_id: str, generation: int, _store: Store) -> CheckpointState:
    return _store.state(thread_id, checkpoint_id, ns)


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _thread_history(url: str, thread_id: str, generation: int, _store: Store) -> ThreadHistory:
    return ThreadHistory(_store, thread_id, mask=masked, node_name=redactor().name)


@st.cache_data(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=16, show_spinner=False)
def _thread_choices(url: str, limit: int, _store: Store) -> list[tuple[str, str | None]]:
    return [(t.thread_id, t.title) for t in masked(_store.threads(limit=limit))]


def thread_choices(store: Store, limit: int) -> list[tuple[str, str | None]]:
    """The ``limit`` most recently updated threads as ``(id, title)``, titles masked: a picker's suggestions."""
    return _thread_choices(store.url, limit, store)


def thread_history(store: Store, thread_id: str) -> ThreadHistory:
    """The thread's history laid out from its keys (no state, no metadata read); pages complete it."""
    return _thread_history(store.url, thread_id, _GENERATIONS.get((store.url, thread_id), 0), store)


@st.cache_resource(hash_funcs=HASH_FUNCS, ttl=TTL, max_entries=MAX_ENTRIES, show_spinner=False)
def _state(url: str, thread_id: str, ns: str, checkpoint_id: str, generation: int, _store: Store) -> CheckpointState:
    return masked(_raw_state(url, thread_id, ns, checkpoint_id, generation, _store))


def generation(store: Store, thread_id: str) -> int:
    """The thread's cache generation: part of the key of every cached read about it."""
    return _GENERATIONS.get((store.url, thread_id), 0)


def read_as(store: Store, thread_id: str) -> str:
    """The profile the pages read ``thread_id`` with, as asked (``profiles.asking``: the page's ``profile=``, else
    the operator's ``--profile``; empty: its evidence's choice): part of the key of every cached result computed
    under the thread's profile."""
    return profiles.asked(store, thread_id) or profiles.named_profile() or ""


def timeline(store: Store, thread_id: str) -> list[CheckpointRow]:
    key = ("timeline", store.url, thread_id, generation(store, thread_id))
    with _reading(key, f"Reading the history of {literal(thread_id)}…"):
        return _timeline(store.url, thread_id, generation(store, thread_id), store)


def history(store: Store, thread_id: str) -> History:
    """The thread's lineage laid out (cached with its timeline), broken links named in ``problems``."""
    generation = _GENERATIONS.get((store.url, thread_id), 0)
    with _reading(("history", store.url, thread_id, generation), f"Reading the history of {literal(thread_id)}…"):
        return _history(store.url, thread_id, generation, store)


# What this process has read into the caches above: read again, it shows no spinner (a spinner is an element the
# browser draws and removes at every run, stepping through a thread included). One evicted since is read again
# without one.
_READ: dict[tuple, None] = {}
READ_ENTRIES = 10_000


@contextlib.contextmanager
def _reading(key: tuple, message: str) -> Iterator[None]:
    """A spinner saying ``message`` while ``key`` is read for a page the first time; nothing when it was read
    before, or in a thread reading ahead of a page (Play's, Prev / Next's: the page then finds it read)."""
    if key in _READ:
        yield
        return
    with st.spinner(message) if get_script_run_ctx(suppress_warning=True) is not None else contextlib.nullcontext():
        yield
    if len(_READ) >= READ_ENTRIES:
        _READ.clear()
    _READ[key] = None


def state(store: Store, thread_id: str, checkpoint_id: str, ns: str = "") -> CheckpointState:
    """The decoded state of one checkpoint, secrets masked (cached; the pages never modify it)."""
    with _reading(("state", store.url, thread_id, ns, checkpoint_id, generation(store, thread_id)),
                  "Decoding the checkpoint…"):
        return _state(store.url, thread_id, ns, checkpoint_id, generation(store, thread_id), store)


def raw_state(store: Store, thread_id: str, checkpoint_id: str, ns: str = "") -> CheckpointState:
    """The decoded state with secrets unmasked: for comparisons, never shown unless revealed."""
    with _reading(("raw", store.url, thread_id, ns, checkpoint_id, _GENERATIONS.get((store.url, thread_id), 0)),
                  "Decoding the checkpoint…"):
        return _raw_state(store.url, thread_id, ns, checkpoint_id, _GENERATIONS.get((store.url, thread_id), 0), store)


def refresh_thread(store: Store, thread_id: str) -> None:
    """Forget the cached timeline and states of one thread; the next read sees new checkpoints and writes."""
    key = (store.url, thread_id)
    _GENERATIONS[key] = _GENERATIONS.get(key, 0) + 1


@st.cache_resource(hash_funcs=HASH_FUNCS, show_spinner=False)
def _analysis_cache(cache_dir: str | None, max_mb: int, url: str, _store: Store,
                    cache_url: str | None = None) -> AnalysisCache | str | None:
    try:
        return open_cache(cache_dir, max_mb, _store, cache_url)
    except CacheError as exc:
        return str(exc)


def opened_store() -> Store | None:
    """The open store (``connection.store``, None after saying why not), with its analysis cache opened beside
    it: the cache's key then keys the redaction marks, so a link naming a masked namespace opens the same page
    after a restart and on every replica sharing the cache."""
    opened = connection_store()
    if opened is not None:
        analysis_cache(opened)
    return opened


def analysis_cache(store: Store) -> AnalysisCache | None:
    """The analysis cache shared with the CLI (None when turned off or unusable, said in the sidebar)."""
    config = settings()
    cache = _analysis_cache(config.cache_dir, config.cache_max_mb, store.url, store, config.cache_url)
    if isinstance(cache, str):
        st.sidebar.caption(":material/info: " + literal(f"Analyses run without their cache: {cache}"))
        return None
    if cache is not None and cache.notice and not st.session_state.get("analysis_cache_notice_shown"):
        st.session_state["analysis_cache_notice_shown"] = True
        st.warning(literal(cache.notice), icon=":material/build:")
    return cache
