"""Where each delta channel's value comes from at every checkpoint of a thread, and what is wrong with its chains.

Every shape LangGraph's ``DeltaChannel`` has stored is read (``store.delta``): today's snapshot (a
``DeltaSnapshot`` every ``snapshot_frequency`` updates, nothing in between, the channel rebuilt from the last
snapshot plus the writes since), the full value a channel stored before it was a DeltaChannel (a plain seed),
and LangGraph 1.2 alpha's sentinel (an empty marker the installed LangGraph reads as an empty value instead
of replaying). Each checkpoint's channel is one of:

- ``snapshot``: its value is stored here as a snapshot;
- ``full``: its value is stored here whole (a full-mode row);
- ``sentinel``: the alpha's marker is stored here; the inspector rebuilds it as LangGraph then did;
- ``rebuilt``: nothing is stored here; the value is the seed (a snapshot, a full value, or an empty start at
  the thread's first checkpoint) plus the writes since;
- ``cut``: nothing is stored here and the chain up to its seed is gone (a checkpoint's parent is not in the
  store): the value cannot be rebuilt, and is never shown as empty.

Lints: a channel mixing full and delta rows in one thread; a read replaying far more updates than the
channel's snapshot frequency; a cut chain. Reads the thread's states once, decoding only its delta channels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..store import Store
from ..store.delta import DELTA_COUNTERS_KEY, delta_channels
from ..store.not_utf8 import quoted
from ..store.records import SENTINEL_STORED, SNAPSHOT_STORED

LANGGRAPH_DEFAULT_FREQUENCY = 100  # DeltaChannel's default snapshot_frequency
FAR_PAST = 2  # a read replaying more than this many times the snapshot frequency is flagged
FORMS = ("snapshot", "full", "sentinel", "rebuilt", "cut")


@dataclass(frozen=True)
class ChannelAt:
    """One delta channel at one checkpoint: its form there, where its value comes from, the updates replayed."""

    checkpoint_ns: str
    checkpoint_id: str
    step: int | None
    channel: str
    form: str
    source: str
    replayed: int = 0  # checkpoints whose writes a read replays (0 where the value is stored)


@dataclass(frozen=True)
class DeltaLint:
    kind: str  # mixed-rows, deep-replay, cut-chain, sentinel
    channel: str
    message: str
    checkpoint_id: str | None = None


@dataclass
class DeltaChains:
    thread_id: str
    checkpoint_ns: str
    channels: list[str]
    rows: list[ChannelAt] = field(default_factory=list)
    lints: list[DeltaLint] = field(default_factory=list)
    frequencies: dict[str, int] = field(default_factory=dict)  # the snapshot frequency observed (or assumed)

    def forms(self, channel: str) -> dict[str, int]:
        """How many checkpoints hold ``channel`` in each form."""
        counts = dict.fromkeys(FORMS, 0)
        for row in self.rows:
            if row.channel == channel:
                counts[row.form] += 1
        return counts


def _form(state: Any, name: str) -> tuple[str, str, int] | None:
    """(form, source, updates replayed) of ``name`` at ``state``; None where the channel has no value there."""
    source = state.delta_sources.get(name)
    found = state.delta_history.get(name)
    replayed = len({w.checkpoint_id for w in found.writes}) if found is not None else 0
    if found is not None and found.cut:
        return "cut", source or "", replayed
    if source is not None and source.startswith(SENTINEL_STORED):
        return "sentinel", source, replayed
    if source is not None and source.startswith(SNAPSHOT_STORED):
        return "snapshot", source, 0
    if found is not None:
        return "rebuilt", source or "", replayed
    if name in state.values:
        return "full", source or "full value stored at this checkpoint", 0
    return None


def delta_chains(store: Store, thread_id: str, ns: str = "") -> DeltaChains:
    """The sources and lints of ``thread_id``'s delta channels in namespace ``ns`` (its states read once)."""
    metadata = [row.metadata for row in store.timeline(thread_id) if row.checkpoint_ns == ns]
    named = sorted(delta_channels(*metadata))
    seen: set[str] = set(named)
    read: list[tuple[Any, int | None, dict[str, tuple[str, str, int]]]] = []
    for state in store.iter_states(thread_id, ns, channels=named or None):
        step = state.metadata.get("step") if isinstance(state.metadata.get("step"), int) else None
        seen.update(state.delta_sources)
        forms = {name: found for name in [*state.values, *state.delta_sources] if (found := _form(state, name))}
        read.append((state, step, forms))
    report = DeltaChains(thread_id, ns, sorted(seen))
    before_snapshot: dict[str, list[int]] = {}
    previous: dict[str, Any] = {}  # channel -> its updates counter at the checkpoint before (in id order)
    for state, step, forms in read:
        counters = state.metadata.get(DELTA_COUNTERS_KEY)
        for name in report.channels:
            if name not in forms:
                continue
            form, source, replayed = forms[name]
            report.rows.append(ChannelAt(state.checkpoint_ns, state.checkpoint_id, step, name, form, source, replayed))
            if form == "snapshot" and isinstance(previous.get(name), int):
                before_snapshot.setdefault(name, []).append(previous[name] + 1)
            value = counters.get(name) if isinstance(counters, dict) else None
            previous[name] = value[0] if isinstance(value, (list, tuple)) and value else None
    for name in report.channels:
        observed = before_snapshot.get(name, [])
        report.frequencies[name] = max(observed) if observed else LANGGRAPH_DEFAULT_FREQUENCY
        report.lints.extend(_lints(report, name, bool(observed)))
    return report


# Rows in a form LangGraph cannot read as stored: the lint's kind, and what it says of the channel ``label``,
# ``count`` rows in that form, the first at ``step``
FORM_LINTS = {
    "cut": ("cut-chain", "{label} cannot be rebuilt at {count} checkpoint(s) (from step {step}): the checkpoints "
                         "holding its seed were deleted (the oldest of this thread are gone) while the rows after them "
                         "still need it; LangGraph would rebuild it from the surviving writes alone, silently short"),
    "sentinel": ("sentinel", "{label} is stored as LangGraph 1.2 alpha's sentinel at {count} checkpoint(s): the "
                             "installed LangGraph no longer reads that form (it takes the marker as an empty value and "
                             "replays nothing); the inspector rebuilds it from the writes, as the alpha did"),
}


def _lints(report: DeltaChains, name: str, observed: bool) -> list[DeltaLint]:
    rows = [r for r in report.rows if r.channel == name]
    forms = report.forms(name)
    found: list[DeltaLint] = []
    label = quoted(name)
    delta_rows = forms["snapshot"] + forms["rebuilt"] + forms["sentinel"] + forms["cut"]
    if forms["full"] and delta_rows:
        first_delta = next(r for r in rows if r.form != "full")
        found.append(DeltaLint(
            "mixed-rows", name,
            f"{label} mixes full and delta rows: {forms['full']} checkpoint(s) store its whole value, {delta_rows} store "
            f"it as a DeltaChannel (a snapshot, or nothing and a rebuild from writes), from step {first_delta.step}: "
            "the thread was written before and after a change of channel mode. LangGraph reads a full row as a plain "
            "seed, so the values hold, but sizes, replay depths and a retention that keeps only the newest rows differ "
            "between the two parts", first_delta.checkpoint_id))
    for form, (kind, says) in FORM_LINTS.items():
        at = [r for r in rows if r.form == form]
        if at:
            found.append(DeltaLint(kind, name, says.format(label=label, count=len(at), step=at[0].step),
                                   at[0].checkpoint_id))
    frequency = report.frequencies[name]
    deepest = max(rows, key=lambda r: r.replayed, default=None)
    if deepest is not None and deepest.replayed > FAR_PAST * frequency:
        basis = "as observed between its snapshots" if observed else "LangGraph's default; no snapshot was seen"
        found.append(DeltaLint(
            "deep-replay", name,
            f"a read of {label} at step {deepest.step} replays {deepest.replayed} updates, far past its snapshot "
            f"frequency of {frequency} ({basis}): a snapshot is missing (deleted, or never written: the alpha's "
            "sentinel, a full row kept as the seed) or the frequency was raised; every read there replays the whole "
            "chain", deepest.checkpoint_id))
    return found
