"""The state schema threads are read in: which reducer owns which channel, and where replay starts.

DeerFlow's ``ThreadState`` (``inspector.schema.thread_state``) is the default. The
operator who starts the inspector may name another one, a class or a graph,
with ``--schema module:Class`` / ``path/to/file.py:Class``, the ``schema``
setting or ``INSPECTOR_SCHEMA``. That imports the operator's code, so it is never
settable from the dashboard, like saver factories.

A schema is read the way LangGraph reads it: ``StateGraph(cls).channels`` turns
each field's ``Annotated`` metadata into a channel, and the channel says how a
write lands: through a reducer (``BinaryOperatorAggregate``, ``DeltaChannel``),
replacing the value (``LastValue``), or some other way the inspector does not
replay. A channel the schema does not declare has an unknown reducer.

The active schema is set once at start-up (``activate``) and read by the core
through ``active()``; functions that use it also take an explicit ``schema``.

Names are loaded on first use: naming the default schema or listing drift needs only
``default``, so the CLI starts without LangGraph's graph package. ``resolve`` hands replay
DeerFlow's ThreadState as ``default_schema`` reads it from the source (its reducers from
``thread_state_reducers``, LangGraph's ``add_messages`` imported on its first call) while nothing
has loaded ``reading``; ``thread_state`` (which imports LangChain's messages) and LangGraph's
reading load when a schema is read the way LangGraph reads it (``active``, ``load_schema``).

May import ``store`` (a saver factory's loader, its errors) and ``lazy_names``; nothing else of ``inspector``.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

from ..lazy_names import loader
from .default import DEFAULT, DEFAULT_SCHEMA_NAME, MESSAGE_REDUCERS, SchemaDrift, drift_between, thread_schema  # noqa: F401

_EXPORTS = {name: ".reading" for name in (
    "Reducer", "REPLACE", "UNKNOWN", "SchemaError", "Schema", "schema_of", "reducers_of",
    "DEFAULT_SCHEMA", "load_schema", "active", "activate", "activate_spec", "using", "operator_schema")}
_EXPORTS["ThreadState"] = ".thread_state"

__all__ = sorted([*_EXPORTS, "DEFAULT_SCHEMA_NAME", "MESSAGE_REDUCERS", "SchemaDrift", "drift_between", "resolve"])


def resolve(schema: Any) -> Any:
    """``schema``, or the active one. While nothing has loaded ``reading`` (so no ``using`` block or operator's
    schema can be in force), that is the thread's profile's schema, or DeerFlow's ThreadState read from its
    source (``default_schema``): replaying loads LangGraph only when a write needs its message reducer."""
    if schema is not None:
        return schema
    if "inspector.schema.reading" not in sys.modules:
        chosen = thread_schema()
        if chosen is not None and chosen != DEFAULT:
            return chosen
        from .default_schema import unloaded_default

        return unloaded_default()
    return importlib.import_module(".reading", __name__).active()


__getattr__ = loader(__name__, _EXPORTS)
