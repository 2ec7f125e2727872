"""Thread health: flags raised from a thread's sizes and from its newest states, and schema drift.

Size flags (oversized state or field, long unsummarised conversations, and the size lints of the
thread's profile: DeerFlow's image data held in ``viewed_images``) come from the thread's stored
sizes (``cached_sizes``) and decode nothing.
Base64 images anywhere in the history are found by a byte search in the same
rows; only the checkpoints where a payload first appears are decoded, to name
its carrier (``inspector.sizes.health_base64``). Value lints (dangling tool calls,
several todos in progress, artifact paths) look at the newest checkpoint of each
branch of the root graph, each decoded once through ``Store.state``. Every flag
names the checkpoint(s) and field, says why it matters and what usually fixes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

from ..cache import AnalysisCache
from ..formatting import human_bytes
from ..profiles import reads_thread, size_lints, text
from ..profiles.flags import Flag
from ..schema.default import SchemaDrift, schema_pending
from ..settings import Settings
from ..state.drift import thread_drift
from ..store import CheckpointSizes, CheckpointState, Store, StoreError, ThreadSummary, is_internal_channel
from ..store.decode import CORRUPT_BLOB
from .accounting import ThreadSizes, thread_sizes
from .cached import Progress, sizes_stream
from .health_base64 import Decode, base64_flags, state_decoder
from .health_values import value_flags
from .store_sizes import across_threads, largest_threads

SUMMARY_FIELDS = ("summary_text", "summary")


@dataclass(frozen=True)
class ThreadHealth:
    thread_id: str
    sizes: ThreadSizes
    flags: list[Flag] = field(default_factory=list)
    # listed, never a flag; None only from ``thread_health(drift=False)``, when it was left unmeasured
    schema_drift: SchemaDrift | None = field(default_factory=SchemaDrift)

    def codes(self) -> list[str]:
        return list(dict.fromkeys(f.code for f in self.flags))



def oversize_flags(sizes: ThreadSizes, settings: Settings) -> list[Flag]:
    flags = []
    over = [c for c in sizes.checkpoints if c.total_bytes > settings.oversize_state_bytes]
    if over:
        peak = max(over, key=lambda c: c.total_bytes)
        flags.append(Flag(
            "oversized-state", sizes.thread_id, None, tuple(c.checkpoint_id for c in over),
            f"state passes {human_bytes(settings.oversize_state_bytes)} at step {over[0].step} and stays over in "
            f"{len(over)} checkpoint(s); peak {human_bytes(peak.total_bytes)} at step {peak.step}",
            "every checkpoint stores the whole state again: storage grows with each step and every load pays for it",
            "keep large payloads (images, files, tool output) on disk and put paths in state; prune old checkpoints",
        ))
    names = dict.fromkeys(name for c in sizes.checkpoints for name in c.fields)
    for name in names:
        big = [c for c in sizes.checkpoints if c.fields.get(name, 0) > settings.oversize_field_bytes]
        if big:
            why, fix = _field_advice(name, any(name in c.rebuilt for c in big))
            flags.append(Flag(
                "oversized-field", sizes.thread_id, name, tuple(c.checkpoint_id for c in big),
                f"over {human_bytes(settings.oversize_field_bytes)} from step {big[0].step} "
                f"(peak {human_bytes(max(c.fields[name] for c in big))}) in {len(big)} checkpoint(s)",
                why, fix,
            ))
    return flags


# What makes LangGraph's own channels large, and what makes them smaller: never the app's field to trim.
SEND_FIX = ("pass tasks only what they need (a smaller Send argument, a path instead of content) so LangGraph stores "
            "less; there is no field to trim")
INTERNAL_CAUSES = {
    "__pregel_tasks": ("the packets of tasks started with Send (each carries its argument: a subagent or tool "
                       "call handed the whole state, a map-reduce fan-out), kept until the tasks run", SEND_FIX),
    "__start__": ("the run's input, as it was passed to invoke",
                  "pass the run a smaller input (a path or an id instead of content) and let a node load the bulk; "
                  "there is no field to trim"),
    "__interrupt__": ("the values an interrupt carries to the caller",
                      "interrupt with a short question and ids, not the payload itself; there is no field to trim"),
}


def _field_advice(name: str, rebuilt: bool) -> tuple[str, str]:
    """Why a large channel matters and what usually fixes it: an app's field, a delta channel, or LangGraph's own."""
    if is_internal_channel(name):
        cause, fix = INTERNAL_CAUSES.get(name, ("what the graph passes between its nodes through this channel",
                                                SEND_FIX))
        return (f"{name} is LangGraph's own channel, not a field of the app's state; it is large because it holds {cause}",
                fix)
    if rebuilt:
        return (f"{name} is a delta channel: stored once as writes, but rebuilt from them and loaded whole at every read",
                f"store {name}'s bulk outside the state (files, a store) or trim it with its reducer")
    return (f"{name} alone dominates the state, and it is re-stored at every checkpoint",
            f"store {name}'s bulk outside the state (files, a store) or trim it with its reducer")


def _root(rows: Iterable[CheckpointSizes]) -> list[CheckpointSizes]:
    return sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id)


def _has_summary(row: CheckpointSizes) -> bool:
    return any(name in row.channels and row.channels[name].bytes > 1 for name in SUMMARY_FIELDS)


def _message_counts(rows: list[CheckpointSizes], states: list[CheckpointState]) -> list[tuple[str, int | None, int, bool]]:
    """(checkpoint, step, messages, summarised) per root checkpoint; from decoded states where the
    store cannot count stored items (shared blobs)."""
    root = _root(rows)
    if any(row.channels.get("messages") and row.channels["messages"].items for row in root):
        return [(r.checkpoint_id, r.step, len(r.channels["messages"].items), _has_summary(r))
                for r in root if "messages" in r.channels]
    steps = {r.checkpoint_id: r.step for r in root}
    return [(s.checkpoint_id, steps.get(s.checkpoint_id), len(s.values.get("messages") or []),
             any(s.values.get(name) for name in SUMMARY_FIELDS)) for s in states]


def message_count_flags(thread_id: str, rows: list[CheckpointSizes], settings: Settings,
                        states: list[CheckpointState] = ()) -> list[Flag]:
    """Conversations past ``max_messages_without_summary`` messages with no summary in state."""
    limit = settings.max_messages_without_summary
    long = [(cid, step, count) for cid, step, count, summarised in _message_counts(rows, list(states))
            if count > limit and not summarised]
    if not long:
        return []
    return [Flag(
        "messages-unsummarised", thread_id, "messages", tuple(cid for cid, _, _ in long),
        f"{long[-1][2]} messages and no summary (limit {limit}); first over the limit at step {long[0][1]}",
        "every message is re-stored at every checkpoint and re-sent to the model: cost grows quadratically",
        text("health.unsummarised.fix"),
    )]


def leaf_ids(rows: Iterable[CheckpointSizes]) -> list[str]:
    """The newest checkpoint of each branch of the root graph (nobody's parent), oldest first."""
    root = _root(rows)
    parents = {r.parent_checkpoint_id for r in root}
    return [r.checkpoint_id for r in root if r.checkpoint_id not in parents]


def _merge(flags: list[Flag]) -> list[Flag]:
    """One flag per (code, field, summary), naming every checkpoint it was found at."""
    merged: dict[tuple, Flag] = {}
    for flag in flags:
        key = (flag.code, flag.field, flag.summary)
        if key in merged:
            ids = tuple(dict.fromkeys(merged[key].checkpoint_ids + flag.checkpoint_ids))
            merged[key] = replace(merged[key], checkpoint_ids=ids)
        else:
            merged[key] = flag
    return list(merged.values())


def thread_flags(thread_id: str, rows: list[CheckpointSizes], sizes: ThreadSizes,
                 states: Iterable[CheckpointState], settings: Settings, decode: Decode) -> list[Flag]:
    """Every flag for one thread, from its size rows, its decoded leaf states and ``decode`` (which
    decodes the checkpoints where base64 images first appear)."""
    flags = oversize_flags(sizes, settings)
    for lint in size_lints():
        flags += [Flag(thread_id=thread_id, **found) for found in lint(rows, settings)]
    states = list(states)
    flags += message_count_flags(thread_id, rows, settings, states)
    flags += [Flag(thread_id=thread_id, **found) for found in base64_flags(rows, decode)]
    for state in states:
        flags += [Flag(thread_id=thread_id, **found) for found in value_flags(state, rows)]
    return _merge(flags)


def corrupt_flags(thread_id: str, rows: list[CheckpointSizes]) -> list[Flag]:
    """One flag naming the checkpoints whose blob is corrupt or truncated (measured, never decoded for it)."""
    cut = tuple(r.checkpoint_id for r in rows
                if any(p.field is None and p.message.startswith(CORRUPT_BLOB) for p in r.problems))
    if not cut:
        return []
    return [Flag(
        "corrupt-checkpoint", thread_id, None, cut,
        f"{len(cut)} checkpoint blob(s) are corrupt or truncated: the channels after the cut cannot be read",
        "their state shows only what comes before the cut, their sizes count what could be read, and replay leaves "
        "the fields they hide unverified",
        "check the store's integrity (PRAGMA integrity_check on SQLite) and restore from a backup; a later checkpoint "
        "that reads whole holds the thread's state",
    )]


# The settings the flags' thresholds are read from
THRESHOLDS = ("oversize_state_bytes", "oversize_field_bytes", "uncleared_images_after", "max_messages_without_summary")


def health_settings_note(settings: Settings) -> dict[str, int]:
    """The thresholds the flags were raised with."""
    return {name: getattr(settings, name) for name in THRESHOLDS}


@reads_thread
def thread_health(store: Store, thread_id: str, settings: Settings | None = None, cache: AnalysisCache | None = None,
                  progress: Progress | None = None, drift: bool = True) -> ThreadHealth:
    """Sizes and flags of one thread: blobs read once for sizes (not at all for checkpoints ``cache``
    measured before), each branch's newest state decoded once. ``drift=False``: the schema drift is left
    out (``schema_drift`` None) when measuring it would build an app's schema not built yet (a list that
    shows sizes and flags only); otherwise it is measured as always."""
    settings = settings or Settings()
    rows = list(sizes_stream(store, thread_id, cache, progress))
    sizes = thread_sizes(thread_id, rows, store.size_accounting, settings.what_if_keep_newest)
    states, unreadable = [], []
    for cid in leaf_ids(rows):
        try:
            states.append(store.state(thread_id, cid))
        except StoreError as exc:
            unreadable.append(Flag(
                "unreadable-checkpoint", thread_id, None, (cid,), f"the newest checkpoint of a branch could not be read: {exc}",
                "value lints (tool calls, todos, artifacts) could not check this branch",
                "check the store's integrity; the other branches and the size flags are unaffected",
            ))
    decode = state_decoder(lambda cid, ns: store.state(thread_id, cid, ns), states)
    flags = thread_flags(thread_id, rows, sizes, states, settings, decode) + unreadable + corrupt_flags(thread_id, rows)
    if not drift and schema_pending():
        return ThreadHealth(thread_id, sizes, flags, None)
    return ThreadHealth(thread_id, sizes, flags, thread_drift(states=states, sizes=rows))


Measure = Callable[[ThreadSummary, "Progress | None"], ThreadHealth]


def store_health(store: Store, settings: Settings | None = None, top: int | None = None,
                 cache: AnalysisCache | None = None, progress: Progress | None = None,
                 measure: Measure | None = None) -> list[ThreadHealth]:
    """Every thread ranked by stored bytes (one SQL aggregate); the ``top`` largest (all for None) analysed,
    largest first. ``measure(thread, progress)`` analyses one thread (default: ``thread_health``; the page
    passes its cached reader)."""
    threads = largest_threads(store, top)
    if measure is None:
        def measure(thread: ThreadSummary, step: Progress | None) -> ThreadHealth:
            return thread_health(store, thread.thread_id, settings, cache, step)
    reports = [measure(t, step) for t, step in zip(threads, across_threads(progress, threads))]
    return sorted(reports, key=lambda r: (-r.sizes.stored_bytes, r.thread_id))
