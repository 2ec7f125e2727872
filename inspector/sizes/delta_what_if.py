"""What delta mode would store: a thread's bytes if ``messages`` were LangGraph's ``DeltaChannel`` at a
snapshot frequency, computed from what is stored (per-checkpoint channel sizes, writes, lineage).

LangGraph 1.2's rule (``langgraph.channels.delta``): a checkpoint whose step updated the channel counts
one update; when the count since the last snapshot reaches ``snapshot_frequency``, that checkpoint
stores the whole value as a ``DeltaSnapshot`` and the count starts again; every other checkpoint stores
no value for the channel, and its metadata carries ``counters_since_delta_snapshot``. A read rebuilds
the value from the nearest snapshot and the writes stored since: the trade-off is how many writes a
read replays at most.

For a thread in full mode each checkpoint's stored ``messages`` bytes are known; for a thread already in
delta mode they are known at its snapshots, and between them estimated as the snapshot's bytes plus the
bytes written to the channel since (exact for an append-only conversation). Every namespace of the thread
is priced (the root graph's and each subgraph's, whose checkpoints LangGraph counts apart): its checkpoints
taken in id order (a fork is counted as if it continued the line). A namespace that neither stores nor
writes the channel is left as it is stored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..store import SHARED_BLOBS, Store
from ..store.delta import DELTA_COUNTERS_KEY
from ..store.model import CheckpointSizes, Key
from ..store.not_utf8 import named

SNAPSHOT_OVERHEAD = 4  # msgpack ext header a DeltaSnapshot adds around the value (measured, LangGraph 1.2)
DEFAULT_FREQUENCIES = (1, 5, 10, 25, 100)


@dataclass(frozen=True)
class DeltaOption:
    frequency: int
    stored_bytes: int  # the thread's checkpoints and writes, predicted
    channel_bytes: int  # of which the channel's snapshots
    snapshots: int
    max_replayed_writes: int  # the most writes one read folds (from the nearest snapshot)
    saved_bytes: int  # against what is stored now
    saved_share: float


@dataclass(frozen=True)
class DeltaWhatIf:
    thread_id: str
    channel: str
    mode: str  # "full" or "delta" (the thread as stored)
    stored_bytes: int
    checkpoints: int
    updates: int  # checkpoints whose step updated the channel
    options: list[DeltaOption] = field(default_factory=list)
    basis: str = ""
    present: bool = True  # the channel is stored or written somewhere in the thread (any namespace)
    subgraph_namespaces: int = 0  # namespaces priced besides the root graph's


def _counters_bytes(updates: int, steps: int, channel: str) -> int:
    """What ``counters_since_delta_snapshot`` adds to a checkpoint's metadata (JSON, as the savers store it)."""
    return len(json.dumps({DELTA_COUNTERS_KEY: {channel: [updates, steps]}})) - 1  # one brace shared with the rest


def delta_what_if(store: Store, thread_id: str, frequencies: tuple[int, ...] = DEFAULT_FREQUENCIES,
                  channel: str = "messages") -> DeltaWhatIf:
    """The thread's bytes, every namespace of it (the root graph and each subgraph's), if ``channel`` were a
    ``DeltaChannel`` snapshotting every Nth update, for each N of ``frequencies``."""
    if any(not isinstance(f, int) or f <= 0 for f in frequencies):
        raise ValueError(f"snapshot frequencies must be positive integers, got {frequencies!r}")
    timeline = store.timeline(thread_id)
    by_ns: dict[str, list] = {}
    for row in sorted(timeline, key=lambda r: (r.checkpoint_ns, r.checkpoint_id)):
        by_ns.setdefault(row.checkpoint_ns, []).append(row)
    sizes: dict[Key, CheckpointSizes] = {(s.checkpoint_ns, s.checkpoint_id): s
                                         for s in store.iter_field_sizes(thread_id, None)}
    write_counts: dict[Key, tuple[int, int]] = {}  # the channel's writes stored against a checkpoint: count, bytes
    for key, writes in store.write_keys(thread_id, [(r.checkpoint_ns, r.checkpoint_id) for r in timeline]).items():
        mine = [w for w in writes if w.channel == channel]
        write_counts[key] = (len(mine), sum(w.size for w in mine))
    shared = store.size_accounting == SHARED_BLOBS  # PostgreSQL: a blob row per channel version, kept once
    stored_now = sum(s.stored_bytes + s.writes_bytes for s in sizes.values())
    if shared:
        stored_now += sum({c.blob_key: c.bytes for s in sizes.values() for c in s.channels.values()
                           if c.blob_key is not None}.values())
    lines = [_price_line(ns, rows, sizes, write_counts, frequencies, channel, shared) for ns, rows in by_ns.items()]
    priced = [line for line in lines if line.present]
    delta_mode = any(line.delta_mode for line in priced)
    options = []
    for i, frequency in enumerate(frequencies):
        predicted = stored_now - sum(line.saved[i] for line in priced)
        channel_bytes = sum(line.channel_bytes[i] for line in priced)
        options.append(DeltaOption(frequency, predicted, channel_bytes, sum(line.snapshots[i] for line in priced),
                                   max((line.worst[i] for line in priced), default=0), stored_now - predicted,
                                   (stored_now - predicted) / stored_now if stored_now else 0.0))
    checkpoints, updates = len(timeline), sum(line.updates for line in lines)
    subgraphs = [ns for ns in by_ns if ns]
    where = (f"{checkpoints} checkpoint(s): {len(by_ns.get('', []))} in the root graph and "
             f"{checkpoints - len(by_ns.get('', []))} in {len(subgraphs)} subgraph namespace(s), each namespace "
             f"priced as its own line of checkpoints" if subgraphs else f"{checkpoints} root checkpoint(s)")
    basis = (f"{where}; {updates} of them updating {named(channel)}; stored now "
             f"{stored_now:,} bytes ({'delta' if delta_mode else 'full'} mode). A snapshot is stored every Nth update "
             f"(LangGraph's DeltaChannel rule); other checkpoints store no {named(channel)} value but their metadata gains "
             f"{DELTA_COUNTERS_KEY}. "
             + ("Between this thread's snapshots the value's size is the snapshot's plus the bytes written since."
                if delta_mode else f"Each checkpoint's {named(channel)} bytes are those stored now.")
             + " Max replayed writes: the most writes to the channel one read folds from its nearest snapshot.")
    return DeltaWhatIf(thread_id, channel, "delta" if delta_mode else "full", stored_now, checkpoints, updates,
                       options, basis, bool(priced), len(subgraphs))


@dataclass(frozen=True)
class _Line:
    """One namespace's checkpoints priced: per frequency, the bytes saved, the snapshots' bytes and count,
    the most writes a read folds."""

    present: bool  # the channel is stored or written in this namespace (else it is not priced: no DeltaChannel)
    delta_mode: bool
    updates: int
    saved: list[int]
    channel_bytes: list[int]
    snapshots: list[int]
    worst: list[int]


def _price_line(ns: str, rows: list, sizes: dict[Key, CheckpointSizes], write_counts: dict[Key, tuple[int, int]],
                frequencies: tuple[int, ...], channel: str, shared: bool) -> _Line:
    """A namespace's checkpoints in id order (a fork counted as if it continued the line), priced."""
    def parent_key(row) -> Key:
        return ns, row.parent_checkpoint_id or ""

    held_here = {row.checkpoint_id: sizes.get((ns, row.checkpoint_id)) for row in rows}
    written_at = {row.checkpoint_id: channel in row.write_channels for row in rows}
    delta_mode = any(DELTA_COUNTERS_KEY in (r.metadata or {}) for r in rows) or any(
        channel not in s.channels for s in held_here.values() if s is not None
        and written_at.get(s.parent_checkpoint_id or ""))
    present = any(s is not None and channel in s.channels for s in held_here.values()) or any(
        write_counts.get((ns, r.checkpoint_id), (0, 0))[0] for r in rows)
    # the channel's bytes at each checkpoint: stored, or (delta mode) the last stored value plus the writes since
    value_bytes: list[int] = []
    stored_value: list[int] = []
    seen_blobs: set[str] = set()
    last = 0
    for row in rows:
        held = held_here[row.checkpoint_id]
        here = held.channels.get(channel) if held else None
        parent_writes = write_counts.get(parent_key(row), (0, 0))[1]
        if here is not None:
            last = here.bytes - (SNAPSHOT_OVERHEAD if delta_mode else 0)
            first_copy = not shared or here.blob_key is None or here.blob_key not in seen_blobs
            seen_blobs.add(here.blob_key or "")
            stored_value.append(here.bytes if first_copy else 0)
        else:
            last = last + parent_writes if written_at.get(row.parent_checkpoint_id or "") else last
            stored_value.append(0)
        value_bytes.append(last)
    updated = [bool(written_at.get(r.parent_checkpoint_id or "")) for r in rows]
    now_counters = sum(_counters_bytes(*c, channel) for c in _counters(rows, channel) if c is not None) if delta_mode else 0
    now = sum(stored_value) + now_counters  # what the channel costs this line now: its stored values, its counters
    line = _Line(present, delta_mode, sum(updated), [], [], [], [])
    for frequency in frequencies:
        count = steps = replay = worst = snapshots = 0
        channel_bytes = counters = 0
        for row, is_update, size in zip(rows, updated, value_bytes):
            steps += 1
            if is_update:
                count += 1
            worst = max(worst, replay)  # a read here folds the writes stored since the snapshot
            if is_update and count >= frequency:
                snapshots += 1
                channel_bytes += size + SNAPSHOT_OVERHEAD
                count = steps = replay = 0
            else:
                counters += _counters_bytes(count, steps, channel)
            replay += write_counts.get((ns, row.checkpoint_id), (0, 0))[0]
        line.saved.append(now - channel_bytes - counters)
        line.channel_bytes.append(channel_bytes)
        line.snapshots.append(snapshots)
        line.worst.append(worst)
    return line


def _counters(rows, channel: str):
    for row in rows:
        counters = (row.metadata or {}).get(DELTA_COUNTERS_KEY)
        value = counters.get(channel) if isinstance(counters, dict) else None
        yield tuple(value) if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value) \
            else None


@dataclass(frozen=True)
class StoreDeltaWhatIf:
    threads: list[DeltaWhatIf]
    store_bytes: int  # the whole store now
    measured_bytes: int  # the threads measured, now
    options: list[DeltaOption]
    basis: str


def store_delta_what_if(store: Store, top: int, frequencies: tuple[int, ...] = DEFAULT_FREQUENCIES,
                        channel: str = "messages") -> StoreDeltaWhatIf:
    """The ``top`` largest threads (by stored bytes) priced in delta mode, and their sum per frequency."""
    ranked = store.threads(limit=top, sort="stored")
    reports = [delta_what_if(store, t.thread_id, frequencies, channel) for t in ranked]
    measured = sum(r.stored_bytes for r in reports)
    options = []
    for i, frequency in enumerate(frequencies):
        predicted = sum(r.options[i].stored_bytes for r in reports)
        options.append(DeltaOption(frequency, predicted, sum(r.options[i].channel_bytes for r in reports),
                                   sum(r.options[i].snapshots for r in reports),
                                   max((r.options[i].max_replayed_writes for r in reports), default=0),
                                   measured - predicted, (measured - predicted) / measured if measured else 0.0))
    total = store.totals().stored_bytes
    basis = (f"the {len(reports)} largest thread(s), {measured:,} of the store's {total:,} stored bytes "
             f"({measured / total:.0%}), each priced as one thread is (its root graph and every subgraph namespace); "
             "the rest of the store is not measured."
             if total else "the store is empty")
    return StoreDeltaWhatIf(reports, total, measured, options, basis)
