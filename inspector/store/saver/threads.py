"""Listing a saver's threads (every thread is read through ``list``) and the branches DeerFlow records."""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Any, Sequence

from langgraph.checkpoint.base import CheckpointTuple

from ..model import (
    BRANCH_PARENT_KEY,
    THREAD_SORTS,
    BranchThread,
    StoreError,
    StoreTotals,
    ThreadHeads,
    ThreadSummary,
    WriteKey,
    branch_of,
    checkpoint_time,
    sorted_branches,
)
from .serialize import checkpoint_bytes, cid, ns_of, plain, writes_bytes

_ONE_BY_ONE = 50  # threads asked for one by one at the most; beyond, one pass over the whole saver


class SaverThreads:
    """Thread listing, totals and branches (a mixin of ``SaverStore``: needs ``_list``)."""

    def _listed(self, wanted: set[str] | None) -> list[CheckpointTuple]:
        """The checkpoints of ``wanted`` threads (every thread: None), every namespace. A few threads are listed
        one by one (``list`` decodes every checkpoint it returns: asking for each thread reads only theirs),
        many in one pass over the saver."""
        if wanted is None or len(wanted) > _ONE_BY_ONE:
            return [t for t in self._list(None) if wanted is None or t.config["configurable"]["thread_id"] in wanted]
        return [t for tid in sorted(wanted) for t in self._list({"configurable": {"thread_id": tid}})
                if t.config["configurable"]["thread_id"] == tid]

    def _by_thread(self, search: str | None, only: Sequence[str] | None = None) -> dict[str, list[CheckpointTuple]]:
        """Each thread's checkpoints (``only`` those threads, when given); ``search`` keeps the threads whose id
        or metadata hold it."""
        grouped: dict[str, list[CheckpointTuple]] = defaultdict(list)
        for tup in self._listed(None if only is None else set(only)):
            grouped[tup.config["configurable"]["thread_id"]].append(tup)
        if search:
            needle = search.lower()
            grouped = {
                tid: tuples for tid, tuples in grouped.items()
                if needle in tid.lower() or any(_metadata_holds(t, needle) for t in tuples)
            }
        return grouped

    def search_metadata(self, search: str, thread_ids: Sequence[str] | None = None,
                        newest_only: bool = False) -> list[tuple[str, dict[str, Any]]]:
        wanted, needle = None if thread_ids is None else set(thread_ids), search.lower()
        found: dict[str, list[CheckpointTuple]] = defaultdict(list)
        for tup in self._listed(wanted) if wanted is None or wanted else ():
            tid = tup.config["configurable"]["thread_id"]
            if needle in tid.lower() or _metadata_holds(tup, needle):
                found[tid].append(tup)
        picked = ((tid, [max(tuples, key=cid)] if newest_only else tuples) for tid, tuples in found.items())
        return [(tid, plain(dict(t.metadata or {})).value) for tid, tuples in picked for t in tuples]

    def count_threads(self, search: str | None = None, only: Sequence[str] | None = None) -> int:
        return len(self._by_thread(search, only))

    def thread_heads(self, since: str | None = None) -> ThreadHeads:
        grouped = self._by_thread(None)
        every = [cid(t) for tuples in grouped.values() for t in tuples]
        heads = {tid: (max(cid(t) for t in tuples), len(tuples)) for tid, tuples in grouped.items()
                 if since is None or any(cid(t) > since for t in tuples)}
        return ThreadHeads(heads, max(every, default=None), len(every))

    def newest_write_keys(self, thread_ids: Sequence[str] | None = None) -> dict[str, tuple[str, list[WriteKey]]]:
        """See ``Store.newest_write_keys``; as ``write_keys``, without task paths."""
        found: dict[str, tuple[str, list[WriteKey]]] = {}
        for tid, tuples in self._by_thread(None, thread_ids).items():
            roots = [t for t in tuples if ns_of(t) == ""]
            if not roots:
                continue
            newest = max(roots, key=cid)
            keys = self.write_keys(tid, [("", cid(newest))]).get(("", cid(newest)), [])
            if keys or thread_ids is not None:
                found[tid] = (cid(newest), keys)
        return found

    def id_threads(self, search: str) -> set[str]:
        needle = search.lower()
        return {tid for tid, tuples in self._by_thread(None).items()
                if needle in tid.lower() or any(needle in cid(t).lower() for t in tuples)}

    def checkpoint_id_threads(self, search: str) -> set[str]:
        needle = search.lower()
        return {tid for tid, tuples in self._by_thread(None).items() if any(needle in cid(t).lower() for t in tuples)}

    def thread_titles(self) -> dict[str, str]:
        summaries = (self._summary(tid, tuples) for tid, tuples in self._by_thread(None).items())
        return {t.thread_id: t.title for t in summaries if t.title}

    def totals(self) -> StoreTotals:
        grouped = self._by_thread(None)
        summaries = [self._summary(tid, tuples) for tid, tuples in grouped.items()]
        return StoreTotals(len(summaries), sum(t.checkpoints for t in summaries), sum(t.stored_bytes for t in summaries))

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest", only: Sequence[str] | None = None) -> list[ThreadSummary]:
        """Every thread is read through the saver either way; ``stored`` measures each one re-serialized."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        grouped = self._by_thread(search, only)
        order = sorted(grouped)
        order.sort(key=lambda tid: max(cid(t) for t in grouped[tid]), reverse=True)
        if sort == "checkpoints":
            order.sort(key=lambda tid: len(grouped[tid]), reverse=True)
        if sort == "stored":
            ranked = sorted((self._summary(tid, grouped[tid]) for tid in order), key=lambda t: t.stored_bytes, reverse=True)
            return ranked[offset : offset + limit]
        return [self._summary(tid, grouped[tid]) for tid in order[offset : offset + limit]]

    def _summary(self, thread_id: str, tuples: list[CheckpointTuple]) -> ThreadSummary:
        roots = [t for t in tuples if ns_of(t) == ""]
        newest_any = max(cid(t) for t in tuples)
        title = None
        for tup in sorted(roots, key=cid, reverse=True):
            titles = [v for _, ch, v in tup.pending_writes or [] if ch == "title"]
            if titles:
                title = titles[-1] if isinstance(titles[-1], str) else None
                break
        return ThreadSummary(
            thread_id=thread_id,
            checkpoints=len(tuples),
            newest_checkpoint_id=max((cid(t) for t in roots), default=newest_any),
            updated_at=checkpoint_time(newest_any),
            stored_bytes=sum(checkpoint_bytes(t) + writes_bytes(t) for t in tuples),
            title=title,
            namespaces=len({ns_of(t) for t in tuples}),
        )

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        """The saver's own metadata filter finds the branch checkpoints; each thread's first one is read."""
        first: dict[str, CheckpointTuple] = {}
        for tup in self._list(None, filter={BRANCH_PARENT_KEY: thread_id}):
            tid = tup.config["configurable"]["thread_id"]
            if ns_of(tup) == "" and (tid not in first or cid(tup) < cid(first[tid])):
                first[tid] = tup
        found = (branch_of(tid, plain(dict(tup.metadata or {})).value) for tid, tup in first.items())
        return sorted_branches(b for b in found if b is not None and b.parent_thread_id == thread_id)


def _metadata_holds(tup: CheckpointTuple, needle: str) -> bool:
    """The thread search's match on one checkpoint's metadata (``needle`` lower-cased)."""
    return needle in json.dumps(tup.metadata, ensure_ascii=False, default=str).lower()
