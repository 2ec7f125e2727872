"""A saver's checkpoints decoded and measured: states, writes, per-channel sizes, and delta channels
rebuilt from ``get_delta_channel_history``."""

from __future__ import annotations

from typing import Any, Collection, Iterator, Sequence

from langgraph.checkpoint.base import CheckpointTuple

from .. import delta
from ..checkpoint_blob import decode_checkpoint_blob
from ..decode import Problem
from ..measure import Inspect, measure_checkpoint_blob
from ..model import CheckpointSizes, CheckpointState, Key, NotFound, StoreError, WriteRecord
from ..not_utf8 import quoted
from ..records import assemble_state, checkpoint_not_found, is_step
from .serialize import cid, dump_checkpoint, metadata_bytes, ns_of, parent_of, plain, writes_bytes, writes_of, written_bytes


class SaverStates:
    """States, writes, sizes and delta histories (a mixin of ``SaverStore``: needs ``_thread``, ``_list``,
    ``_get_tuple``, ``_delta_history``, ``saver_name`` and ``schema``)."""

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel sizes of each checkpoint as LangGraph's serializer writes it, oldest first.

        The saver's own storage layout is not visible through its API, so each
        checkpoint counts as one serialized copy of every channel.
        """
        return list(self.iter_field_sizes(thread_id, ns))

    def iter_field_sizes(self, thread_id: str, ns: str | None = None, keys: Collection[Key] | None = None,
                         inspect: Inspect | None = None) -> Iterator[CheckpointSizes]:
        wanted = None if keys is None else set(keys)
        tuples = sorted((t for t in self._thread(thread_id) if (ns is None or ns_of(t) == ns)
                         and (wanted is None or (ns_of(t), cid(t)) in wanted)), key=lambda t: (cid(t), ns_of(t)))
        return (self._sizes(thread_id, tup, inspect) for tup in tuples)

    def _sizes(self, thread_id: str, tup: CheckpointTuple, inspect: Inspect | None = None) -> CheckpointSizes:
        type_tag, blob, problems = dump_checkpoint(tup.checkpoint)
        measured = measure_checkpoint_blob(type_tag, blob, None, inspect)
        meta = tup.metadata or {}
        step = meta.get("step")
        return CheckpointSizes(
            thread_id=thread_id,
            checkpoint_ns=ns_of(tup),
            checkpoint_id=cid(tup),
            parent_checkpoint_id=parent_of(tup),
            step=step if is_step(step) else None,
            source=meta.get("source") if isinstance(meta.get("source"), str) else None,
            stored_bytes=len(blob) + metadata_bytes(tup),
            writes_bytes=writes_bytes(tup),
            channels=measured.channels,
            problems=tuple(problems + list(measured.problems)),
            written=written_bytes(tup),
        )

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}}
        if checkpoint_id:
            config["configurable"]["checkpoint_id"] = checkpoint_id
        tup = self._get_tuple(config)
        if tup is None or (checkpoint_id and cid(tup) != checkpoint_id):
            raise checkpoint_not_found(thread_id, checkpoint_id, ns)
        return self._state_of(thread_id, ns, tup)

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        """The saver lists whole checkpoints; each is decoded when the stream reaches it."""
        tuples = [t for t in self._thread(thread_id) if ns_of(t) == ns]
        if not tuples:
            raise NotFound(f"no checkpoints in namespace {quoted(ns)} for thread {quoted(thread_id)}")
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        ordered = sorted((t for t in tuples if wanted is None or cid(t) in wanted), key=cid)
        return (self._state_of(thread_id, ns, tup, channels) for tup in ordered)

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        wanted = None if checkpoint_ids is None else set(checkpoint_ids)
        tuples = sorted((t for t in self._list({"configurable": {"thread_id": thread_id, "checkpoint_ns": ns}})
                         if ns_of(t) == ns and t.pending_writes and (wanted is None or cid(t) in wanted)), key=cid)
        return ((cid(t), writes_of(t)[0]) for t in tuples)

    def _state_of(self, thread_id: str, ns: str, tup: CheckpointTuple,
                  channels: Collection[str] | None = None) -> CheckpointState:
        type_tag, blob, problems = dump_checkpoint(tup.checkpoint)
        decoded = decode_checkpoint_blob(type_tag, blob, channels)
        metadata = plain(dict(tup.metadata or {})).value
        metadata = metadata if isinstance(metadata, dict) else {}
        writes, write_problems = writes_of(tup)
        return assemble_state(
            thread_id=thread_id,
            ns=ns,
            checkpoint_id=cid(tup),
            parent=parent_of(tup),
            header=decoded.header,
            channel_values=decoded.channel_values,
            channel_bytes=decoded.channel_bytes,
            metadata=metadata,
            writes=writes,
            problems=problems + decoded.problems + write_problems,
            stored_bytes=len(blob) + metadata_bytes(tup),
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
        if tup is None or cid(tup) != checkpoint_id:
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

    def checkpoint_shapes(self, keys: Collection[tuple[str, str, str]]) -> dict[tuple[str, str, str], Any]:
        """See ``Store.checkpoint_shapes``: each checkpoint the saver hands back, serialized with LangGraph's
        serializer and walked by its headers like a SQLite blob."""
        from ..shape_walk import BytesReader, checkpoint_shapes

        found: dict[tuple[str, str, str], Any] = {}
        for thread_id, ns, checkpoint_id in dict.fromkeys(keys):
            config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}
            tup = self._get_tuple(config)
            if tup is None or cid(tup) != checkpoint_id:
                continue
            _, blob, _ = dump_checkpoint(tup.checkpoint)
            meta = plain(dict(tup.metadata or {})).value
            found[(thread_id, ns, checkpoint_id)] = checkpoint_shapes(BytesReader(blob),
                                                                      meta if isinstance(meta, dict) else {})
        return found
