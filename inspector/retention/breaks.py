"""What deleting checkpoints would damage, in words, and what to keep so nothing is damaged.

Cutting the oldest part of a line of checkpoints is what retention is for: the
oldest checkpoint that stays becomes the first one. Damage is something else:

- ``fork``: a checkpoint two or more surviving branches split from would go, so
  the branches no longer meet and going back across the fork stops working;
- ``interrupt``: a namespace waits on an interrupt and the checkpoint it would
  resume from (its newest, carrying the ``__interrupt__`` write) would go;
- ``delta``: a delta channel (LangGraph's ``DeltaChannel``) of a surviving
  checkpoint is rebuilt from its last snapshot plus the writes since; if that
  snapshot or a checkpoint in between would go, the value could not be rebuilt;
- ``deerflow-branch``: a DeerFlow branch thread records the checkpoint it was
  branched from (``branch_parent_checkpoint_id``) and that checkpoint would go
  (its kind and words are the profile's: ``retention.branch.*`` of its texts).

Each ``Break`` names the checkpoints whose keeping avoids it (``protects``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from ..profiles import text
from ..store.delta import DELTA_COUNTERS_KEY
from ..store.model import BranchThread, is_internal_channel
from ..store_ops.retention_keys import Key
from .graph import ThreadGraph

# LangGraph snapshots a delta channel at least every this many supersteps
# (langgraph's DELTA_MAX_SUPERSTEPS_SINCE_SNAPSHOT default): no chain is longer.
DELTA_MAX_CHAIN = 5000

MetadataOf = Callable[[Sequence[Key]], dict[Key, dict[str, Any]]]


@dataclass(frozen=True)
class Break:
    kind: str  # fork, interrupt, delta, or a branch's (the profile's retention.branch.kind)
    checkpoint_ns: str
    checkpoint_id: str  # the checkpoint whose deletion does the damage
    message: str
    protects: tuple[Key, ...] = ()
    branch_thread: str | None = None  # a branch's break: the thread that was branched off

    def as_dict(self) -> dict[str, Any]:
        shown = {"kind": self.kind, "checkpoint_ns": self.checkpoint_ns, "checkpoint_id": self.checkpoint_id,
                 "message": self.message, "keep_to_avoid": len(self.protects)}
        return {**shown, "branch_thread": self.branch_thread} if self.branch_thread else shown


def find_breaks(graph: ThreadGraph, going: set[Key], links: Iterable[BranchThread], metadata_of: MetadataOf) -> list[Break]:
    """Every break deleting ``going`` from ``graph`` would cause."""
    if not going:
        return []
    return [*fork_breaks(graph, going), *interrupt_breaks(graph, going), *delta_breaks(graph, going, metadata_of),
            *branch_breaks(graph, going, links)]


def fork_breaks(graph: ThreadGraph, going: set[Key]) -> list[Break]:
    kept = set(graph.nodes) - going
    holds = graph.subtree_holds(kept)
    found = []
    for key in sorted(going, key=lambda k: k[1]):
        branches = [c for c in graph.children[key] if holds.get(c, False)]
        if len(branches) < 2:
            continue
        path: list[Key] = [key]
        stack = list(branches)
        while stack:  # the checkpoints between the fork and the first one that stays, on every branch
            node = stack.pop()
            if node in kept:
                continue
            path.append(node)
            stack.extend(c for c in graph.children[node] if holds.get(c, False))
        found.append(Break(
            "fork", key[0], key[1],
            f"fork at {graph.label(key)}: {len(branches)} branches that stay split from this checkpoint; it and "
            f"{len(path) - 1} checkpoint(s) after it would go, so the branches would no longer meet and going back "
            "across the fork (time travel, regenerate) would stop working",
            tuple(path)))
    return found


def interrupt_breaks(graph: ThreadGraph, going: set[Key]) -> list[Break]:
    found = []
    for ns, keys in graph.namespaces.items():
        head = keys[0]
        if graph.nodes[head].interrupt and head in going:
            where = f" in subgraph {ns}" if ns else ""
            found.append(Break(
                "interrupt", ns, head[1],
                f"waits on an interrupt{where}: its newest checkpoint, {graph.label(head)}, holds the pending question "
                "and would go, so the run could not be resumed", (head,)))
    return found


def _distance_to_going(graph: ThreadGraph, going: set[Key]) -> dict[Key, int]:
    """For each checkpoint that stays: hops up its namespace to the nearest checkpoint that goes
    (absent when none does). Each checkpoint is visited once; a parent cycle ends a walk."""
    distance: dict[Key, float] = {}
    for start in graph.nodes:
        path: list[Key] = []
        on_path: set[Key] = set()
        node: Key | None = start
        while node is not None and node not in distance and node not in on_path:
            if node in going:
                distance[node] = 0
                break
            path.append(node)
            on_path.add(node)
            node = graph.parent(node)
        base = distance.get(node, math.inf) if node is not None and node not in on_path else math.inf
        for hops, key in enumerate(reversed(path), start=1):
            distance[key] = base + hops
    return {k: int(d) for k, d in distance.items() if k not in going and d != math.inf}


def delta_breaks(graph: ThreadGraph, going: set[Key], metadata_of: MetadataOf) -> list[Break]:
    near = [k for k, d in _distance_to_going(graph, going).items() if 0 < d <= DELTA_MAX_CHAIN]
    missing = [k for k in near if k not in graph.metadata]
    if missing:
        graph.metadata.update(metadata_of(missing))
    groups: dict[tuple[str, str, Key], tuple[list[Key], set[Key]]] = {}
    for key in near:
        counters = (graph.metadata.get(key) or {}).get(DELTA_COUNTERS_KEY)
        if not isinstance(counters, dict):
            continue
        for channel, value in counters.items():
            since = value[1] if isinstance(value, (list, tuple)) and len(value) == 2 else None
            if not isinstance(since, int) or since <= 0 or is_internal_channel(str(channel)):
                continue
            chain = graph.ancestors(key, min(since, DELTA_MAX_CHAIN))
            if not chain or not going.intersection(chain):
                continue
            dependants, needed = groups.setdefault((key[0], str(channel), chain[-1]), ([], set()))
            dependants.append(key)
            needed.update(chain)
    found = []
    for (ns, channel, snapshot), (dependants, needed) in sorted(groups.items(), key=lambda g: g[0][2][1]):
        lost = sorted(needed & going, key=lambda k: k[1])
        newest = max(dependants, key=lambda k: k[1])
        found.append(Break(
            "delta", ns, lost[0][1],
            f"`{channel}` is stored as deltas: {len(dependants)} checkpoint(s) that stay (up to {graph.label(newest)}) "
            f"are rebuilt from the snapshot at {graph.label(snapshot)} plus the writes after it; {len(lost)} of "
            "those checkpoints would go, so their value could not be rebuilt",
            tuple(sorted(needed, key=lambda k: k[1]))))
    return found


def branch_breaks(graph: ThreadGraph, going: set[Key], links: Iterable[BranchThread]) -> list[Break]:
    found = []
    for link in links:
        key = ("", link.parent_checkpoint_id)
        if link.parent_thread_id == graph.thread_id and key in going:
            found.append(Break(text("retention.branch.kind"), "", key[1], text("retention.branch.break").format(
                branch=link.thread_id, checkpoint=graph.label(key)), (key,), link.thread_id))
    return found
