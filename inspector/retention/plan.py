"""``plan_store(store, policy)``: what a retention policy would delete, reclaim and break.

Reads keys and stored lengths through ``Operations.retention_reader()``, thread by
thread, never a checkpoint's values. For each thread it picks what the policy
selects, finds what that would break, and (always) works out the variant that
keeps whatever would break, so the plan can say what breaking nothing costs.
The plan holds, per namespace, the actions the SQL statements apply.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable

from ..store import Store
from ..store.model import BranchThread, checkpoint_time
from ..store_ops import operating
from ..store_ops.retention_keys import Key, StorageFacts, ThreadKeys
from .breaks import Break, MetadataOf, find_breaks
from .graph import ThreadGraph
from .policy import Policy, decide, selected

MAX_ROUNDS = 20  # keeping what breaks can reveal more to keep; this many rounds always settle real histories


@dataclass
class NamespaceAction:
    """What the statements do in one namespace of one thread."""

    checkpoint_ns: str
    whole: bool = False
    ids: list[str] = field(default_factory=list)  # checkpoints that go ...
    upto: str | None = None  # ... or: every checkpoint id up to this one (by its bytes: ``_ranged``),
    except_ids: list[str] = field(default_factory=list)  # but these
    new_roots: list[str] = field(default_factory=list)  # stay, their parent goes: parent set to NULL
    blobs: list[tuple[str, str]] = field(default_factory=list)  # (channel, version) no checkpoint left references


@dataclass
class Tally:
    checkpoints: int = 0
    writes: int = 0
    blobs: int = 0
    bytes: float = 0.0
    stored_bytes: int = 0
    kept: int = 0
    whole_thread: bool = False
    new_roots: list[Key] = field(default_factory=list)
    actions: list[NamespaceAction] = field(default_factory=list)


@dataclass
class ThreadPlan:
    thread_id: str
    checkpoints: int
    writes: int
    blobs: int
    bytes: int
    stored_bytes: int
    kept: int
    whole_thread: bool
    breaks: list[Break]
    protected: list[Break]  # safe plans: what is kept so it does not break
    new_roots: list[dict[str, Any]]  # checkpoints that stay while their parent goes: the first of their line
    actions: list[NamespaceAction]

    def as_dict(self) -> dict[str, Any]:
        return {
            "thread_id": self.thread_id, "checkpoints": self.checkpoints, "writes": self.writes, "blobs": self.blobs,
            "bytes": self.bytes, "stored_bytes": self.stored_bytes, "kept_checkpoints": self.kept,
            "whole_thread": self.whole_thread, "breaks": [b.as_dict() for b in self.breaks],
            "protected": [b.as_dict() for b in self.protected], "new_first_checkpoints": self.new_roots,
        }


@dataclass(frozen=True)
class Variant:
    """The same policy, with (``safe``) or without keeping what it would break."""

    description: str
    safe: bool
    reclaim_bytes: int
    checkpoints: int
    breaks: int

    def as_dict(self) -> dict[str, Any]:
        return {"policy": self.description, "safe": self.safe, "reclaim_bytes": self.reclaim_bytes,
                "checkpoints": self.checkpoints, "breaks": self.breaks}


@dataclass
class Plan:
    policy: Policy
    dialect: str
    generated_at: datetime
    facts: StorageFacts
    threads: list[ThreadPlan]
    threads_examined: int
    variant: Variant | None  # the other choice: safe when this plan is not, plain when it is
    notes: list[str] = field(default_factory=list)

    @property
    def rows_bytes(self) -> int:
        return sum(t.bytes for t in self.threads)

    @property
    def reclaim_bytes(self) -> int:
        return self.rows_bytes + self.facts.free_bytes

    @property
    def checkpoints(self) -> int:
        return sum(t.checkpoints for t in self.threads)

    @property
    def breaks(self) -> list[Break]:
        return [b for t in self.threads for b in t.breaks]

    @property
    def variant_cost(self) -> int | None:
        """Bytes the safe variant keeps that the plain one reclaims."""
        if self.variant is None:
            return None
        return abs(self.reclaim_bytes - self.variant.reclaim_bytes)

    def as_dict(self) -> dict[str, Any]:
        return {
            "policy": self.policy.describe(), "dialect": self.dialect, "generated_at": self.generated_at.isoformat(),
            "reclaim_bytes": self.reclaim_bytes, "rows_bytes": self.rows_bytes, "free_bytes": self.facts.free_bytes,
            "file_bytes": self.facts.file_bytes, "checkpoints": self.checkpoints,
            "writes": sum(t.writes for t in self.threads), "blobs": sum(t.blobs for t in self.threads),
            "threads_examined": self.threads_examined, "threads": [t.as_dict() for t in self.threads],
            "variant": None if self.variant is None else {**self.variant.as_dict(), "difference_bytes": self.variant_cost},
            "notes": list(self.notes),
        }


def _ranged(checkpoint_id: str) -> bool:
    """Whether a namespace holding this id may be cut by a range (``checkpoint_id <= upto``): a uuid6 (so a
    checkpoint written later sorts after it), in ASCII, so that ``<=`` over its bytes, as the statements compare
    (``COLLATE "C"``, ``COLLATE BINARY``; also in a UTF-16 SQLite file or a LATIN1 database), orders it as Python's
    ``<=`` did here."""
    return checkpoint_id.isascii() and checkpoint_time(checkpoint_id) is not None


def _action(graph: ThreadGraph, ns: str, going: set[Key], keys: ThreadKeys, tally: Tally) -> NamespaceAction | None:
    members = graph.namespaces[ns]
    gone = [k for k in members if k in going]
    if not gone:
        return None
    action = NamespaceAction(ns, whole=len(gone) == len(members))
    for key in gone:
        node = graph.nodes[key]
        tally.checkpoints += 1
        tally.writes += node.writes
        tally.bytes += node.footprint + node.writes_footprint
        tally.stored_bytes += node.stored_bytes + node.writes_bytes
    if action.whole:
        for stray in (s for s in keys.stray_writes if s.checkpoint_ns == ns):
            tally.writes += stray.writes
            tally.bytes += stray.footprint
            tally.stored_bytes += stray.writes_bytes
    else:
        gone_ids = sorted(k[1] for k in gone)
        kept_ids = sorted(k[1] for k in members if k not in going)
        below = [cid for cid in kept_ids if cid <= gone_ids[-1]]
        if len(below) < len(gone_ids) and all(_ranged(k[1]) for k in members):
            action.upto, action.except_ids = gone_ids[-1], below
        else:
            action.ids = gone_ids
        action.new_roots = sorted(k[1] for k in members
                                  if k not in going and graph.nodes[k].parent_checkpoint_id
                                  and (ns, graph.nodes[k].parent_checkpoint_id) in going)
        tally.new_roots += [(ns, cid) for cid in action.new_roots]
    referenced = {(ch, v) for k in members if k not in going for ch, v in graph.nodes[k].blob_versions.items()}
    for blob in (b for b in keys.blobs if b.checkpoint_ns == ns and (b.channel, b.version) not in referenced):
        action.blobs.append((blob.channel, blob.version))
        tally.blobs += 1
        tally.bytes += blob.stored_bytes
        tally.stored_bytes += blob.stored_bytes
    return action


def account(graph: ThreadGraph, going: set[Key], keys: ThreadKeys) -> Tally:
    """Counts, bytes and statements for deleting ``going``."""
    tally = Tally(kept=len(graph.nodes) - len(going))
    for ns in graph.namespaces:
        action = _action(graph, ns, going, keys, tally)
        if action is not None:
            tally.actions.append(action)
    tally.whole_thread = bool(graph.nodes) and tally.kept == 0
    if tally.whole_thread:  # blobs of namespaces without checkpoints go with the thread
        done = {a.checkpoint_ns for a in tally.actions}
        for blob in (b for b in keys.blobs if b.checkpoint_ns not in done):
            tally.blobs += 1
            tally.bytes += blob.stored_bytes
            tally.stored_bytes += blob.stored_bytes
        for stray in (s for s in keys.stray_writes if s.checkpoint_ns not in done):
            tally.writes += stray.writes
            tally.bytes += stray.footprint
            tally.stored_bytes += stray.writes_bytes
    return tally


def _thread_plan(graph: ThreadGraph, tally: Tally, breaks: list[Break], protected: list[Break]) -> ThreadPlan:
    return ThreadPlan(graph.thread_id, tally.checkpoints, tally.writes, tally.blobs, round(tally.bytes),
                      tally.stored_bytes, tally.kept, tally.whole_thread, breaks, protected,
                      [{"checkpoint_ns": k[0], "checkpoint_id": k[1], "step": graph.step(k)} for k in tally.new_roots],
                      tally.actions)


@dataclass
class ThreadOutcome:
    plain: ThreadPlan | None
    safe: ThreadPlan | None


def plan_thread(keys: ThreadKeys, policy: Policy, now: datetime, links: Iterable[BranchThread] = (),
                metadata_of: MetadataOf = lambda keys: {}) -> ThreadOutcome:
    """The plain and the safe plan of one thread (None where nothing would go)."""
    graph = ThreadGraph(keys)
    picked = selected(graph, policy, now)
    if not picked:
        return ThreadOutcome(None, None)
    links = list(links)
    keep: set[Key] = set()
    protected: list[Break] = []
    plain: ThreadPlan | None = None
    for _ in range(MAX_ROUNDS):
        going = decide(graph, picked, keep)
        found = find_breaks(graph, going, links, metadata_of)
        current = _thread_plan(graph, account(graph, going, keys), found, list(protected)) if going else None
        if plain is None and not protected:
            plain = current
        if not found:
            return ThreadOutcome(plain, current)
        protected += found
        keep |= {k for b in found for k in b.protects}
    return ThreadOutcome(plain, current)  # still breaking after every round: shown with its breaks


def plan_store(store: Store, policy: Policy, now: datetime | None = None) -> Plan:
    """The retention plan for the whole store (or the threads the policy names)."""
    now = now or datetime.now(timezone.utc)
    chosen: list[ThreadPlan] = []
    other: list[ThreadPlan] = []
    examined = 0
    undated = 0
    seen: set[str] = set()
    with operating(store).retention_reader() as reader:
        facts = reader.facts()
        links: dict[str, list[BranchThread]] = defaultdict(list)
        for link in reader.branch_links():
            links[link.parent_thread_id].append(link)
        for keys in reader.threads(list(policy.threads) if policy.threads is not None else None):
            examined += 1
            seen.add(keys.thread_id)
            if (policy.older_than_days is not None or policy.inactive_for_days is not None) and any(
                    checkpoint_time(c.checkpoint_id) is None for c in keys.checkpoints):
                undated += 1
            thread_id = keys.thread_id
            outcome = plan_thread(keys, policy, now, links.get(thread_id, ()),
                                  lambda wanted, tid=thread_id: reader.metadata(tid, wanted))
            mine, theirs = (outcome.safe, outcome.plain) if policy.safe else (outcome.plain, outcome.safe)
            if mine is not None:
                chosen.append(mine)
            if theirs is not None:
                other.append(theirs)
    _drop_branch_breaks_of_deleted_threads(chosen)
    _drop_branch_breaks_of_deleted_threads(other)
    chosen.sort(key=lambda t: (-t.bytes, t.thread_id))
    plan = Plan(policy, facts.dialect, now, facts, chosen, examined, None, list(facts.notes))
    if undated:
        plan.notes.append(f"{undated} thread(s) have checkpoint ids that carry no time: "
                          "those checkpoints are kept by --older-than and --inactive-for")
    if policy.threads is not None and examined < len(set(policy.threads)):
        missing = [t for t in dict.fromkeys(policy.threads) if t not in seen]
        named = ", ".join(repr(t) for t in missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        plan.notes.append(f"{len(missing)} of the threads named are not in this store: {named}")
    if any(t.protected for t in chosen) if policy.safe else any(t.breaks for t in chosen):
        reclaim = sum(t.bytes for t in other) + facts.free_bytes
        plan.variant = Variant(policy.describe(safe=not policy.safe), not policy.safe, reclaim,
                               sum(t.checkpoints for t in other), sum(len(t.breaks) for t in other))
    return plan


def _drop_branch_breaks_of_deleted_threads(plans: list[ThreadPlan]) -> None:
    """A branch thread deleted whole by the same plan has no link left to lose."""
    gone = {p.thread_id for p in plans if p.whole_thread}
    for p in plans:
        p.breaks = [b for b in p.breaks if b.branch_thread not in gone]
