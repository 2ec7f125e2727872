"""Replay verification: parent state + the writes stored on it, through the schema's reducers,
compared with the child's stored state.

Each field of a step comes out verified (``confirmed``), ``unverified``, ``mismatch`` or
``unexplained``. Only a field whose reducer the schema names can mismatch: a written
channel the schema does not declare is "unverified (reducer unknown)", with the standard
folds its value is consistent with (``unwritten.standard_folds``), and so is anything the
store does not hold enough to check (values ``update_state`` or a direct ``put`` applied
without storing writes, a reducer refusing a stored write, parallel writes whose order
the store does not keep). A field no stored write touched must keep its value whatever
its reducer: one that changed is ``unexplained``, "changed without a write"
(``unwritten.carried``). Writes are folded in LangGraph's task order, found again where
the store keeps no task path (``task_order``). Writes follow LangGraph's channel rules: a
reducer channel with no value yet takes its first write as it is (the value of an
``Overwrite``, as DeerFlow stores it; a stored wrapper reads as the value it holds), and
an ``Overwrite`` write bypasses the reducer (later writes in the same step are ignored).
"""

from __future__ import annotations

from typing import Any

from .. import schema as schemas
from ..store import CheckpointState, WriteRecord, is_internal_channel
from ..store.decode import CORRUPT_BLOB, Opaque, overwritten
from ..store.delta import delta_channels
from ..store.records import step_and_source
from .folds import (  # noqa: F401 (re-exported: the folds are replay's own words)
    NOTHING,
    OPAQUE_VALUE,
    SANDBOX_CONFLICT,
    apply_writes,
    field_difference,
    replay,
    start_value,
)
from .model import NO_FOLD, UNEXPLAINED, UNKNOWN_REDUCER, FieldCheck, StepReplay, channel_reducer
from .replay_messages import GENERATED_ID, ReplayError, remembering_messages  # noqa: F401 (re-exported)
from .task_order import in_task_order
from .unwritten import carried, standard_folds
from .writes import describe_writes, step_writes, update_writes, writes_by_channel

NOT_STORED = "written by update_state or the saver; the values written are not stored"
UNREAD_CHECKPOINT = "the stored checkpoint is corrupt or truncated: the field's value could not be read"
ORDER_UNKNOWN = "parallel writes in an order the store does not keep"


# -- one step ----------------------------------------------------------------------


def _written_channels(parent: CheckpointState, child: CheckpointState) -> set[str]:
    """Channels whose version changed between parent and child: what ``update_state`` or ``put`` wrote."""
    old = parent.header.get("channel_versions") or {}
    new = child.header.get("channel_versions") or {}
    return {k for k, v in new.items() if old.get(k) != v}


def _step(child: CheckpointState, status: str, note: str | None = None) -> StepReplay:
    return StepReplay(
        thread_id=child.thread_id, checkpoint_ns=child.checkpoint_ns, checkpoint_id=child.checkpoint_id,
        parent_checkpoint_id=child.parent_checkpoint_id, step=step_and_source(child.metadata)[0],
        source=child.metadata.get("source"), status=status, note=note,
    )


def replay_step(parent: CheckpointState, child: CheckpointState, schema: schemas.Schema | None = None,
                sole_child: bool = False) -> StepReplay:
    """Check ``child`` against ``parent`` and the writes stored on it.

    ``sole_child``: ``child`` is the parent's only child, so writes ``update_state``
    stored on the parent can only be the ones that made it.
    """
    schema = schemas.resolve(schema)
    source = child.metadata.get("source")
    writes = step_writes(parent, source)
    if writes is None and sole_child:
        writes = update_writes(parent, _written_channels(parent, child))
    unordered: set[str] = set()
    if writes:
        writes, unordered = in_task_order(parent, writes)
    result = _step(child, "match")
    result.wrote = describe_writes(writes)
    fields = schema.order(set(parent.values) | set(child.values) | set(writes_by_channel(writes) or {}))
    if writes is None:
        result.note = f"{source}: the values written to this checkpoint are not stored as writes"
        result.fields = _check_update(parent, child, fields, schema)
    else:
        # LangGraph stores a write for every task of a step (``__no_writes__`` for one that wrote nothing) and
        # none for an input: a graph step without a stored write had its writes pruned or never stored
        stored = bool(writes) or source == "input"
        result.fields = _check_replay(parent, child, writes, fields, schema, result.findings,
                                      _shuffled(writes, unordered), stored)
    _unread_as_unverified(parent, child, result)
    delta = delta_channels(parent.metadata, child.metadata)
    if delta:
        result.fields = [_delta_named(check, delta) for check in result.fields]
    if result.mismatches or result.unexplained:
        result.status = "mismatch"
    elif result.unverified:
        result.status = "unverified"
    return result


def _unread(state: CheckpointState) -> list[str]:
    """The checkpoint-wide problems of a blob that could not be read to its end (its later channels are unread)."""
    return [p.message for p in state.problems if p.field is None and p.message.startswith(CORRUPT_BLOB)]


def _unread_as_unverified(parent: CheckpointState, child: CheckpointState, result: StepReplay) -> None:
    """A field the parent's or the child's corrupt blob did not yield cannot be compared: it is unverified, never a
    mismatch (the corruption is the step's finding)."""
    from dataclasses import replace

    unread = [(state, problems) for state in (parent, child) if (problems := _unread(state))]
    if not unread:
        return
    result.findings.extend(f"checkpoint {state.checkpoint_id}: {message}" for state, problems in unread
                           for message in problems)
    result.fields = [replace(check, status="unverified", first_difference=None, reason=UNREAD_CHECKPOINT)
                     if check.status in ("mismatch", UNEXPLAINED) and any(check.field not in state.values for state, _ in unread)
                     else check for check in result.fields]


def _shuffled(writes: list[WriteRecord], unordered: set[str]) -> set[str]:
    """The channels a task of unknown place wrote (``unordered``: its id) besides another task: their writes
    may be folded in another order than LangGraph's."""
    if not unordered:
        return set()
    writers: dict[str, set[str]] = {}
    for write in writes:
        writers.setdefault(write.channel, set()).add(write.task_id)
    return {channel for channel, tasks in writers.items() if len(tasks) > 1 and tasks & unordered}


def _check_replay(parent: CheckpointState, child: CheckpointState, writes: list[WriteRecord], fields: list[str],
                  schema: schemas.Schema, findings: list[str], shuffled: set[str] = frozenset(),
                  stored_writes: bool = True) -> list[FieldCheck]:
    written = writes_by_channel(writes) or {}
    checks = []
    for name in fields:
        if is_internal_channel(name):
            continue
        reducer = schema.reducer_name(name)
        stored = child.values.get(name)
        if name not in written:
            checks.append(carried(name, reducer, parent, child, schema, stored_writes))
            continue
        if not schema.knows(name):
            folds = standard_folds(name, parent.values.get(name), written[name], stored)
            if folds == NO_FOLD and name in shuffled:
                checks.append(FieldCheck(name, reducer, "unverified", True, reason=ORDER_UNKNOWN))
            else:
                checks.append(FieldCheck(name, reducer, "unverified", True, reason=UNKNOWN_REDUCER, inferred=folds))
            continue
        if isinstance(stored, Opaque) or any(isinstance(value, Opaque) for value in written[name]):
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=OPAQUE_VALUE))
            continue
        try:
            expected = apply_writes(name, start_value(name, parent.values, schema), written[name], schema)
        except ReplayError as exc:
            findings.append(f"{name}: {exc}")
            checks.append(FieldCheck(name, reducer, "unverified", True,
                                     reason=ORDER_UNKNOWN if name in shuffled else exc.reason))
            continue
        difference = field_difference(name, expected, stored, schema)
        if difference and parent.values.get(name) is None and _stored_wrapper_holds(name, expected, stored, schema):
            difference = None
        if difference and name in shuffled:
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=ORDER_UNKNOWN))
            continue
        checks.append(FieldCheck(name, reducer, "mismatch" if difference else "confirmed", True, difference))
    return checks


def _delta_named(check: FieldCheck, delta: frozenset[str]) -> FieldCheck:
    from dataclasses import replace

    reducer, channel = channel_reducer(check.field, check.reducer, delta)
    return replace(check, reducer=reducer, channel=channel) if channel else check


def _stored_wrapper_holds(name: str, expected: Any, stored: Any, schema: schemas.Schema) -> bool:
    """An ``Overwrite`` written into a channel with no value, stored as the wrapper rather than its value
    (a channel that keeps its first write as it is): the wrapper holds the value replay expects."""
    is_wrapper, inner = overwritten(stored)
    return is_wrapper and field_difference(name, expected, inner, schema) is None


def _check_update(parent: CheckpointState, child: CheckpointState, fields: list[str],
                  schema: schemas.Schema) -> list[FieldCheck]:
    changed = _written_channels(parent, child)
    checks = []
    for name in fields:
        if is_internal_channel(name):
            continue
        reducer = schema.reducer_name(name)
        if name in changed:
            checks.append(FieldCheck(name, reducer, "unverified", True, reason=NOT_STORED))
        else:
            checks.append(carried(name, reducer, parent, child, schema, writes_stored=False))
    return checks
