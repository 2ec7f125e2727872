"""Values a saver hands back as Python objects, serialized with LangGraph's own serializer and read back
through the safe decoder, so a saver's data looks like the SQL stores'; and the keys and sizes of its
``CheckpointTuple``s."""

from __future__ import annotations

import json
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from ..decode import Decoded, Opaque, Problem, decode_typed
from ..model import StoreError, WriteRecord
from ..not_utf8 import quoted
from ..records import write_records

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


def dumps(value: Any) -> tuple[str, bytes]:
    """``(type, bytes)`` as LangGraph's serializer writes ``value``; a value it cannot write gets a tag of its own."""
    try:
        return _SERDE.dumps_typed(value)
    except Exception:  # noqa: BLE001 - the saver's own serde may hold types ours cannot write
        return f"{UNSERIALIZABLE_TAG}:{type(value).__name__}", b""


def dump_checkpoint(checkpoint: Any) -> tuple[str, bytes, list[Problem]]:
    """The checkpoint serialized whole; a channel value the serializer cannot write becomes an opaque marker."""
    try:
        return (*_SERDE.dumps_typed(checkpoint), [])
    except Exception:  # noqa: BLE001 - find the channels to blame, keep the rest
        pass
    values = dict(checkpoint.get("channel_values") or {})
    problems = []
    for name, value in values.items():
        tag, _ = dumps(value)
        if tag.startswith(UNSERIALIZABLE_TAG):
            values[name] = {"__opaque__": type(value).__name__, "size": 0, "reason": "not serializable"}
            problems.append(Problem(f"value of type {type(value).__name__} cannot be serialized for display", name))
    try:
        return (*_SERDE.dumps_typed({**checkpoint, "channel_values": values}), problems)
    except Exception as exc:  # noqa: BLE001 - the header itself: nothing to show
        raise StoreError(f"checkpoint {quoted(str(checkpoint.get('id')))} cannot be serialized for display "
                         f"({type(exc).__name__})") from None


def writes_of(tup: CheckpointTuple) -> tuple[list[WriteRecord], list[Problem]]:
    return write_records((task_id, "", idx, channel, *dumps(value))
                         for idx, (task_id, channel, value) in enumerate(tup.pending_writes or []))


def cid(tup: CheckpointTuple) -> str:
    return tup.config["configurable"]["checkpoint_id"]


def ns_of(tup: CheckpointTuple) -> str:
    return tup.config["configurable"].get("checkpoint_ns", "") or ""


def parent_of(tup: CheckpointTuple) -> str | None:
    return (tup.parent_config or {}).get("configurable", {}).get("checkpoint_id")


def checkpoint_bytes(tup: CheckpointTuple) -> int:
    return len(dump_checkpoint(tup.checkpoint)[1]) + metadata_bytes(tup)


def metadata_bytes(tup: CheckpointTuple) -> int:
    return len(json.dumps(tup.metadata or {}, default=str))


def writes_bytes(tup: CheckpointTuple) -> int:
    return sum(written_bytes(tup).values())


def written_bytes(tup: CheckpointTuple) -> dict[str, int]:
    """Bytes of the pending writes per channel, as the saver would serialize them."""
    out: dict[str, int] = {}
    for _, channel, value in tup.pending_writes or []:
        out[str(channel)] = out.get(str(channel), 0) + len(dumps(value)[1])
    return out
