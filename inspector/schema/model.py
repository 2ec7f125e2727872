"""The schema as the inspector uses it: fields, reducers, starting values; no LangGraph import.

``inspector.schema.reading`` builds one from a state class the way LangGraph reads it; a
profile without a schema of its own (generic LangGraph) uses an empty one: every channel's
reducer is unknown.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from .default import MESSAGE_REDUCERS, SchemaDrift, drift_between

Reducer = Callable[[Any, Any], Any]

class SandboxConflict(ValueError):
    """Two different sandbox ids written to one thread: DeerFlow treats that as a lifecycle bug
    (raised by ``thread_state.merge_sandbox``)."""


REPLACE = "replace"
UNKNOWN = "unknown"


@dataclass(frozen=True, eq=False)
class Schema:
    """A state schema as the inspector uses it.

    ``reducers`` maps reducer channels to their reducer (called once per write);
    ``initial`` holds what a reducer channel starts from before its first write
    (an empty list or dict, as LangGraph makes it; a channel missing there takes
    its first write as it is); ``opaque`` names declared channels of a kind the
    inspector does not replay (``EphemeralValue``, ``Topic``, ...).
    """

    name: str
    fields: tuple[str, ...]
    reducers: Mapping[str, Reducer]
    initial: Mapping[str, Any] = field(default_factory=dict)
    opaque: frozenset[str] = frozenset()
    # a compiled graph's subgraphs by their node path ("agent", "agent|inner"): each namespace's own state
    subgraphs: Mapping[str, Schema] = field(default_factory=dict)

    def for_namespace(self, checkpoint_ns: str) -> Schema:
        """The schema of the subgraph that writes ``checkpoint_ns`` (``node:task_id|child:task_id``), else
        this one (the root's, or a state class's, which says nothing of subgraphs)."""
        if not checkpoint_ns or not self.subgraphs:
            return self
        path = "|".join(part.partition(":")[0] for part in checkpoint_ns.split("|"))
        return self.subgraphs.get(path, self)

    def declares(self, channel: str) -> bool:
        return channel in self.fields

    def knows(self, channel: str) -> bool:
        """True when the schema says how a write to ``channel`` lands (a reducer, or replace)."""
        return channel in self.fields and channel not in self.opaque

    def reducer_for(self, channel: str) -> Reducer | None:
        """The reducer that merges writes into ``channel``; None when a write replaces it or it is unknown."""
        return self.reducers.get(channel)

    def reducer_name(self, channel: str) -> str:
        """``add_messages``, ``merge_delegations``, ... ; ``replace``; or ``unknown``."""
        if not self.knows(channel):
            return UNKNOWN
        reducer = self.reducers.get(channel)
        if reducer is None:
            return REPLACE
        return getattr(reducer, "__name__", type(reducer).__name__).lstrip("_")  # LangGraph wraps add_messages

    def holds_messages(self, channel: str) -> bool:
        return self.reducer_name(channel) in MESSAGE_REDUCERS

    def starting_value(self, channel: str) -> tuple[bool, Any]:
        """(True, value) when the channel holds ``value`` before its first write; (False, None) when
        LangGraph takes the first write as it is."""
        if channel in self.initial:
            return True, copy.deepcopy(self.initial[channel])
        return False, None

    def order(self, names: Iterable[str]) -> list[str]:
        """Schema fields in schema order, then channels the schema does not declare, alphabetically."""
        present = set(names)
        return [f for f in self.fields if f in present] + sorted(present - set(self.fields))

    def drift(self, seen: Iterable[str]) -> SchemaDrift:
        """Channels in ``seen`` the schema lacks, and schema fields not in ``seen``."""
        return drift_between(self.fields, seen, self.name)


class DeferredSchema:
    """An app's schema, built on first use. Reading it from the app's installed package (``create_agent``,
    ``create_deep_agent``, ...) imports that package, which costs seconds of CPU; work that never asks for
    a reducer or a field (listing uploads, measuring sizes) does not pay it.

    ``build()`` returns the ``Schema``, or None when the app's package is missing (then every reducer is
    unknown: an empty schema named ``<title> (reducers unknown)``). Built at most once per instance (a
    lock: dashboard sessions share it); every ``Schema`` attribute reads the built one.
    """

    def __init__(self, build: Callable[[], Schema | None], title: str) -> None:
        self._build = build
        self._title = title
        self._schema: Schema | None = None
        self._lock = threading.Lock()

    @property
    def is_built(self) -> bool:
        return self._schema is not None

    def built(self) -> Schema:
        """The schema, built on the first call."""
        if self._schema is None:
            with self._lock:
                if self._schema is None:
                    found = self._build()
                    self._schema = found if found is not None else Schema(f"{self._title} (reducers unknown)", (), {})
        return self._schema

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy/pickle probes and private names never build the schema
            raise AttributeError(name)
        return getattr(self.built(), name)

    def __repr__(self) -> str:
        return f"DeferredSchema({self._title!r}, built={self.is_built})"
