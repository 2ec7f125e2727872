"""A thread's checkpoints as a forest per namespace, built from parent ids alone (``ThreadKeys`` in)."""

from __future__ import annotations

from datetime import datetime
from functools import cached_property
from typing import Any, Iterable

from ..history.lineage import parent_namespace
from ..store.model import checkpoint_step, checkpoint_time
from ..store.records import is_step
from ..store_ops.retention_keys import CheckpointKeys, Key, ThreadKeys


class ThreadGraph:
    """Checkpoints of one thread keyed by ``(ns, id)``, with same-namespace children."""

    def __init__(self, keys: ThreadKeys) -> None:
        self.thread_id = keys.thread_id
        self.keys = keys
        self.nodes: dict[Key, CheckpointKeys] = {c.key: c for c in keys.checkpoints}
        self.children: dict[Key, list[Key]] = {k: [] for k in self.nodes}
        for key in self.nodes:
            parent = self.parent(key)
            if parent is not None:
                self.children[parent].append(key)
        self.metadata: dict[Key, dict[str, Any]] = {
            k: n.metadata for k, n in self.nodes.items() if n.metadata is not None}

    def parent(self, key: Key) -> Key | None:
        """The same-namespace parent, when the store holds it."""
        pid = self.nodes[key].parent_checkpoint_id
        if pid is None or (key[0], pid) not in self.nodes:
            return None
        return (key[0], pid)

    @cached_property
    def namespaces(self) -> dict[str, list[Key]]:
        """Namespace -> its checkpoints, newest first (by id, as LangGraph picks the latest)."""
        out: dict[str, list[Key]] = {}
        for key in sorted(self.nodes, key=lambda k: k[1], reverse=True):
            out.setdefault(key[0], []).append(key)
        return out

    @cached_property
    def newest_time(self) -> datetime | None:
        """When the thread last wrote a checkpoint; None when an id carries no time."""
        times = [checkpoint_time(cid) for _, cid in self.nodes]
        return None if not times or None in times else max(times)  # type: ignore[type-var]

    def ancestors(self, key: Key, limit: int | None = None) -> list[Key]:
        """Up to ``limit`` same-namespace ancestors of ``key``, nearest first."""
        chain: list[Key] = []
        seen = {key}
        current = self.parent(key)
        while current is not None and current not in seen and (limit is None or len(chain) < limit):
            chain.append(current)
            seen.add(current)
            current = self.parent(current)
        return chain

    def step(self, key: Key) -> int | None:
        meta = self.metadata.get(key) or {}
        step = meta.get("step")
        return step if is_step(step) else checkpoint_step(key[1])

    def label(self, key: Key) -> str:
        step = self.step(key)
        where = f" in {key[0]}" if key[0] else ""
        return f"{'step ' + str(step) if step is not None else 'checkpoint'} ({key[1]}){where}"

    def called_from(self, ns: str) -> Key | None:
        """For a subgraph namespace: the parent graph's checkpoint it started from (``metadata.parents``)."""
        if not ns:
            return None
        outer = parent_namespace(ns)
        for key in reversed(self.namespaces.get(ns, [])):  # oldest first: the namespace's root carries it
            parents = (self.metadata.get(key) or {}).get("parents")
            if isinstance(parents, dict) and isinstance(parents.get(outer), str):
                target = (outer, parents[outer])
                return target if target in self.nodes else None
        return None

    def subtree_holds(self, keys: Iterable[Key]) -> dict[Key, bool]:
        """For every checkpoint: whether it or a same-namespace descendant is in ``keys``."""
        wanted = set(keys)
        holds: dict[Key, bool] = {}
        for root in (k for k in self.nodes if self.parent(k) is None):
            order, stack = [], [root]
            while stack:  # iterative post-order: histories are deep
                key = stack.pop()
                order.append(key)
                stack.extend(c for c in self.children[key] if c not in holds)
            for key in reversed(order):
                holds[key] = key in wanted or any(holds.get(c, False) for c in self.children[key])
        return holds
