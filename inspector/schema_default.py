"""What is known of the default schema (DeerFlow's ThreadState) without loading it, and schema drift.

Loading a schema means reading it the way LangGraph does (``inspector.schema``), which
imports LangGraph's graph package. Work that only names the active schema, lists its
fields (for drift) or asks whether its code changed reads what is here instead: the
default's name, its source files, and its fields as ``ThreadState`` declares them
(read from the source; a test holds them equal to what LangGraph reads).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DEFAULT_SCHEMA_NAME = "DeerFlow ThreadState"
# The files the default schema is made of: its reducers, and how a schema is read.
DEFAULT_SCHEMA_SOURCES = (Path(__file__).with_name("thread_state.py"), Path(__file__).with_name("schema.py"))


@dataclass(frozen=True)
class SchemaDrift:
    """Where a thread and the schema disagree: channels the schema lacks, fields never written."""

    unknown_channels: tuple[str, ...] = ()
    unwritten_fields: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.unknown_channels or self.unwritten_fields)


def drift_between(fields: Iterable[str], seen: Iterable[str]) -> SchemaDrift:
    """Channels in ``seen`` that ``fields`` lack, and ``fields`` not in ``seen`` (LangGraph's channels left out)."""
    from .store.model import is_internal_channel

    fields = tuple(fields)
    channels = {c for c in seen if not is_internal_channel(c)}
    return SchemaDrift(
        unknown_channels=tuple(sorted(c for c in channels if c not in fields)),
        unwritten_fields=tuple(f for f in fields if f not in channels),
    )


@cache
def default_fields() -> tuple[str, ...]:
    """``ThreadState``'s fields in declaration order, read from ``thread_state.py``."""
    tree = ast.parse(DEFAULT_SCHEMA_SOURCES[0].read_text())
    state = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "ThreadState")
    return tuple(item.target.id for item in state.body
                 if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name))


def _loaded():  # the schema module, when something has loaded it
    return sys.modules.get("inspector.schema")


def active_schema_name() -> str:
    """The active schema's name (the default's, when no schema has been loaded)."""
    loaded = _loaded()
    return DEFAULT_SCHEMA_NAME if loaded is None else loaded.active().name


def active_fields() -> tuple[str, ...]:
    """The active schema's fields (the default's, read from its source, when no schema has been loaded)."""
    loaded = _loaded()
    return default_fields() if loaded is None else tuple(loaded.active().fields)
