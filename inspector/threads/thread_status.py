"""Each thread's status, as LangGraph's Agent Server names it (idle, busy, interrupted, error), read from the
writes stored against its newest root checkpoint, and the store-wide list of threads waiting on a human.

- ``interrupted``: a task stopped at an interrupt (an ``__interrupt__`` write: LangChain's human-in-the-loop
  middleware, a plain ``interrupt()``) and no answer was stored for it yet; the question is read as the thread's
  profile reads it (``state.interrupts``);
- ``error``: a task's error was stored (an ``__error__`` write);
- ``busy``: tasks wrote on top of the newest checkpoint and the step's checkpoint is not written yet (a step under
  way; also a run whose process stopped mid-step, which the store cannot tell apart);
- ``idle``: nothing stored against the newest checkpoint.

The status comes from keys (``Store.newest_write_keys``: one statement for a page of the list or the whole store);
only an interrupted or failed thread has its newest checkpoint's writes decoded, for the question or the error,
which the analysis cache keeps under that checkpoint with the write keys they were read from (more writes
stored against the same checkpoint make it read again).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..cache.facts import cache_errors
from ..profiles import named_profile, reading
from ..state.interrupts import INTERRUPT_CHANNEL, pending_questions
from ..store import Store, StoreError, WriteKey
from ..store.model import CANCELLED, ERROR_CHANNEL, checkpoint_time
from ..store.records import error_class

STATUSES = ("idle", "busy", "interrupted", "error")
RESUME_CHANNEL = "__resume__"
STATUS_KIND = "status/1"
TEXT_CHARS = 2_000  # characters of a question or an error kept


@dataclass(frozen=True)
class ThreadStatus:
    """A thread's status at its newest root checkpoint; ``since``: that checkpoint's time."""

    state: str
    checkpoint_id: str | None = None
    since: datetime | None = None
    question: str | None = None
    error: str | None = None
    tasks: int = 0  # tasks that wrote on top of the newest checkpoint

    def line(self) -> str:
        """One line for a table cell: the state, and the question or the error."""
        detail = self.question or self.error
        return f"{self.state}: {' '.join(detail.split())}" if detail else self.state


def state_of(keys: list[WriteKey]) -> str:
    """The status the writes against a thread's newest root checkpoint give (see the module's docstring)."""
    channels = {k.channel for k in keys}
    if ERROR_CHANNEL in channels:
        return "error"
    if INTERRUPT_CHANNEL in channels and RESUME_CHANNEL not in channels:
        return "interrupted"
    return "busy" if keys else "idle"


def _signature(keys: list[WriteKey]) -> list[list[Any]]:
    return [[k.task_id, k.idx, k.channel, k.size] for k in keys if k.channel in (INTERRUPT_CHANNEL, ERROR_CHANNEL)]


def _error_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and "__type__" in value:
        inner = value.get("value")
        return f"{value['__type__']}: {inner}" if inner is not None else str(value["__type__"])
    return str(value)


def _errors(texts: list[str]) -> list[str]:
    """The errors to show: each task's own once, and the tasks LangGraph cancelled beside them as a count (a
    failed ``Send`` fan-out stores a ``CancelledError`` for every sibling still waiting)."""
    own = [t for t in texts if error_class(t) != CANCELLED]
    cancelled = len(texts) - len(own)
    own = list(dict.fromkeys(own))
    if cancelled:
        own.append(f"{cancelled} task(s) cancelled (CancelledError)" + (" when another failed" if own else ""))
    return own


def _read_details(store: Store, thread_id: str, checkpoint_id: str, cache: Any) -> dict[str, Any]:
    """The question(s) and the error stored against the checkpoint, as the thread's profile reads them."""
    try:
        with reading(store, thread_id, cache=cache) as chosen:
            writes = next((w for cid, w in store.iter_writes(thread_id, "", [checkpoint_id]) if cid == checkpoint_id), [])
            asked = [q.question or "(the interrupt carries no question text)" for q in pending_questions(writes)]
            errors = _errors([_error_text(w.value) for w in writes if w.channel == ERROR_CHANNEL])
            profile = chosen.name
    except StoreError as exc:
        return {"profile": None, "question": None, "error": f"the writes could not be read: {exc}"}
    return {"profile": profile, "question": "\n".join(asked)[:TEXT_CHARS] or None,
            "error": "\n".join(errors)[:TEXT_CHARS] or None}


def statuses(store: Store, newest: dict[str, tuple[str, list[WriteKey]]], cache: Any = None) -> dict[str, ThreadStatus]:
    """Each thread's status from its newest root checkpoint and the write keys against it (as
    ``Store.newest_write_keys`` gives them); questions and errors read once per checkpoint (see the module's
    docstring)."""
    found: dict[str, ThreadStatus] = {}
    details_wanted = {tid: ("", cid) for tid, (cid, keys) in newest.items() if state_of(keys) in ("interrupted", "error")}
    identity, held = None, {}
    if cache is not None and details_wanted:
        try:
            identity = store.fact_identity()
            held = cache.get_many(identity, STATUS_KIND, details_wanted)
        except cache_errors():  # a cache that cannot be read now: read from the store
            identity, held = None, {}
    named = named_profile()
    for tid, (cid, keys) in newest.items():
        state = state_of(keys)
        base = dict(state=state, checkpoint_id=cid, since=checkpoint_time(cid) if cid else None,
                    tasks=len({k.task_id for k in keys}))
        if tid not in details_wanted:
            found[tid] = ThreadStatus(**base)
            continue
        signature = _signature(keys)
        fact = held.get(tid)
        if not (isinstance(fact, dict) and fact.get("sig") == signature and named in (None, fact.get("profile"))):
            fact = {"sig": signature, **_read_details(store, tid, cid, cache)}
            if identity is not None and named is None and fact.get("profile") is not None:
                with contextlib.suppress(*cache_errors()):  # read again next time
                    cache.put(identity, tid, STATUS_KIND, {("", cid): fact}, replacing=[("", cid)] if tid in held else [])
        question = fact.get("question") if state == "interrupted" else None
        found[tid] = ThreadStatus(**base, question=question if isinstance(question, str) else None,
                                  error=fact.get("error") if isinstance(fact.get("error"), str) else None)
    return found


def listed_statuses(store: Store, thread_ids: list[str], cache: Any = None) -> dict[str, ThreadStatus]:
    """The status of each of ``thread_ids`` (a page of the list), from one read of keys."""
    return statuses(store, store.newest_write_keys(thread_ids), cache) if thread_ids else {}


def store_statuses(store: Store) -> dict[str, str]:
    """Every thread that is not idle, and its status: from one read of keys, nothing decoded."""
    return {tid: state_of(keys) for tid, (_, keys) in store.newest_write_keys(None).items()}


@dataclass(frozen=True)
class Waiting:
    """A thread waiting on a human: its question, since when, the checkpoint it waits at, its title."""

    thread_id: str
    question: str
    since: datetime | None
    checkpoint_id: str
    title: str | None = None


def waiting_on_human(store: Store, cache: Any = None) -> list[Waiting]:
    """Every thread of the store stopped at an interrupt with no answer stored, the longest waiting first."""
    from .thread_titles import titles_at

    newest = {tid: found for tid, found in store.newest_write_keys(None).items() if state_of(found[1]) == "interrupted"}
    found = statuses(store, newest, cache)
    titles = titles_at(store, {tid: cid for tid, (cid, _) in newest.items()}, cache)
    waiting = [Waiting(tid, s.question or "(the interrupt carries no question text)", s.since, s.checkpoint_id or "",
                       titles.get(tid)) for tid, s in found.items()]
    return sorted(waiting, key=lambda w: (w.since is None, w.since.timestamp() if w.since else 0.0, w.thread_id))
