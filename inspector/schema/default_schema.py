"""DeerFlow's ThreadState as a ``Schema`` without loading LangGraph: what replay uses while nothing has
loaded ``inspector.schema.reading``.

Its fields and reducer names are read from ``thread_state.py``'s source (``default._declared``), and
so is what each reducer channel starts from: a ``list[...]`` field starts as ``[]`` and a ``dict[...]``
field as ``{}``, as LangGraph's ``BinaryOperatorAggregate`` builds them; any other type starts from
its first write. The reducers are ``thread_state_reducers``' own functions, and ``messages``' is
LangGraph's ``add_messages``, imported on its first call (``add_messages`` here). A test holds this
schema equal to the one LangGraph reads (``reading.DEFAULT_SCHEMA``).
"""

from __future__ import annotations

import ast
import sys
from functools import cache
from typing import Any

from . import thread_state_reducers
from .default import DEFAULT_SCHEMA_NAME, DEFAULT_SCHEMA_SOURCES, _declared
from .model import Schema


def add_messages(left: Any, right: Any) -> Any:
    """LangGraph's ``add_messages`` (``langgraph.graph.message``), imported on the first call."""
    from langgraph.graph.message import add_messages as reducer

    return reducer(left, right)


add_messages.langgraph_add_messages = True  # type: ignore[attr-defined]


def is_add_messages(reducer: Any) -> bool:
    """Whether ``reducer`` is LangGraph's ``add_messages`` (itself, or the stand-in above), with no option bound."""
    if getattr(reducer, "langgraph_add_messages", False):
        return True
    loaded = sys.modules.get("langgraph.graph.message")
    return loaded is not None and reducer is loaded.add_messages


def _starting_types() -> dict[str, str]:
    """Field -> the outer type its ``Annotated[...]`` names first (``list``, ``dict``, ...), from the source."""
    tree = ast.parse(DEFAULT_SCHEMA_SOURCES[0].read_text())
    state = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ThreadState")
    found = {}
    for item in state.body:
        note = getattr(item, "annotation", None)
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name) and isinstance(note, ast.Subscript) \
                and isinstance(note.slice, ast.Tuple):
            first = note.slice.elts[0]
            outer = first.value if isinstance(first, ast.Subscript) else first
            found[item.target.id] = outer.id if isinstance(outer, ast.Name) else ""
    return found


@cache
def unloaded_default() -> Schema:
    """DeerFlow's ThreadState, read from its source (see the module's docstring)."""
    declared = _declared()
    reducers = {name: add_messages if reducer == "add_messages" else getattr(thread_state_reducers, reducer)
                for name, reducer in declared.items() if reducer != "replace"}
    starts = _starting_types()
    initial = {name: {"list": [], "dict": {}}[starts[name]] for name in reducers if starts.get(name) in ("list", "dict")}
    return Schema(DEFAULT_SCHEMA_NAME, tuple(declared), reducers, initial)


def is_default(schema: Any) -> bool:
    """Whether ``schema`` is DeerFlow's ThreadState, as LangGraph reads it or as read here."""
    loaded = sys.modules.get("inspector.schema.reading")
    return schema is unloaded_default() or (loaded is not None and schema is loaded.DEFAULT_SCHEMA)
