"""Retention policies and which checkpoints of a thread they select.

Policies narrow one another: a checkpoint goes only when every policy given
selects it. ``keep_latest`` keeps the newest N checkpoints of each thread and
namespace; ``older_than_days`` selects checkpoints created before the cut-off
(the time a uuid6 checkpoint id carries); ``inactive_for_days`` selects whole
threads with no checkpoint since; ``threads`` limits the plan to those threads
and, alone, deletes them whole.

As LangGraph's own ``prune`` does, a subgraph call's namespace (``node:task``)
goes whole with the parent graph's checkpoint it was called from.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ..store.model import checkpoint_time
from ..store_ops.retention_keys import Key
from .graph import ThreadGraph


@dataclass(frozen=True)
class Policy:
    keep_latest: int | None = None
    older_than_days: float | None = None
    inactive_for_days: float | None = None
    threads: tuple[str, ...] | None = None
    safe: bool = False  # also keep what the plain policy would break

    def __post_init__(self) -> None:
        if self.keep_latest is not None and self.keep_latest < 1:
            raise ValueError("keep-latest must be at least 1 (use --threads to delete whole threads)")
        for name in ("older_than_days", "inactive_for_days"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name.replace('_days', '').replace('_', '-')} must not be negative")
        if self.threads is not None and not self.threads:
            raise ValueError("--threads needs at least one thread id")
        if (self.keep_latest, self.older_than_days, self.inactive_for_days, self.threads) == (None,) * 4:
            raise ValueError("give a policy: --keep-latest N, --older-than DAYS, --inactive-for DAYS or --threads ID...")

    def describe(self, safe: bool | None = None) -> str:
        parts = []
        if self.keep_latest is not None:
            parts.append(f"keep-latest {self.keep_latest}")
        if self.older_than_days is not None:
            parts.append(f"older-than {self.older_than_days:g} days")
        if self.inactive_for_days is not None:
            parts.append(f"inactive-for {self.inactive_for_days:g} days")
        if self.threads is not None:
            shown = ", ".join(self.threads[:3]) + (f" and {len(self.threads) - 3} more" if len(self.threads) > 3 else "")
            parts.append(f"threads {shown}")
        text = ", ".join(parts)
        return text + ", keeping what it would break" if (self.safe if safe is None else safe) else text


def selected(graph: ThreadGraph, policy: Policy, now: datetime) -> set[Key]:
    """The checkpoints every policy picks, before namespaces that go whole."""
    if policy.threads is not None and graph.thread_id not in policy.threads:
        return set()
    if policy.inactive_for_days is not None:
        newest = graph.newest_time
        if newest is None or newest >= now - timedelta(days=policy.inactive_for_days):
            return set()
    picked = set(graph.nodes)
    if policy.older_than_days is not None:
        cutoff = now - timedelta(days=policy.older_than_days)
        picked = {key for key in picked if (created := checkpoint_time(key[1])) is not None and created < cutoff}
    if policy.keep_latest is not None:
        keep = {key for keys in graph.namespaces.values() for key in keys[: policy.keep_latest]}
        picked -= keep
    return picked


def decide(graph: ThreadGraph, picked: set[Key], keep: set[Key]) -> set[Key]:
    """What goes: ``picked`` less ``keep``, plus every subgraph call namespace whose calling checkpoint goes."""
    going = picked - keep
    for ns in sorted(graph.namespaces, key=lambda n: n.count("|") + (1 if n else 0)):
        if not ns or ":" not in ns.rsplit("|", 1)[-1]:
            continue
        caller = graph.called_from(ns)
        members = graph.namespaces[ns]
        if caller is not None and caller in going and not keep.intersection(members):
            going.update(members)
    return going
