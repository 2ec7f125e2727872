"""``diff(before, after)``: what changed between two states, field by field, in reducer terms."""

from __future__ import annotations

from typing import Any

from .. import schema as schemas
from ..history.attribution import Attribution, attribute_keys
from ..history.lineage import build_history
from ..profiles import reads_thread
from ..store import CheckpointState, Store, WriteRecord, is_internal_channel
from ..store.delta import delta_channels
from ..store.not_utf8 import quoted
from .fields import changes_for, has_field_diff, overwrite_change
from .model import FieldDiff, StateDiff, channel_reducer
from .nested import presence_change
from .summaries import summarise
from .writes import attributed_writes, describe_writes, step_writes, task_names, writes_by_channel

StateLike = CheckpointState | dict[str, Any] | None


def _values(state: StateLike, internal: bool) -> dict[str, Any]:
    if state is None:
        return {}
    if isinstance(state, CheckpointState):
        return {**state.values, **(state.internal if internal else {})}
    return {k: v for k, v in state.items() if internal or not is_internal_channel(k)}


def is_parent_of(before: StateLike, after: StateLike) -> bool:
    return (
        isinstance(before, CheckpointState)
        and isinstance(after, CheckpointState)
        and after.parent_checkpoint_id == before.checkpoint_id
        and after.checkpoint_ns == before.checkpoint_ns
    )


def field_summary(value: Any, stored_bytes: int | None = None) -> Any:
    """A field's value for display: small values as they are, big ones by size."""
    shown = summarise(value)
    if stored_bytes is not None and isinstance(shown, dict):
        shown = {**shown, "stored_bytes": stored_bytes}
    return shown


def diff(
    before: StateLike,
    after: StateLike,
    writes: list[WriteRecord] | None = None,
    internal: bool = False,
    schema: schemas.Schema | None = None,
    made: Attribution | None = None,
) -> StateDiff:
    """Compare two states (``CheckpointState`` or a plain ``{field: value}`` dict).

    ``writes`` are the values the step's nodes wrote; for a checkpoint and its
    parent they are taken from the store when not given, so duplicates that
    ``merge_artifacts`` dropped and a ``{}`` written to ``viewed_images`` show.
    ``made`` is the child's attribution (``history.attribution``): the writes it names are the step's, and
    its names are the nodes'; without it the child's source decides (a step: the parent's graph writes).
    """
    schema = schemas.resolve(schema)
    adjacent = is_parent_of(before, after)
    if writes is None and adjacent:
        writes = (attributed_writes(before, made) if made is not None
                  else step_writes(before, after.metadata.get("source")))
    written = writes_by_channel(writes, internal=True)
    old, new = _values(before, internal), _values(after, internal)
    old_bytes = before.channel_bytes if isinstance(before, CheckpointState) else {}
    new_bytes = after.channel_bytes if isinstance(after, CheckpointState) else {}
    delta = delta_channels(_attr(before, "metadata"), _attr(after, "metadata"))
    fields = []
    for name in schema.order(set(old) | set(new)):
        channel_writes = None if written is None else written.get(name, [])
        reducer, channel = channel_reducer(name, schema.reducer_name(name), delta)
        fields.append(_field_diff(name, reducer, old, new, channel_writes, old_bytes.get(name), new_bytes.get(name)))
        fields[-1].channel = channel
    return StateDiff(
        thread_id=_attr(after, "thread_id") or _attr(before, "thread_id"),
        checkpoint_ns=_attr(after, "checkpoint_ns") or "",
        before_id=_attr(before, "checkpoint_id"),
        after_id=_attr(after, "checkpoint_id"),
        adjacent=adjacent,
        fields=fields,
        wrote=describe_writes(writes, internal, task_names(made)) if writes is not None else [],
    )


def _attr(state: StateLike, name: str) -> Any:
    return getattr(state, name, None) if isinstance(state, CheckpointState) else None


def _field_diff(name: str, reducer: str, old: dict, new: dict, writes: list[Any] | None,
                old_bytes: int | None, new_bytes: int | None) -> FieldDiff:
    before, after = old.get(name), new.get(name)
    if name not in new:
        status = "removed"
    elif name not in old:
        status = "added"
    else:
        status = "unchanged" if before == after else "changed"
    result = FieldDiff(name, reducer, status, internal=is_internal_channel(name))
    overwrite = overwrite_change(name, before, after, writes)
    if overwrite is not None:
        result.changes, result.note = [overwrite], "an Overwrite write replaced the value, bypassing the reducer"
        if status == "unchanged":
            result.status = "written"
    elif status != "unchanged" or writes:
        result.changes, result.note = changes_for(name, before, after, writes, reducer)
        if status in ("added", "removed") and not has_field_diff(name, reducer):
            result.changes = [presence_change(name, before, after, name in old, name in new)]
        if status == "unchanged" and (result.changes or result.note):
            result.status = "written"  # written, but the reducer left the value as it was
    if status != "unchanged":
        result.before = field_summary(before, old_bytes) if name in old else None
        result.after = field_summary(after, new_bytes) if name in new else None
    return result


@reads_thread
def diff_checkpoints(store: Store, thread_id: str, from_id: str | None = None, to_id: str | None = None,
                     ns: str = "", internal: bool = False) -> StateDiff:
    """Diff two checkpoints of a thread; by default the newest step that wrote a field against its parent, as the
    Diff page opens (``defaults.default_to``: ``note`` says so when that is not the newest checkpoint).

    Raises ``NotFound`` for unknown ids and ``ValueError`` when there is no parent to compare with.
    """
    note, thread = None, None
    if to_id is None:
        from ..history.thread_history import ThreadHistory
        from .defaults import default_to

        thread = ThreadHistory(store, thread_id)
        to_id, note = default_to(store, thread, ns)
    after = store.state(thread_id, to_id, ns)
    if from_id is None:
        if after.parent_checkpoint_id is None:
            raise ValueError(f"checkpoint {quoted(after.checkpoint_id)} has no parent: pass --from")
        from_id = after.parent_checkpoint_id
    before = store.state(thread_id, from_id, ns)
    made = None
    if after.parent_checkpoint_id == before.checkpoint_id:  # attributed as everywhere: from the history's keys
        key = (ns, after.checkpoint_id)
        if thread is not None:
            made = thread.attributions(store, [key]).get(key)
        else:
            history = build_history(store.timeline_keys(thread_id))
            made = attribute_keys(store, history, [key]).get(key) if key in history.nodes else None
    result = diff(before, after, internal=internal, made=made)
    result.note = note
    return result
