"""The writes that produced a checkpoint: which ones belong to the step, per channel, described."""

from __future__ import annotations

from typing import Any

from ..history.attribution import Attribution, TaskNames, name_tasks, node_of, task_names  # noqa: F401 (named here too)
from ..store import CheckpointState, WriteRecord, is_internal_channel
from ..store.decode import overwritten
from .summaries import message_line, summarise

PULL_PREFIX = "~__pregel_pull, "
UPDATE_PREFIX = "~__interrupt__"  # the task path of the writes update_state stores


def is_update_write(record: WriteRecord) -> bool:
    return (record.task_path or "").startswith(UPDATE_PREFIX)


def step_writes(parent: CheckpointState, child_source: str | None) -> list[WriteRecord] | None:
    """The writes that turned ``parent`` into a child made by ``child_source``.

    A ``loop`` child is the result of the tasks that ran from the parent: their
    writes are stored against the parent. An ``input`` child only puts the new
    input into LangGraph's ``__start__`` channel, so no field was written.
    ``update_state`` (``update``, ``fork``) and direct ``put``s: unknown here, None
    (see ``update_writes``).
    """
    if child_source in (None, "loop"):
        return [w for w in parent.writes if not is_update_write(w)]
    if child_source == "input":
        return []
    return None


def update_writes(parent: CheckpointState, changed: set[str]) -> list[WriteRecord] | None:
    """The writes ``update_state`` stored on ``parent`` (LangGraph 1.x keeps them there when the
    parent was the thread's newest checkpoint), when they account for exactly the fields whose
    version changed; None when there are none or they do not fit.

    Only meaningful for the parent's only child: an update made later from the same parent stores nothing.
    """
    stored = [w for w in parent.writes if is_update_write(w)]
    wrote = {w.channel for w in stored if not is_internal_channel(w.channel)}
    if not stored or wrote != {c for c in changed if not is_internal_channel(c)}:
        return None
    return stored


def attributed_writes(parent: CheckpointState, made: Attribution) -> list[WriteRecord]:
    """The writes stored against ``parent`` that the child's attribution names: what produced the child."""
    names = task_names(made)
    return [w for w in parent.writes if (w.task_id, w.task_path or "") in names]


def writes_by_channel(records: list[WriteRecord] | None, internal: bool = False) -> dict[str, list[Any]] | None:
    """Written values per channel, in task order; LangGraph's channels left out unless ``internal``."""
    if records is None:
        return None
    grouped: dict[str, list[Any]] = {}
    for record in records:
        if internal or not is_internal_channel(record.channel):
            grouped.setdefault(record.channel, []).append(record.value)
    return grouped


def describe_write(record: WriteRecord, names: TaskNames | None = None) -> dict[str, Any]:
    """One write as "what the node wrote", summarised."""
    value = record.value
    is_overwrite, inner = overwritten(value)
    if is_overwrite:
        count = f"{len(inner)} item{'s' if len(inner) != 1 else ''}" if isinstance(inner, (list, dict)) else "a value"
        shown: Any = f"Overwrite({count}): {summarise(inner)}"
    elif record.channel == "messages":
        items = value if isinstance(value, list) else [value]
        shown = [message_line(m) for m in items]
    else:
        shown = summarise(value)
    return {"node": node_of(record, names), "task_id": record.task_id, "channel": record.channel,
            "bytes": record.size, "value": shown}


def describe_writes(records: list[WriteRecord] | None, internal: bool = False,
                    names: TaskNames | None = None) -> list[dict[str, Any]]:
    return [describe_write(r, names) for r in records or [] if internal or not is_internal_channel(r.channel)]
