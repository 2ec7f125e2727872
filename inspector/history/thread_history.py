"""A thread's history as the thread page holds it: laid out from keys, read in full one page at a time,
and extended with the checkpoints a running thread adds.

Opening a thread reads every checkpoint's keys (``Store.timeline_keys``: ids,
parents, lengths, written channels; no state, and on SQLite no metadata), which
is enough to draw lineage, branches and pages. The rows a page shows are then
read in full (``Store.checkpoint_rows``: step and source from metadata), once.
``follow`` reads only checkpoints newer than the newest one held.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from ..store import CheckpointRow, Store, WriteKey
from .attribution import Attribution, attribute, last_writes, newest_writing, writes_needed
from .lineage import History, Key, build_history, key_of
from .node_colours import NodeColours, thread_colours

T = TypeVar("T")
MEMO_ENTRIES = 32  # results kept by ``memo``: a few views of a few branches under a few profiles
# ``memo(key, compute)``: ``compute()``, kept while a thread's history holds what it did (``ThreadHistory.memo``):
# work over the whole history (the slider's names, the summary, a branch's origin) is done once, not at every step
Memo = Callable[[Hashable, Callable[[], Any]], Any]


def computed(key: Hashable, compute: Callable[[], T]) -> T:
    """A ``Memo`` that keeps nothing: ``compute()``."""
    return compute()


class ThreadHistory:
    """The keys of one thread's checkpoints, their layout, and the full rows read so far."""

    def __init__(self, store: Store, thread_id: str, mask: Callable[[Any], Any] = lambda rows: rows,
                 node_name: Callable[[str], str] = str) -> None:
        """``mask`` is applied to every list of rows read (the dashboard masks secrets with it); ``node_name`` to a
        node's name read from a namespace (``History.node_name``: rows keep their namespaces, keys of lookups)."""
        self.thread_id = thread_id
        self._mask = mask
        self._node_name = node_name
        self._lock = threading.Lock()
        self._order: list[CheckpointRow] = mask(store.timeline_keys(thread_id))  # duplicates kept: the layout names them
        self._rows: dict[Key, CheckpointRow] = {}
        for row in self._order:
            self._rows.setdefault(key_of(row), row)
        self.history: History = build_history(self._order)
        self.history.node_name = node_name
        self._write_keys: dict[Key, list[WriteKey]] = {}  # read so far (``attributions``), keys without writes too
        self._made: dict[Key, Attribution] = {}  # attributions given so far: a checkpoint's never changes once
        # its rows and writes are read, but for the newest (``follow``) and rows completed since
        self._colours: tuple[int, NodeColours] | None = None  # (rows held, their colours)
        self._version = 0  # moves when rows are completed or followed (the attributions given are forgotten then)
        self._memo: dict[Hashable, tuple[int, Any]] = {}  # key -> (version it was computed at, result)

    @property
    def oldest_root(self) -> Key | None:
        """The first checkpoint of the root graph (where a branch thread records its origin)."""
        return next((k for k in reversed(self.history.ordered) if k[0] == ""), None)

    @property
    def newest_id(self) -> str:
        return max(key[1] for key in self._rows)

    def node_colours(self) -> NodeColours:
        """The colours of this thread's nodes (``node_colours.thread_colours``), from the keys held: every surface
        drawing the thread's nodes colours them with it."""
        held = len(self._order)
        if self._colours is None or self._colours[0] != held:
            self._colours = (held, thread_colours(self._order))
        return self._colours[1]

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, kept under ``key`` while what this history holds stays as it was: once rows are
        completed or newer checkpoints followed, it is computed anew. ``key`` names everything else
        the result depends on (the branch, the profile in force, ...)."""
        version = self._version  # before: rows completed while computing make the result older than them
        found = self._memo.get(key)
        if found is not None and found[0] == version:
            return found[1]
        value = compute()
        with self._lock:
            if len(self._memo) >= MEMO_ENTRIES:
                self._memo.clear()
            self._memo[key] = (version, value)
        return value

    def complete(self, store: Store, keys: list[Key], rows: list[CheckpointRow] = ()) -> None:
        """Read the full rows (metadata: step, source, kind) of ``keys`` and of their parents (a row's kind
        depends on its parent's) that only have their keys so far; ``rows``: full rows already read (masked as this
        history masks them), taken as they are."""
        nodes = self.history.nodes
        given = {key_of(r): r for r in rows if not r.keys_only}
        wanted = dict.fromkeys([*keys, *(nodes[k].parent for k in keys if k in nodes and nodes[k].parent)])
        missing = [k for k in wanted if k in nodes and nodes[k].row.keys_only]
        if not missing:
            return
        unread = [k for k in missing if k not in given]
        rows = [given[k] for k in missing if k in given] + (
            self._mask(store.checkpoint_rows(self.thread_id, unread)) if unread else [])
        with self._lock:
            self._made.clear()  # a full row (its source) can name what made a checkpoint, or its child
            for row in rows:
                key = key_of(row)
                self._rows[key] = row
                if key in self.history.nodes:
                    self.history.node(key).row = row
            self._version += 1  # last: a result computed from this version saw every row above

    def write_keys(self, store: Store, keys: list[Key]) -> dict[Key, list[WriteKey]]:
        """The write keys (``Store.write_keys``) of ``keys``, each read once: several views of one page share them."""
        missing = [k for k in dict.fromkeys(keys) if k not in self._write_keys and k in self.history.nodes]
        if missing:
            fetched = self._mask(store.write_keys(self.thread_id, missing))
            with self._lock:
                for key in missing:
                    self._write_keys[key] = fetched.get(key, [])
        return {k: self._write_keys[k] for k in keys if k in self._write_keys}

    def attributions(self, store: Store, keys: list[Key]) -> dict[Key, Attribution]:
        """What produced each of ``keys`` (``attribution.attribute``), from the write keys of those checkpoints
        and their parents and grandparents only; each given once."""
        keys = [k for k in keys if k in self.history.nodes]
        found = {key: self._made.get(key) for key in keys}
        new = [key for key, made in found.items() if made is None]
        if new:
            writes = self.write_keys(store, writes_needed(self.history, new))
            made = {key: attribute(self.history, key, writes) for key in new}
            found.update(made)
            with self._lock:
                self._made.update(made)
        return found  # type: ignore[return-value]

    def _reader(self, store: Store):
        thread = self

        class _Keys:  # what the attribution walks read through: this history's write keys
            @staticmethod
            def write_keys(thread_id: str, keys: list[Key]) -> dict[Key, list[WriteKey]]:
                return thread.write_keys(store, keys)

        return _Keys()

    def last_writes(self, store: Store, key: Key, fields: list[str]) -> dict[str, Attribution]:
        """``attribution.last_writes`` over the write keys read so far (and those it still needs)."""
        return last_writes(self._reader(store), self.history, key, fields) if key in self.history.nodes else {}

    def newest_writing(self, store: Store, key: Key) -> Attribution | None:
        """``attribution.newest_writing`` over the write keys read so far (and those it still needs)."""
        return newest_writing(self._reader(store), self.history, key)

    def follow(self, store: Store) -> list[CheckpointRow]:
        """Read checkpoints newer than the newest held (and the newest's writes again: its step may have
        finished since); lay the history out again when any arrived. Returns the new rows."""
        newest = self.newest_id
        fresh = self._mask(store.timeline_keys(self.thread_id, after=newest))
        if not fresh:
            return []
        newest_key = max((k for k in self._rows if k[1] == newest), key=lambda k: len(k[0]))
        again = {key_of(r): r for r in self._mask(store.checkpoint_rows(self.thread_id, [newest_key]))}
        with self._lock:
            self._rows.update(again)
            for row in fresh:
                self._rows.setdefault(key_of(row), row)
            self._order = [self._rows[key_of(r)] for r in self._order] + fresh
            self.history = build_history(self._order)
            self.history.node_name = self._node_name
            self._write_keys.pop(newest_key, None)  # its step may have finished since: its writes are read again
            self._made.clear()
            self._version += 1
        return fresh
