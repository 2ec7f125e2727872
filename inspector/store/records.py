"""Pieces every backend builds its answers from: decoded write records, the channel split, not-found errors."""

from __future__ import annotations

from typing import Any, Iterable

from .decode import Problem, decode_typed
from .model import NotFound, WriteRecord, is_internal_channel

WriteRow = tuple[str, str | None, int, str, str | None, bytes | None]  # task_id, task_path, idx, channel, type, data


def write_records(rows: Iterable[WriteRow]) -> tuple[list[WriteRecord], list[Problem]]:
    """Decode stored writes (what tasks wrote, before reducers); problems name the write's channel."""
    records, problems = [], []
    for task_id, path, idx, channel, type_tag, data in rows:
        decoded = decode_typed(type_tag, data, channel)
        problems.extend(Problem(f"pending write: {p.message}", p.field, p.kind) for p in decoded.problems)
        records.append(WriteRecord(task_id, path or "", idx, channel, decoded.value, type_tag, len(data or b"")))
    return records, problems


def split_channels(channel_values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the state's fields, LangGraph's internal channels)."""
    values = {k: v for k, v in channel_values.items() if not is_internal_channel(k)}
    internal = {k: v for k, v in channel_values.items() if is_internal_channel(k)}
    return values, internal


def like_pattern(search: str) -> str:
    """``search`` as a substring pattern for ``LIKE ... ESCAPE '\\'``: ``%`` and ``_`` match themselves."""
    escaped = search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def checkpoint_not_found(thread_id: str, checkpoint_id: str | None, ns: str) -> NotFound:
    where = f"checkpoint {checkpoint_id!r}" if checkpoint_id else "checkpoint"
    ns_text = f" in namespace {ns!r}" if ns else ""
    return NotFound(f"no {where}{ns_text} for thread {thread_id!r}")
