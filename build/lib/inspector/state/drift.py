"""Schema drift: where a thread and the active schema disagree.

Channels the store holds that the schema does not declare have an unknown
reducer (replayed as unverified); schema fields a thread never wrote may mean
the schema belongs to another app or version. Both are listed, never flagged as
a problem in the user's data.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..schema.default import SchemaDrift, active_fields, active_schema_name, drift_between
from ..store import CheckpointRow, CheckpointSizes, CheckpointState

if TYPE_CHECKING:
    from .. import schema as schemas


def channels_seen(rows: Iterable[CheckpointRow] = (), states: Iterable[CheckpointState] = (),
                  sizes: Iterable[CheckpointSizes] = ()) -> set[str]:
    """Every channel a thread wrote or stored, as far as ``rows`` (write channels), ``states`` (values and
    ``channel_versions``, which name every channel written up to that checkpoint) and ``sizes`` show."""
    seen: set[str] = set()
    for row in rows:
        seen.update(row.write_channels)
    for state in states:
        seen.update(state.values)
        versions = state.header.get("channel_versions")
        if isinstance(versions, dict):
            seen.update(str(name) for name in versions)
    for row in sizes:
        seen.update(row.channels)
    return seen


def thread_drift(rows: Iterable[CheckpointRow] = (), states: Iterable[CheckpointState] = (),
                 sizes: Iterable[CheckpointSizes] = (), schema: schemas.Schema | None = None) -> SchemaDrift:
    """Drift from ``schema`` (default: the active one, its fields read without loading it when it is DeerFlow's)."""
    fields = schema.fields if schema is not None else active_fields()
    name = schema.name if schema is not None else active_schema_name()
    return drift_between(fields, channels_seen(rows, states, sizes), name)


def drift_lines(drift: SchemaDrift, schema: schemas.Schema | None = None, unwritten: bool = True) -> list[str]:
    """The drift in words, one line per kind (``unwritten``: include the schema fields never written)."""
    name = schema.name if schema is not None else (drift.schema or active_schema_name())
    lines = []
    if drift.unknown_channels:
        lines.append(f"channels not in the schema ({name}): {', '.join(drift.unknown_channels)}; "
                     "their reducer is unknown, so replay leaves them unverified (--schema names the app's own)")
    if unwritten and drift.unwritten_fields:
        lines.append(f"schema fields this thread never wrote: {', '.join(drift.unwritten_fields)}")
    return lines
