"""How LangGraph folds a step's writes into a field: through the schema's reducer, in task order
(``apply_writes``, ``replay``), and how a folded value is compared with the stored one (``field_difference``).
The replay check (``replay``) and the account of what no write explains (``unwritten``) both fold here."""
from __future__ import annotations

from typing import Any

from .. import schema as schemas
from ..profiles import text
from ..schema.default_schema import is_add_messages
from ..schema.model import SandboxConflict
from ..store import CheckpointState, WriteRecord
from ..store.decode import overwritten
from .nested import first_difference
from .replay_messages import (
    GENERATED_ID,
    KnownIds,
    MessageFold,
    ReplayError,
    appended,
    as_messages,
    plain_messages,
    stored_messages,
)
from .writes import writes_by_channel

SANDBOX_CONFLICT = "merge_sandbox refused the stored writes"
OPAQUE_VALUE = "a value written or stored could not be decoded (opaque, undecodable or too deep to walk)"


class _Nothing:
    """A channel with no value yet (LangGraph's MISSING)."""

    def __repr__(self) -> str:
        return "<nothing>"


NOTHING = _Nothing()


def start_value(channel: str, values: dict[str, Any], schema: schemas.Schema) -> Any:
    """What ``channel`` holds before a step's writes: its value, the schema's empty value, or NOTHING."""
    if channel in values:
        return values[channel]
    has, value = schema.starting_value(channel)
    return value if has else NOTHING


def apply_writes(channel: str, current: Any, values: list[Any], schema: schemas.Schema | None = None) -> Any:
    """``current`` (or ``NOTHING``) after ``values`` were written to ``channel`` in task order.

    Raises ``ReplayError`` when the reducer refuses a write. The caller decides
    what a channel the schema does not know means; here it replaces.
    """
    schema = schemas.resolve(schema)
    reducer = schema.reducer_for(channel)
    if reducer is None:
        return values[-1]
    messages = schema.holds_messages(channel)
    if messages and is_add_messages(reducer) and not any(overwritten(value)[0] for value in values):
        added = appended(current, values)
        if added is not None:
            return added
    known = KnownIds()

    def prepared(value: Any) -> Any:
        return as_messages(value, known) if messages else value

    pending = list(values)
    overwrote = False
    base = None
    if current is NOTHING:
        # the first write is taken as it is; an Overwrite one stores its value, as DeltaChannel does and as
        # DeerFlow's patch of BinaryOperatorAggregate makes it (LangGraph would store the wrapper itself)
        overwrote, first = overwritten(pending[0])
        result = prepared(first if overwrote else pending[0])
        pending.pop(0)
    elif messages and isinstance(current, list) and (base := stored_messages(current, known)) is not None:
        result = list(base.messages)
    else:
        result = prepared(current)
    fold = MessageFold(reducer, result, base) if messages else None
    for value in pending:
        is_overwrite, replacement = overwritten(value)
        if is_overwrite:
            result, overwrote, fold = prepared(replacement), True, None
        elif not overwrote:
            try:
                if fold is not None:
                    fold.add(prepared(value))
                else:
                    result = reducer(result, value)
            except SandboxConflict as exc:
                raise ReplayError(f"{exc}: {text('replay.sandbox-conflict')}", SANDBOX_CONFLICT) from None
            except ReplayError:
                raise
            except Exception as exc:
                raise ReplayError(f"{schema.reducer_name(channel)} failed on a stored write "
                                  f"({type(exc).__name__}: {exc})") from None
    if fold is not None:
        result = fold.value()
    return plain_messages(result, known) if messages else result


def replay(parent: CheckpointState | dict[str, Any], writes: list[WriteRecord],
           schema: schemas.Schema | None = None) -> dict[str, Any]:
    """The field values the writes produce on top of ``parent``, through the schema's reducers.

    Message ids that ``add_messages`` generated read as ``GENERATED_ID``. Raises
    ``ReplayError`` when a reducer cannot apply a stored write.
    """
    schema = schemas.resolve(schema)
    values = dict(parent.values if isinstance(parent, CheckpointState) else parent)
    for channel, written in (writes_by_channel(writes) or {}).items():
        values[channel] = apply_writes(channel, start_value(channel, values, schema), written, schema)
    return values


def _messages_difference(expected: list[Any], stored: Any) -> str | None:
    if not isinstance(stored, list):
        return first_difference(expected, stored, "messages")
    aligned = [
        {**e, "id": s.get("id")} if isinstance(e, dict) and e.get("id") == GENERATED_ID and isinstance(s, dict) else e
        for e, s in zip(expected, stored)
    ] + expected[len(stored):]
    return first_difference(aligned, stored, "messages")


def field_difference(field: str, expected: Any, stored: Any, schema: schemas.Schema | None = None) -> str | None:
    """The first difference between a replayed and a stored field value, or None when they agree."""
    if expected == stored:
        return None
    if schemas.resolve(schema).holds_messages(field) and isinstance(expected, list):
        return _messages_difference(expected, stored)
    return first_difference(expected, stored, field)
