"""Any ``BaseCheckpointSaver`` (Redis, MongoDB, InMemorySaver, ...) behind the ``Store`` protocol.

``module.path:attribute`` or ``path/to/file.py:attribute`` names a saver instance or
a function returning one (a context manager is entered), like the ``checkpointer``
entry of ``langgraph.json``. The store reads only through the saver's public read
API (``list``, ``get_tuple``, ``get_delta_channel_history``); async-only savers are
driven from a private event loop. Values the saver hands back as Python objects are
serialized with LangGraph's own serializer and read back through the same safe
decoder as the SQL stores, so every backend shows the same plain data.

This path is slower than direct SQL (the saver loads whole checkpoints) and cannot
be read-only by construction: the inspector calls no write method, but the saver
is the user's code.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections import defaultdict
from typing import Any, Collection, Iterable, Iterator, Sequence

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from . import delta
from .decode import Decoded, Opaque, Problem, decode_checkpoint_blob, decode_typed
from .measure import measure_checkpoint_blob
from .model import (
    BRANCH_PARENT_KEY,
    PER_CHECKPOINT_COPY,
    THREAD_SORTS,
    BranchThread,
    CheckpointRow,
    CheckpointSizes,
    CheckpointState,
    NotFound,
    StoreError,
    Key,
    StoreTotals,
    ThreadSummary,
    WriteRecord,
    branch_of,
    checkpoint_time,
    sorted_branches,
)
from .records import assemble_state, checkpoint_not_found, thread_not_found, write_records
from .retention_keys import not_supported
from .saver_loading import load_saver

SAVER_WARNING = (
    "Read through the saver's public API: slower than direct SQL, and not read-only by construction "
    "(the inspector calls only read methods, but the saver is your code)."
)

_SERDE = JsonPlusSerializer()


def plain(value: Any, field_name: str | None = None) -> Decoded:
    """A Python value as the safe decoder shows stored data (messages -> message dicts, ...)."""
    try:
        type_tag, data = _SERDE.dumps_typed(value)
    except Exception as exc:  # a value LangGraph's serializer cannot write
        return Decoded(Opaque(type(value).__name__, 0, "not serializable"),
                       [Problem(f"value not serializable ({type(exc).__name__})", field_name)])
    return decode_typed(type_tag, data, field_name)


UNSERIALIZABLE_TAG = "unserializable"


def _dumps(value: Any) -> tuple[str, bytes]:
    """``(type, bytes)`` as LangGraph's serializer writes ``value``; a value it cannot write gets a tag of its own."""
    try:
        return _SERDE.dumps_typed(value)
    except Exception:  # noqa: BLE001 - the saver's own serde may hold types ours cannot write
        return f"{UNSERIALIZABLE_TAG}:{type(value).__name__}", b""


def _dump_checkpoint(checkpoint: Any) -> tuple[str, bytes, list[Problem]]:
    """The checkpoint serialized whole; a channel value the serializer cannot write becomes an opaque marker."""
    try:
        return (*_SERDE.dumps_typed(checkpoint), [])
    except Exception:  # noqa: BLE001 - find the channels to blame, keep the rest
        pass
    values = dict(checkpoint.get("channel_values") or {})
    problems = []
    for name, value in values.items():
        tag, _ = _dumps(value)
        if tag.startswith(UNSERIALIZABLE_TAG):
            values[name] = {"__opaque__": type(value).__name__, "size": 0, "reason": "not serializable"}
            problems.append(Problem(f"value of type {type(value).__name__} cannot be serialized for display", name))
    try:
        return (*_SERDE.dumps_typed({**checkpoint, "channel_values": values}), problems)
    except Exception as exc:  # noqa: BLE001 - the header itself: nothing to show
        raise StoreError(f"checkpoint {checkpoint.get('id')!r} cannot be serialized for display "
                         f"({type(exc).__name__})") from None


class _Loop:
    """A private event loop on its own thread, for savers that only implement the async API."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="inspector-saver-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


def is_async_only(saver: BaseCheckpointSaver) -> bool:
    cls = type(saver)
    return cls.list is BaseCheckpointSaver.list or cls.__name__.startswith("Async")


class SaverStore:
    """Reads a ``BaseCheckpointSaver`` through its public API."""

    kind = "saver"
    read_only = False
    size_accounting = PER_CHECKPOINT_COPY
    warning = SAVER_WARNING

    def __init__(self, saver: BaseCheckpointSaver, url: str = "", stack: contextlib.ExitStack | None = None,
                 loop: _Loop | None = None, schema: delta.SchemaSource | None = None) -> None:
        if not isinstance(saver, BaseCheckpointSaver):
            raise StoreError(f"{url or 'the object'} is not a LangGraph BaseCheckpointSaver")
        self.saver = saver
        self.schema = schema
        self.url = url or f"saver:{type(saver).__name__}"
        self.identity = f"saver:{self.url}" if url else f"saver:{type(saver).__name__}@{id(saver):x}"
        self._stack = stack or contextlib.ExitStack()
        self._is_async = is_async_only(saver)
        self._loop = loop or (_Loop() if self._is_async else None)
        self.saver_name = f"{type(saver).__module__}.{type(saver).__name__}"

    @classmethod
    def from_spec(cls, spec: str, schema: delta.SchemaSource | None = None) -> "SaverStore":
        """Load the saver ``spec`` names; factories and context managers are entered on a private loop."""
        loop = _Loop()
        stack = contextlib.ExitStack()
        try:
            saver = load_saver(spec, stack, loop.run)
            return cls(saver, spec, stack, loop, schema)
        except BaseException:
            stack.close()
            loop.close()
            raise

    # -- lifecycle -------------------------------------------------------
    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            if self._loop is not None:
                self._loop.close()

    def __enter__(self) -> "SaverStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def retention_reader(self) -> Any:
        """Not supported: a saver's API lists checkpoints, not stored rows and their lengths."""
        not_supported("A retention preview")

    def export_thread(self, thread_id: str) -> Any:
        """Not supported: a saver's API returns deserialized objects, not the rows a bundle copies."""
        not_supported("Exporting a thread")

    # -- saver calls -------------------------------------------------------
    def _async(self) -> bool:
        return self._is_async

    def _list(self, config: dict | None, **options: Any) -> list[CheckpointTuple]:
        try:
            if self._async():
                async def collect() -> list[CheckpointTuple]:
                    return [t async for t in self.saver.alist(config, **options)]

                return self._loop.run(collect())
            return list(self.saver.list(config, **options))
        except Exception as exc:
            raise StoreError(f"{self.saver_name}.list failed: {type(exc).__name__}: {exc}") from None

    def _get_tuple(self, config: dict) -> CheckpointTuple | None:
        try:
            if self._async():
                return self._loop.run(self.saver.aget_tuple(config))
            return self.saver.get_tuple(config)
        except Exception as exc:
            raise StoreError(f"{self.saver_name}.get_tuple failed: {type(exc).__name__}: {exc}") from None

    def _delta_history(self, config: dict, channels: list[str]) -> dict:
        if self._async():
            return self._loop.run(self.saver.aget_delta_channel_history(config=config, channels=channels))
        return self.saver.get_delta_channel_history(config=config, channels=channels)

    # -- threads ---------------------------------------------------------
    def _by_thread(self, search: str | None) -> dict[str, list[CheckpointTuple]]:
        grouped: dict[str, list[CheckpointTuple]] = defaultdict(list)
        for tup in self._list(None):
            grouped[tup.config["configurable"]["thread_id"]].append(tup)
        if search:
            needle = search.lower()
            grouped = {
                tid: tuples for tid, tuples in grouped.items()
                if needle in tid.lower()
                or any(needle in json.dumps(t.metadata, ensure_ascii=False, default=str).lower() for t in tuples)
            }
        return grouped

    def count_threads(self, search: str | None = None) -> int:
        return len(self._by_thread(search))

    def totals(self) -> StoreTotals:
        grouped = self._by_thread(None)
        summaries = [self._summary(tid, tuples) for tid, tuples in grouped.items()]
        return StoreTotals(len(summaries), sum(t.checkpoints for t in summaries), sum(t.stored_bytes for t in summaries))

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest") -> list[ThreadSummary]:
        """Every thread is read through the saver either way; ``stored`` measures each one re-serialized."""
        if sort not in THREAD_SORTS:
            raise StoreError(f"unknown thread order {sort!r}: use one of {', '.join(THREAD_SORTS)}")
        grouped = self._by_thread(search)
        order = sorted(grouped)
        order.sort(key=lambda tid: max(_cid(t) for t in grouped[tid]), reverse=True)
        if sort == "checkpoints":
            order.sort(key=lambda tid: len(grouped[tid]), reverse=True)
        if sort == "stored":
            ranked = sorted((self._summary(tid, grouped[tid]) for tid in order), key=lambda t: t.stored_bytes, reverse=True)
            return ranked[offset : offset + limit]
        return [self._summary(tid, grouped[tid]) for tid in order[offset : offset + limit]]

    def _summary(self, thread_id: str, tuples: list[CheckpointTuple]) -> ThreadSummary:
        roots = [t for t in tuples if _ns(t) == ""]
        newest_any = max(_cid(t) for t in tuples)
        title = None
        for tup in sorted(roots, key=_cid, reverse=True):
            titles = [v for _, ch, v in tup.pending_writes or [] if ch == "title"]
            if titles:
                title = titles[-1] if isinstance(titles[-1], str) else None
                break
        return ThreadSummary(
            thread_id=thread_id,
            checkpoints=len(tuples),
            newest_checkpoint_id=max((_cid(t) for t in roots), default=newest_any),
            updated_at=checkpoint_time(newest_any),
            stored_bytes=sum(_checkpoint_bytes(t) + _writes_bytes(t) for t in tuples),
            title=title,
            namespaces=len({_ns(t) for t in tuples}),
        )

    # -- timeline --------------------------------------------------------
    def _thread(self, thread_id: str) -> list[CheckpointTuple]:
        tuples = self._list({"configurable": {"thread_id": thread_id}})
        if not tuples:
            raise thread_not_found(thread_id)
        return tuples

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        """Full rows: the saver returns whole checkpoints, metadata included, either way."""
        return [r for r in self.timeline(thread_id) if after is None or r.checkpoint_id > after]

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        wanted = set(keys)
        tuples = self._list({"configurable": {"thread_id": thread_id}})
        return self._rows(thread_id, [t for t in tuples if (_ns(t), _cid(t)) in wanted])

    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        rows = self.history(thread_id, None)
        if not rows:
            raise thread_not_found(thread_id)
        return rows

    def history(
        self,
        thread_id: str,
        ns: str | None = "",
        *,
        before: str | None = None,
        limit: int | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[CheckpointRow]:
        """See ``Store.history``: the filters are handed to the saver's ``list``."""
        config = {"configurable": {"thread_id": thread_id, **({} if ns is None else {"checkpoint_ns": ns})}}
        options: dict[str, Any] = {"filter": filter or None, "limit": limit}
        if before is not None:
            options["before"] = {"configurable": {**config["configurable"], "checkpoint_id": before}}
        return self._rows(thread_id, self._list(config, **options))

    def _rows(self, thread_id: str, tuples: list[CheckpointTuple]) -> list[CheckpointRow]:
        tuples.sort(key=_ns)
        tuples.sort(key=_cid, reverse=True)
        rows = []
        for tup in tuples:
            meta = plain(dict(tup.metadata or {})).value
            meta = meta if isinstance(meta, dict) else {}
            step = meta.get("step")
            rows.append(
                CheckpointRow(
                    thread_id=thread_id,
                    checkpoint_ns=_ns(tup),
                    checkpoint_id=_cid(tup),
                    parent_checkpoint_id=_parent(tup),
                    step=step if isinstance(step, int) else None,
                    source=meta.get("source"),
                    created_at=checkpoint_time(_cid(tup)),
                    stored_bytes=_checkpoint_bytes(tup),
                    writes_bytes=_writes_bytes(tup),
                    write_channels=tuple(dict.fromkeys(ch for _, ch, _ in tup.pending_writes or [])),
                    metadata=meta,
                )
            )
        return rows

    # -- branches --------------------------------------------------------
    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        """The saver's own metadata filter finds the branch checkpoints; each thread's first one is read."""
        first: dict[str, CheckpointTuple] = {}
        for tup in self._list(None, filter={BRANCH_PARENT_KEY: thread_id}):
            tid = tup.config["configurable"]["thread_id"]
            if _ns(tup) == "" and (tid not in first or _cid(tup) < _cid(first[tid])):
                first[tid] = tup
        found = (branch_of(tid, plain(dict(tup.metadata or {})).value) for tid, tup in first.items())
        return sorted_branches(b for b in found if b is not None and b.parent_thread_id == thread_id)

    # -- sizes -----------------------------------------------------------
    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel sizes of each checkpoint as LangGraph's serializer writes it, oldest first.

        The saver's own storage layout is not visible through its API, so each
        checkpoint counts as one serialized copy of every channel.
        """
        return list(self.iter_field_sizes(thread_id, ns))

    def iter_field_sizes(self, thread_id: str, ns: str | None = None,
                         keys: Collection[Key] | None = None) -> Iterator[CheckpointSizes]:
        wanted = None if keys is None else set(keys)
        tuples = sorted((t for t in self._thread(thread_id) if (ns is None or _ns(t) == ns)
                         and (wanted is None or (_ns(t), _cid(t)) in wanted)), key=lambda t: (_cid(t), _ns(t)))
        return (self._sizes(thread_id, tup) for tup in tuples)

    def _sizes(self, thread_id: str, tup: CheckpointTuple) -> CheckpointSizes:
        type_tag, blob, problems = _dump_checkpoint(tup.checkpoint)
        measured = measure_checkpoint_blob(type_tag, blob)
        meta = tup.metadata or {}
        step = meta.get("step")
        return CheckpointSizes(
            thread_id=thread_id,
            checkpoint_ns=_ns(tup),
            checkpoint_id=_cid(tup),
            parent_checkpoint_id=_parent(tup),
            step=step if isinstance(step, int) else None,
            source=meta.get("source") if isinstance(meta.get("source"), str) else None,
            stored_bytes=len(blob) + _metadata_bytes(tup),
            writes_bytes=_writes_bytes(tup),
            channels=measured.channels,
            problems=tuple(problems + list(measured.problems)),
        )

    # -- state -----------------------------------------------------------
    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        if checkpoint_id:
            config["configurable"]["checkpoint_id"] = checkpoint_id
        tup = self._get_tuple(config)
        if tup is None or (checkpoint_id and _cid(tup) != checkpoint_id):
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return self._state_of(thread_id, ns, tup)

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        """The saver lists whole checkpoints; each is decoded when the stream reaches it."""
        tuples = [t for t in self._thread(thread_id) if _ns(t) == ns]
        if not tuples:
            raise NotFound(f"no checkpoints in namespace {ns!r} for thread {thread_id!r}")
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        ordered = sorted((t for t in tuples if wanted is None or _cid(t) in wanted), key=_cid)
        return (self._state_of(thread_id, ns, tup, channels) for tup in ordered)

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        tuples = sorted((t for t in self._list({"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}})
                         if _ns(t) == ns and t.pending_writes and (wanted is None or _cid(t) in wanted)), key=_cid)
        return ((_cid(t), _writes_of(t)[0]) for t in tuples)

    def _state_of(self, thread_id: str, ns: str, tup: CheckpointTuple,
                  channels: Collection[str] | None = None) -> CheckpointState:
        type_tag, blob, problems = _dump_checkpoint(tup.checkpoint)
        decoded = decode_checkpoint_blob(type_tag, blob, channels)
        metadata = plain(dict(tup.metadata or {})).value
        metadata = metadata if isinstance(metadata, dict) else {}
        writes, write_problems = _writes_of(tup)
        return assemble_state(
            thread_id=thread_id,
            ns=ns,
            checkpoint_id=_cid(tup),
            parent=_parent(tup),
            header=decoded.header,
            channel_values=decoded.channel_values,
            channel_bytes=decoded.channel_bytes,
            metadata=metadata,
            writes=writes,
            problems=problems + decoded.problems + write_problems,
            stored_bytes=len(blob) + _metadata_bytes(tup),
            rebuild=lambda missing: self._rebuild(tup, missing),
            channels=channels,
        )

    def _rebuild(self, tup: CheckpointTuple, channels: list[str]) -> tuple[dict[str, Any], list[Problem]]:
        try:
            histories = self._histories(tup.config, channels)
        except Exception as exc:
            return {}, [Problem(f"the saver could not return delta history ({type(exc).__name__}: {exc})", ch, "delta")
                        for ch in channels]
        rebuilt = delta.fold_histories(histories, delta.reducers_from(self.schema))
        return rebuilt.values, rebuilt.problems

    def delta_history(
        self, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str = ""
    ) -> dict[str, delta.DeltaHistory]:
        """See ``Store.delta_history``: the saver's ``get_delta_channel_history``, whose writes
        carry neither their checkpoint nor their task path."""
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}
        tup = self._get_tuple(config)
        if tup is None or _cid(tup) != checkpoint_id:
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        try:
            return self._histories(tup.config, list(channels))
        except Exception as exc:
            raise StoreError(f"{self.saver_name}.get_delta_channel_history failed: {type(exc).__name__}: {exc}") from None

    def _histories(self, config: dict, channels: list[str]) -> dict[str, delta.DeltaHistory]:
        if not channels:
            return {}
        found = self._delta_history(config, channels)
        out: dict[str, delta.DeltaHistory] = {}
        for channel in channels:
            entry = found.get(channel) or {}
            writes = tuple(
                delta.ChannelWrite("", "", task_id, 0, channel, plain(value, channel).value)
                for task_id, _, value in entry.get("writes", [])
            )
            has_seed = "seed" in entry
            seed = plain(entry["seed"], channel).value if has_seed else None
            out[channel] = delta.DeltaHistory(channel, writes, seed, has_seed)
        return out


def _writes_of(tup: CheckpointTuple) -> tuple[list[WriteRecord], list[Problem]]:
    return write_records((task_id, "", idx, channel, *_dumps(value))
                         for idx, (task_id, channel, value) in enumerate(tup.pending_writes or []))


def _cid(tup: CheckpointTuple) -> str:
    return tup.config["configurable"]["checkpoint_id"]


def _ns(tup: CheckpointTuple) -> str:
    return tup.config["configurable"].get("checkpoint_ns", "") or ""


def _parent(tup: CheckpointTuple) -> str | None:
    return (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")


def _checkpoint_bytes(tup: CheckpointTuple) -> int:
    return len(_dump_checkpoint(tup.checkpoint)[1]) + _metadata_bytes(tup)


def _metadata_bytes(tup: CheckpointTuple) -> int:
    return len(json.dumps(tup.metadata or {}, default=str))


def _writes_bytes(tup: CheckpointTuple) -> int:
    return sum(len(_dumps(value)[1]) for _, _, value in tup.pending_writes or [])
