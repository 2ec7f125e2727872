"""``StoreReadSaver``: LangGraph's saver writes, the inspector's store answers every read.

LangGraph's conformance suite and LangGraph itself (``get_state``, ``get_state_history``,
``DeltaChannel`` replay) talk to a ``BaseCheckpointSaver``. This one hands ``put`` and
``put_writes`` to a real saver (``SqliteSaver``, ``PostgresSaver``) on a throwaway store,
and answers ``get_tuple``, ``list`` and ``get_delta_channel_history`` (and their async
forms) from ``inspector.store`` opened read-only on the same store: any read the store
gets wrong shows up as a failure of the suite or as a state LangGraph computes differently.

The store returns plain data (LangChain messages as message dicts, LangGraph's types as
``{"__type__": ..., "value": ...}``); ``to_python`` turns the few types LangGraph needs back
into its own classes. Delta channels the store rebuilt are left out of ``channel_values``,
as LangGraph's savers leave them out, so LangGraph asks ``get_delta_channel_history`` for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from langgraph.checkpoint.base import (
    BaseCheckpointSaver,
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
    DeltaChannelHistory,
    get_checkpoint_id,
)
from langgraph.checkpoint.serde.types import _DeltaSnapshot
from langgraph.types import Interrupt, Overwrite, Send

from inspector.store import CheckpointState, NotFound, Store
from inspector.store.decode import DELTA_SNAPSHOT_TYPE
from inspector.store.delta import MESSAGE_TYPES, as_messages

# LangGraph's own classes for the ext values the decoder shows as {"__type__": name, "value": payload}.
LANGGRAPH_TYPES = {
    DELTA_SNAPSHOT_TYPE: lambda payload: _DeltaSnapshot(to_python(payload)),
    "langgraph.types.Interrupt": lambda payload: Interrupt(**to_python(payload)),
    "langgraph.types.Send": lambda payload: Send(payload[0], to_python(payload[1])),
    "langgraph.types.Overwrite": lambda payload: Overwrite(to_python(payload["value"])),
}


def to_python(value: Any) -> Any:
    """The store's plain data as LangGraph holds it: messages and LangGraph's own types rebuilt."""
    if isinstance(value, list):
        return [to_python(v) for v in value]
    if isinstance(value, dict):
        if value.get("__type__") in LANGGRAPH_TYPES:
            return LANGGRAPH_TYPES[value["__type__"]](value["value"])
        if value.get("type") in MESSAGE_TYPES and "content" in value:
            return as_messages(value)
        return {k: to_python(v) for k, v in value.items()}
    return value


def checkpoint_tuple(state: CheckpointState) -> CheckpointTuple:
    """A decoded checkpoint as LangGraph's savers return it."""
    configurable = {"thread_id": state.thread_id, "checkpoint_ns": state.checkpoint_ns}
    stored = {
        name: value
        for name, value in {**state.values, **state.internal}.items()
        if name not in state.rebuilt_channels
    }
    parent = state.parent_checkpoint_id
    return CheckpointTuple(
        config={"configurable": {**configurable, "checkpoint_id": state.checkpoint_id}},
        checkpoint={**to_python(state.header), "channel_values": to_python(stored)},
        metadata=to_python(state.metadata),
        parent_config={"configurable": {**configurable, "checkpoint_id": parent}} if parent else None,
        pending_writes=[(w.task_id, w.channel, to_python(w.value)) for w in state.writes],
    )


class StoreReadSaver(BaseCheckpointSaver):
    """Writes through ``writer`` (one of LangGraph's savers); reads through ``store``."""

    def __init__(self, writer: BaseCheckpointSaver, store: Store) -> None:
        super().__init__(serde=writer.serde)
        self.writer = writer
        self.store = store

    # -- writes: LangGraph's saver -------------------------------------------
    def put(
        self, config: dict, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict:
        return self.writer.put(config, checkpoint, metadata, new_versions)

    def put_writes(self, config: dict, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = "") -> None:
        self.writer.put_writes(config, writes, task_id, task_path)

    async def aput(
        self, config: dict, checkpoint: Checkpoint, metadata: CheckpointMetadata, new_versions: ChannelVersions
    ) -> dict:
        return self.put(config, checkpoint, metadata, new_versions)

    async def aput_writes(
        self, config: dict, writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        self.put_writes(config, writes, task_id, task_path)

    def get_next_version(self, current: Any, channel: None) -> Any:
        return self.writer.get_next_version(current, channel)

    # -- reads: the inspector's store ------------------------------------------
    def get_tuple(self, config: dict) -> CheckpointTuple | None:
        configurable = config["configurable"]
        try:
            state = self.store.state(
                configurable["thread_id"], get_checkpoint_id(config), configurable.get("checkpoint_ns", "")
            )
        except NotFound:
            return None
        return checkpoint_tuple(state)

    def list(
        self,
        config: dict | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        before_id = get_checkpoint_id(before) if before else None
        if config is None:
            rows = sorted(
                (row for thread_id in self._thread_ids()
                 for row in self.store.history(thread_id, None, before=before_id, filter=filter)),
                key=lambda row: row.checkpoint_id,
                reverse=True,
            )[:limit]
        else:
            configurable = config["configurable"]
            wanted = get_checkpoint_id(config)
            rows = self.store.history(
                configurable["thread_id"],
                configurable.get("checkpoint_ns"),
                before=before_id,
                limit=None if wanted else limit,
                filter=filter,
            )
            if wanted:
                rows = [row for row in rows if row.checkpoint_id == wanted][:limit]
        for row in rows:
            yield checkpoint_tuple(self.store.state(row.thread_id, row.checkpoint_id, row.checkpoint_ns))

    def _thread_ids(self) -> Iterator[str]:
        offset = 0
        while page := self.store.threads(limit=100, offset=offset):
            yield from (t.thread_id for t in page)
            offset += len(page)

    def get_delta_channel_history(
        self, *, config: dict, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        configurable = config["configurable"]
        checkpoint_id = get_checkpoint_id(config)
        if checkpoint_id is None:
            newest = self.get_tuple(config)
            checkpoint_id = newest.config["configurable"]["checkpoint_id"] if newest else None
        try:
            if checkpoint_id is None:
                raise NotFound("no checkpoint")
            histories = self.store.delta_history(
                configurable["thread_id"], checkpoint_id, channels, configurable.get("checkpoint_ns", "")
            )
        except NotFound:
            return {channel: {"writes": []} for channel in channels}
        out: dict[str, DeltaChannelHistory] = {}
        for channel, found in histories.items():
            entry: DeltaChannelHistory = {"writes": [(w.task_id, w.channel, to_python(w.value)) for w in found.writes]}
            if found.has_seed:
                entry["seed"] = to_python(found.seed)
            out[channel] = entry
        return out

    async def aget_tuple(self, config: dict) -> CheckpointTuple | None:
        return self.get_tuple(config)

    async def alist(
        self,
        config: dict | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        for tup in self.list(config, filter=filter, before=before, limit=limit):
            yield tup

    async def aget_delta_channel_history(
        self, *, config: dict, channels: Sequence[str]
    ) -> Mapping[str, DeltaChannelHistory]:
        return self.get_delta_channel_history(config=config, channels=channels)
