"""The rows the Memory page and the ``memory`` command both show: the store in one line, a page of items, one item
whole, growth per day. Plain data, unmasked: the page and the CLI mask them on the way out."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..formatting import human_bytes
from .model import GrowthDay, Item, ItemRow, MemoryTotals
from .reading import MemoryReader
from .times import expiry_text, is_expired, time_text
from .values import field_rows


def layout_line(reader: MemoryReader) -> str:
    """Which tables are there and at which migration level: ``tables store, store_vectors; store migration 4,
    vector migration 0``."""
    tables = ", ".join(sorted(t for t in reader.tables if t in ("store", "store_vectors")))
    levels = [f"{name} migration {level}" for name, level in (("store", reader.migration),
                                                              ("vector", reader.vector_migration)) if level is not None]
    ttl = "" if reader.has_ttl else "; no TTL columns (a store migrated before LangGraph added them)"
    return f"tables {tables}" + (f"; {', '.join(levels)}" if levels else "") + ttl


def summary_line(totals: MemoryTotals) -> str:
    """``12 item(s) in 4 namespace(s), 3.2 KB; 2 with a TTL, 1 expired and not swept yet; 8 vector row(s)``."""
    parts = [f"{totals.items:,} item(s) in {totals.namespaces:,} namespace(s), {human_bytes(totals.bytes)}"]
    if totals.with_ttl:
        parts.append(f"{totals.with_ttl:,} with a TTL, {totals.expired:,} expired and not swept yet")
    if totals.vector_rows:
        parts.append(f"{totals.vector_rows:,} vector row(s), {human_bytes(totals.vector_bytes)}")
    return "; ".join(parts)


def item_rows(rows: list[ItemRow], now: datetime) -> list[dict[str, Any]]:
    """A page of items as a table shows them."""
    return [{"key": r.key, "bytes": r.bytes, "created": time_text(r.created_at), "updated": time_text(r.updated_at),
             "expiry": row_expiry(r, now), "expired": is_expired(r.expires_at, now),
             "vector rows": r.vector_rows, "problems": "; ".join(r.problems)} for r in rows]


def row_expiry(row: ItemRow, now: datetime) -> str:
    """``expiry_text`` of the row; ``unreadable (see problems)`` when its expiry or TTL column holds no time or number."""
    if any(p.startswith(("expires_at ", "ttl_minutes ")) for p in row.problems):
        return "unreadable (see problems)"
    return expiry_text(row.expires_at, row.ttl_minutes, now)


def item_payload(item: Item, now: datetime) -> dict[str, Any]:
    """One item whole, for JSON and for the item's view."""
    row = item.row
    return {
        "namespace": list(row.namespace), "key": row.key, "bytes": row.bytes, "value_chars": item.raw_chars,
        "created_at": row.created_at, "updated_at": row.updated_at, "expires_at": row.expires_at,
        "ttl_minutes": row.ttl_minutes, "expiry": row_expiry(row, now),
        "expired": is_expired(row.expires_at, now),
        "vectors": [{"field": v.field_name, "bytes": v.bytes, "dims": v.dims, "updated_at": v.updated_at}
                    for v in item.vectors],
        "threads": item.threads, "fields": field_rows(item.value), "problems": item.problems, "value": item.value,
    }


def vector_text(item: Item) -> str:
    """``$ (8 dims, 32 B), text (...)``: the item's vector rows in a line; empty without any."""
    return ", ".join(f"{v.field_name} ({f'{v.dims} dims, ' if v.dims is not None else ''}{human_bytes(v.bytes)})"
                     for v in item.vectors)


def growth_rows(days: list[GrowthDay]) -> list[dict[str, Any]]:
    """Per UTC day: items created (and still stored), their bytes, items updated, and the running count."""
    running, out = 0, []
    for day in days:
        running += day.created
        out.append({"day": day.day, "created": day.created, "bytes": day.created_bytes, "updated": day.updated,
                    "items so far": running})
    return out


GROWTH_NOTE = ("Items now in the store, by the UTC day they were created: a deleted or swept item is not counted. "
               "SqliteStore writes created_at again on every put (updates included); PostgresStore keeps it.")
