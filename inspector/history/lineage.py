"""The shape of a thread's history: lineage, forks, subgraph lanes, paging.

Lineage comes only from parent ids: a checkpoint's parent is its
``parent_checkpoint_id`` in the same namespace; the first checkpoint of a
subgraph namespace hangs off the parent graph's checkpoint named in
``metadata.parents``. Checkpoint ids are used for ordering on screen (newest
first), never to decide who descends from whom.

A *branch* is a chain of checkpoints drawn in one lane. A fork (a checkpoint
with two or more children in its namespace) continues its branch into the child
whose subtree holds the newest checkpoint; every other child starts a branch of
its own. Each subgraph namespace starts a branch of its own too.

A broken history is named, never drawn as if it were sound: a checkpoint whose
parent is not in the store (``missing parent``), parent pointers that loop back
(``parent cycle``, a checkpoint naming itself included) and an id listed twice
(``duplicate id``) become ``HistoryProblem``s. A cycle is cut at its oldest
checkpoint so the rest still lays out; a duplicate keeps its first row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from ..store import CheckpointRow
from ..store.not_utf8 import spelled

Key = tuple[str, str]  # (checkpoint_ns, checkpoint_id)

PARENT_CYCLE = "parent cycle"
MISSING_PARENT = "missing parent"
DUPLICATE_ID = "duplicate id"


@dataclass(frozen=True)
class HistoryProblem:
    """A broken link in a thread's lineage: ``kind`` is one of the three names above."""

    kind: str
    keys: tuple[Key, ...]  # the checkpoints involved, newest first
    message: str


def key_of(row: CheckpointRow) -> Key:
    return (row.checkpoint_ns, row.checkpoint_id)


def parent_namespace(ns: str) -> str:
    """``tools:a|search:b`` -> ``tools:a``; ``tools:a`` -> ``""``."""
    return ns.rsplit("|", 1)[0] if "|" in ns else ""


@dataclass
class Node:
    row: CheckpointRow
    order: int  # 0 = newest
    parent: Key | None = None  # same-namespace parent, or the parent graph's checkpoint for a namespace's first
    children: list[Key] = field(default_factory=list)
    branch: int = 0

    @property
    def key(self) -> Key:
        return key_of(self.row)

    @property
    def is_fork(self) -> bool:
        """Two or more children in this checkpoint's own namespace."""
        return sum(1 for ns, _ in self.children if ns == self.row.checkpoint_ns) > 1

    @property
    def crosses_namespace(self) -> bool:
        return self.parent is not None and self.parent[0] != self.row.checkpoint_ns


@dataclass(frozen=True)
class Branch:
    index: int  # also the lane it is drawn in
    ns: str
    keys: tuple[Key, ...]  # oldest first
    forked_from: Key | None  # the checkpoint it leaves (None for the main line)

    @property
    def head(self) -> Key:
        return self.keys[-1]

    @property
    def root(self) -> Key:
        return self.keys[0]


@dataclass
class History:
    nodes: dict[Key, Node]
    ordered: list[Key]  # newest first
    branches: list[Branch]
    orphans: list[Key]  # checkpoints whose parent is not in the store
    problems: list[HistoryProblem] = field(default_factory=list)
    # how a node's name read from a namespace (``node:task_id``) is shown (the dashboard masks secret shapes)
    node_name: Callable[[str], str] = field(default=str, repr=False, compare=False)
    _lines: dict[int, list[Key] | None] = field(default_factory=dict, repr=False, compare=False)
    _positions: dict[int, dict[Key, int]] = field(default_factory=dict, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.ordered)

    @cached_property
    def namespaces(self) -> frozenset[str]:
        """The subgraph namespaces the history holds (the root's ``""`` left out)."""
        return frozenset(ns for ns, _ in self.nodes if ns)

    def problem_of(self, key: Key) -> HistoryProblem | None:
        """The broken link ``key`` takes part in (a cycle or a duplicate before a missing parent), if any."""
        found = [p for p in self.problems if key in p.keys]
        return min(found, key=lambda p: _SEVERITY.index(p.kind)) if found else None

    def node(self, key: Key) -> Node:
        return self.nodes[key]

    @property
    def forks(self) -> list[Key]:
        return [k for k in self.ordered if self.nodes[k].is_fork]

    @property
    def head(self) -> Key | None:
        """The newest checkpoint of the root namespace (what a thread's state is now)."""
        return next((k for k in self.ordered if k[0] == ""), self.ordered[0] if self.ordered else None)

    def find(self, checkpoint_id: str, ns: str | None = None) -> Key | None:
        """The key for ``checkpoint_id`` (in ``ns`` when given, else in any namespace, root first)."""
        if ns is not None:
            return (ns, checkpoint_id) if (ns, checkpoint_id) in self.nodes else None
        matches = [k for k in self.ordered if k[1] == checkpoint_id]
        return min(matches, key=lambda k: len(k[0])) if matches else None

    def lineage(self, key: Key) -> list[Key]:
        """``key`` and its ancestors in its namespace, oldest first."""
        chain: list[Key] = []
        seen: set[Key] = set()
        current: Key | None = key
        while current is not None and current not in seen and current[0] == key[0]:
            seen.add(current)
            chain.append(current)
            current = self.nodes[current].parent
        return chain[::-1]

    def path_through(self, key: Key) -> list[Key]:
        """A walkable line through ``key``: its lineage, then onward along its branch to a head.

        Every checkpoint of a branch has the same line (the branch head's lineage), so it is walked once per
        branch and kept; a long history's line is not walked again on every page run."""
        line = self._line_of(key)
        return list(line) if line is not None else self._walk(key)

    def position(self, key: Key) -> int:
        """``key``'s index in ``path_through(key)``."""
        line = self._line_of(key)
        if line is None:
            return self._walk(key).index(key)
        index = self._positions.setdefault(self.nodes[key].branch, {k: i for i, k in enumerate(line)})
        return index[key]

    def _line_of(self, key: Key) -> list[Key] | None:
        branch = self.nodes[key].branch
        if branch not in self._lines:
            line = self._walk(self.branches[branch].head) if branch < len(self.branches) else []
            self._lines[branch] = line if key in set(line) else None
        return self._lines[branch]

    def _walk(self, key: Key) -> list[Key]:
        path = self.lineage(key)
        seen = set(path)
        current = key
        while True:
            node = self.nodes[current]
            same_ns = [c for c in node.children if c[0] == key[0] and c not in seen]
            if not same_ns:
                return path
            onward = [c for c in same_ns if self.nodes[c].branch == node.branch] or same_ns
            current = min(onward, key=lambda c: self.nodes[c].order)  # the newest child
            path.append(current)
            seen.add(current)

    def page_count(self, size: int) -> int:
        return max(1, -(-len(self.ordered) // size))

    def page_of(self, key: Key, size: int) -> int:
        """0-based page that shows ``key``."""
        return self.nodes[key].order // size if key in self.nodes else 0

    def page(self, number: int, size: int) -> list[Key]:
        """Keys on page ``number`` (0-based), newest first."""
        return self.ordered[number * size : (number + 1) * size]


def _parent_key(row: CheckpointRow, present: set[Key]) -> Key | None:
    if row.parent_checkpoint_id:
        return (row.checkpoint_ns, row.parent_checkpoint_id)
    if not row.checkpoint_ns:
        return None
    parents = row.metadata.get("parents") if isinstance(row.metadata, dict) else None
    outer = parent_namespace(row.checkpoint_ns)
    if isinstance(parents, dict) and isinstance(parents.get(outer), str):
        return (outer, parents[outer])
    return None


def _newest_in_subtree(nodes: dict[Key, Node]) -> dict[Key, int]:
    """For each checkpoint, the smallest ``order`` (newest) found in its same-namespace subtree."""
    best: dict[Key, int] = {}
    # children are always newer than parents in a real store, but never rely on it: iterate to a fixpoint
    for key in sorted(nodes, key=lambda k: nodes[k].order):
        best[key] = nodes[key].order
    changed = True
    while changed:
        changed = False
        for key, node in nodes.items():
            for child in node.children:
                if child[0] == key[0] and best[child] < best[key]:
                    best[key] = best[child]
                    changed = True
    return best


_SEVERITY = (PARENT_CYCLE, DUPLICATE_ID, MISSING_PARENT)


def _short(checkpoint_id: str) -> str:
    return f"…{checkpoint_id[-12:]}" if len(checkpoint_id) > 14 else checkpoint_id


def _dedupe(rows: list[CheckpointRow]) -> tuple[list[CheckpointRow], list[HistoryProblem]]:
    """Rows newest first, each key once; a key listed twice or more is a ``duplicate id`` problem."""
    ordered = sorted(rows, key=lambda r: (r.checkpoint_id, r.checkpoint_ns), reverse=True)
    seen: dict[Key, int] = {}
    kept = []
    for row in ordered:
        key = key_of(row)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] == 1:
            kept.append(row)
    problems = [
        HistoryProblem(DUPLICATE_ID, (key,), f"duplicate id: checkpoint {spelled(key[1])} is stored {count} times"
                       + (f" in namespace {short_namespace(key[0])}" if key[0] else "") + "; the first row is shown")
        for key, count in seen.items() if count > 1
    ]
    return kept, problems


def _cut_cycles(nodes: dict[Key, Node]) -> list[HistoryProblem]:
    """Find parent pointers that loop back; cut each loop at its oldest checkpoint (which becomes a root)."""
    problems = []
    done: set[Key] = set()
    for start in sorted(nodes, key=lambda k: nodes[k].order):
        path: list[Key] = []
        on_path: dict[Key, int] = {}
        current: Key | None = start
        while current is not None and current not in done and current not in on_path:
            on_path[current] = len(path)
            path.append(current)
            current = nodes[current].parent
        if current is not None and current in on_path:
            loop = sorted(path[on_path[current]:], key=lambda k: nodes[k].order)  # newest first
            oldest = loop[-1]
            parent = nodes[oldest].parent
            if parent is not None:
                nodes[parent].children.remove(oldest)
            nodes[oldest].parent = None
            if len(loop) == 1:
                message = f"parent cycle: checkpoint {spelled(oldest[1])} names itself as its parent"
            else:
                message = (f"parent cycle: {len(loop)} checkpoints name each other as parents "
                           f"({' -> '.join(_short(k[1]) for k in loop)} -> {_short(loop[0][1])})")
            problems.append(HistoryProblem(PARENT_CYCLE, tuple(loop), message))
        done.update(path)
    return problems


def build_history(rows: list[CheckpointRow]) -> History:
    """Lay out a thread's timeline (as ``Store.timeline`` returns it) as branches and lanes."""
    ordered_rows, problems = _dedupe(rows)
    nodes = {key_of(r): Node(row=r, order=i) for i, r in enumerate(ordered_rows)}
    present = set(nodes)
    orphans: list[Key] = []
    for key, node in nodes.items():
        parent = _parent_key(node.row, present)
        if parent is not None and parent not in present:
            orphans.append(key)
            problems.append(HistoryProblem(
                MISSING_PARENT, (key,),
                f"missing parent: checkpoint {spelled(key[1])} names parent {spelled(parent[1])}, which is not in the store"))
            parent = None
        node.parent = parent
        if parent is not None:
            nodes[parent].children.append(key)
    problems = _cut_cycles(nodes) + problems
    for node in nodes.values():
        node.children.sort(key=lambda k: nodes[k].order, reverse=True)  # oldest first
    branches = _branches(nodes)
    return History(nodes, [key_of(r) for r in ordered_rows], branches, sorted(orphans, key=lambda k: nodes[k].order),
                   problems)


def _branches(nodes: dict[Key, Node]) -> list[Branch]:
    newest = _newest_in_subtree(nodes)
    starts = [k for k, n in nodes.items() if n.parent is None or n.crosses_namespace]
    pending: list[tuple[Key, Key | None]] = [(k, nodes[k].parent) for k in starts]
    chains: list[tuple[tuple[Key, ...], Key | None]] = []
    while pending:
        start, forked_from = pending.pop()
        chain = [start]
        current = start
        while True:
            same_ns = [c for c in nodes[current].children if c[0] == start[0]]
            if not same_ns:
                break
            onward = min(same_ns, key=lambda c: newest[c])
            pending.extend((c, current) for c in same_ns if c != onward)
            chain.append(onward)
            current = onward
        chains.append((tuple(chain), forked_from))
    # main line first: root namespace, then the chain holding the newest checkpoint; namespaces by depth
    chains.sort(key=lambda c: (c[0][0][0].count("|") + (1 if c[0][0][0] else 0), min(newest[k] for k in c[0])))
    branches = []
    for index, (chain, forked_from) in enumerate(chains):
        for key in chain:
            nodes[key].branch = index
        branches.append(Branch(index, chain[0][0], chain, forked_from))
    return branches


def branch_label(history: History, branch: Branch) -> str:
    """A short human name: ``main``, ``fork at step 6``, ``subgraph tools:…``."""
    if branch.index == 0 and not branch.ns:
        return "main"
    if branch.ns and (branch.forked_from is None or branch.forked_from[0] != branch.ns):
        return f"subgraph {short_namespace(branch.ns)}"
    if branch.forked_from is not None:
        step = history.nodes[branch.forked_from].row.step
        return f"fork at step {step}" if step is not None else "fork"
    return "detached"


def short_namespace(ns: str) -> str:
    """``tools:0db8286e-34fc-…|search:5b81…`` -> ``tools:0db8|search:5b81``."""
    if not ns:
        return "root"
    return "|".join(part.split(":", 1)[0] + (":" + part.split(":", 1)[1][:4] if ":" in part else "") for part in ns.split("|"))
