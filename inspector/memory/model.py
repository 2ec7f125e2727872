"""The plain records the memory reading returns: a namespace's aggregate, an item's row, an item with its value,
its vector rows, and a day of growth. Times are aware datetimes (``times.stored_time``), or None where the store
holds none (or text that is no time: the record then carries a problem)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

NAMESPACE_SEPARATOR = "."  # LangGraph's stores keep a namespace tuple as its labels joined by "." (the `prefix` column)


def namespace_of(prefix: str) -> tuple[str, ...]:
    """The namespace tuple a ``prefix`` column holds (LangGraph's own reading: labels never hold a ".")."""
    return tuple(prefix.split(NAMESPACE_SEPARATOR))


def prefix_of(namespace: tuple[str, ...] | list[str]) -> str:
    """The ``prefix`` column of a namespace tuple."""
    return NAMESPACE_SEPARATOR.join(namespace)


@dataclass(frozen=True)
class NamespaceRow:
    """One stored namespace (one ``prefix``): its items, their stored bytes, TTLs, and its newest update."""

    prefix: str
    items: int
    bytes: int
    with_ttl: int = 0
    expired: int = 0
    newest_update: datetime | None = None
    vector_rows: int = 0
    vector_bytes: int = 0


@dataclass(frozen=True)
class VectorRow:
    """One row of ``store_vectors``: the embedding of one field (path) of an item."""

    field_name: str
    bytes: int
    dims: int | None  # SQLite: float32 values (sqlite-vec's format); None where the type does not say
    created_at: datetime | None = None
    updated_at: datetime | None = None


@dataclass(frozen=True)
class ItemRow:
    """One item as a list shows it: its key, stored bytes, times, TTL and how many vector rows it has."""

    prefix: str
    key: str
    bytes: int
    created_at: datetime | None
    updated_at: datetime | None
    expires_at: datetime | None
    ttl_minutes: float | None
    vector_rows: int = 0
    problems: tuple[str, ...] = ()

    @property
    def namespace(self) -> tuple[str, ...]:
        return namespace_of(self.prefix)


@dataclass(frozen=True)
class Item:
    """One item whole: its row, its value (parsed JSON; None when it could not be read, said in ``problems``),
    its vector rows and the threads its value names."""

    row: ItemRow
    value: Any
    raw_chars: int  # length of the stored text (SQLite) or of the value's JSON text (PostgreSQL)
    vectors: list[VectorRow] = field(default_factory=list)
    threads: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class GrowthDay:
    """One UTC day: items created that day (still in the store), their stored bytes, and items updated that day
    that were created earlier."""

    day: str  # YYYY-MM-DD, or the stored text when it is no date
    created: int
    created_bytes: int
    updated: int = 0


@dataclass(frozen=True)
class MemoryTotals:
    """The whole memory store in a few numbers (from the namespace aggregate)."""

    items: int
    namespaces: int
    bytes: int
    with_ttl: int
    expired: int
    vector_rows: int
    vector_bytes: int
