"""What a step's replay verifies without a field's reducer.

On a step whose writes LangGraph stored, a field no task wrote keeps its value: no reducer runs on it
(``apply_writes`` updates only the channels written). The exception is a channel that forgets its value
at each step it is not written (an ``EphemeralValue``, a ``Topic`` that does not accumulate): LangGraph
clears it, and the clearing moves the channel's version. So a stored value that changed without a write
is unexplained whatever the reducer, under the generic base too (``carried``): its reason is "changed
without a write", and it is counted as such, never as a reducer's mismatch (its status is ``mismatch``
where the schema knows the field, as the replay in the schema's terms disagrees, ``unexplained`` where
the reducer is unknown). A field of a kind the schema does not declare that disappeared (or, a
``Topic``, was emptied) while its version moved is such a clearing. Where LangGraph stored no writes
(``update_state`` on an older checkpoint, a direct ``put``) the version is all there is, and a change
stays what it was: unverified under an unknown reducer, a mismatch under a known one.

A written value whose reducer is unknown is compared with LangGraph's standard folds (``standard_folds``):
replace (the last write), ``operator.add`` (the value before and the written lists concatenated) and
``add_messages`` (LangGraph's own reducer, loaded only when neither of the others explains a list of
messages). What none explains is "no standard fold explains it": shown, counted, never an error (the
app's own reducer may well).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from .. import schema as schemas
from ..store import CheckpointState
from ..store.decode import Opaque, overwritten
from .model import CHANGED_WITHOUT_WRITE, NO_FOLD, UNEXPLAINED, UNKNOWN_REDUCER, FieldCheck
from .nested import presence_change


def _presence(name: str, state: CheckpointState) -> tuple[bool, Any]:
    return name in state.values, state.values.get(name)


def _version_moved(name: str, parent: CheckpointState, child: CheckpointState) -> bool:
    old = parent.header.get("channel_versions")
    new = child.header.get("channel_versions")
    if not isinstance(old, dict) or not isinstance(new, dict):
        return False
    return name in new and new.get(name) != old.get(name)


def _cleared(before: Any, stored: Any, has: bool) -> bool:
    """The value is gone (an ``EphemeralValue``) or an emptied list (a ``Topic`` that does not accumulate)."""
    return not has or (isinstance(before, list) and stored == [])


def carried(name: str, reducer: str, parent: CheckpointState, child: CheckpointState, schema: schemas.Schema,
            writes_stored: bool) -> FieldCheck:
    """The check of a field no stored write touched (see the module's docstring). ``writes_stored``: the step's
    writes are stored (a graph step, an input, an ``update_state`` whose writes LangGraph kept)."""
    from .replay import OPAQUE_VALUE, field_difference

    had, before = _presence(name, parent)
    has, stored = _presence(name, child)
    difference = field_difference(name, before, stored, schema)
    if difference is None and (had == has or not writes_stored):
        return FieldCheck(name, reducer, "confirmed", False)
    if isinstance(before, Opaque) or isinstance(stored, Opaque):  # nothing to compare: the value is a problem of its own
        return FieldCheck(name, reducer, "unverified", False, reason=OPAQUE_VALUE)
    if not writes_stored:
        if not schema.knows(name):
            return FieldCheck(name, reducer, "unverified", False, reason=UNKNOWN_REDUCER)
        return FieldCheck(name, reducer, "mismatch", False, difference)
    known = schema.knows(name)
    if had and not known and _cleared(before, stored, has) and _version_moved(name, parent, child):
        return FieldCheck(name, reducer, "confirmed", False)  # as LangGraph clears a channel that forgets
    appeared = presence_change(name, before, stored, had, has)
    return FieldCheck(name, reducer, "mismatch" if known else UNEXPLAINED, False,
                      appeared.summary if appeared else difference, reason=CHANGED_WITHOUT_WRITE)


# -- LangGraph's standard folds -------------------------------------------------------------


def _message_dict(item: Any) -> bool:
    from .replay_messages import MESSAGE_TYPES

    return type(item) is dict and item.get("type") in MESSAGE_TYPES


def _fresh_messages(before: Any, writes: list[Any]) -> bool:
    """The writes only add messages with ids of their own that ``before`` does not hold: ``add_messages``
    appends them as they are, as ``operator.add`` does (``appended``: on the stored dicts, the conversation's
    ids kept from one step to the next while a thread is replayed)."""
    from .replay_messages import appended

    return appended([] if before is None else before, writes) is not None


@cache
def _messages_schema(name: str) -> schemas.Schema:
    from langgraph.graph.message import add_messages

    from ..schema.model import Schema

    return Schema(f"add_messages on {name}", (name,), {name: add_messages}, {name: []})


def _add_messages_gives(name: str, before: Any, writes: list[Any], stored: Any) -> bool:
    """Whether LangGraph's ``add_messages`` folding ``writes`` into ``before`` gives ``stored`` (a list of messages)."""
    if not isinstance(stored, list) or not all(_message_dict(m) for m in stored):
        return False
    from .replay import ReplayError, apply_writes, field_difference

    schema = _messages_schema(name)
    try:
        expected = apply_writes(name, [] if before is None else before, writes, schema)
    except ReplayError:
        return False
    return field_difference(name, expected, stored, schema) is None


def standard_folds(name: str, before: Any, writes: list[Any], stored: Any) -> str:
    """The standard folds (``replace``, ``operator.add``, ``add_messages``) that give ``stored`` from ``before``
    and ``writes``, joined by ``+``; ``NO_FOLD`` when none does. An ``Overwrite`` bypasses every reducer: it
    says nothing of which one (all of them, when it holds the stored value)."""
    overwrites = [inner for is_overwrite, inner in map(overwritten, writes) if is_overwrite]
    if overwrites:
        is_wrapper, held = overwritten(stored)
        return "+".join(("replace", "operator.add", "add_messages")) if overwrites[-1] in (
            stored, held if is_wrapper else stored) else NO_FOLD
    folds = []
    if writes and writes[-1] == stored:
        folds.append("replace")
    items = [item for w in writes for item in w] if all(isinstance(w, list) for w in writes) else None
    if items is not None and isinstance(before, (list, type(None))) and list(before or []) + items == stored:
        folds.append("operator.add")
        if _fresh_messages(before, writes):
            folds.append("add_messages")
    elif not folds and isinstance(before, (list, type(None))) and _add_messages_gives(name, before, writes, stored):
        folds.append("add_messages")
    return "+".join(folds) or NO_FOLD
