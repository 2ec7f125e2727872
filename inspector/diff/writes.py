"""The writes that produced a checkpoint: which ones belong to the step, per channel, described."""

from __future__ import annotations

from typing import Any

from ..store import CheckpointState, WriteRecord, is_internal_channel
from .summaries import message_line, summarise

PULL_PREFIX = "~__pregel_pull, "


def step_writes(parent: CheckpointState, child_source: str | None) -> list[WriteRecord] | None:
    """The writes that turned ``parent`` into a child made by ``child_source``.

    A ``loop`` child is the result of the tasks that ran from the parent: their
    writes are stored against the parent. An ``input`` child only puts the new
    input into LangGraph's ``__start__`` channel, so no field was written.
    ``update_state`` (``update``, ``fork``) applies its values directly without
    storing them as writes: unknown, None.
    """
    if child_source in (None, "loop"):
        return list(parent.writes)
    if child_source == "input":
        return []
    return None


def node_of(record: WriteRecord) -> str:
    """The node a write came from, read from its task path (``~__pregel_pull, agent`` -> ``agent``)."""
    path = record.task_path or ""
    if path.startswith(PULL_PREFIX) and "," not in path[len(PULL_PREFIX):]:
        return path[len(PULL_PREFIX):]
    return path or record.task_id


def writes_by_channel(records: list[WriteRecord] | None, internal: bool = False) -> dict[str, list[Any]] | None:
    """Written values per channel, in task order; LangGraph's channels left out unless ``internal``."""
    if records is None:
        return None
    grouped: dict[str, list[Any]] = {}
    for record in records:
        if internal or not is_internal_channel(record.channel):
            grouped.setdefault(record.channel, []).append(record.value)
    return grouped


def describe_write(record: WriteRecord) -> dict[str, Any]:
    """One write as "what the node wrote", summarised."""
    value = record.value
    if record.channel == "messages":
        items = value if isinstance(value, list) else [value]
        shown: Any = [message_line(m) for m in items]
    else:
        shown = summarise(value)
    return {"node": node_of(record), "task_id": record.task_id, "channel": record.channel,
            "bytes": record.size, "value": shown}


def describe_writes(records: list[WriteRecord] | None, internal: bool = False) -> list[dict[str, Any]]:
    return [describe_write(r) for r in records or [] if internal or not is_internal_channel(r.channel)]
