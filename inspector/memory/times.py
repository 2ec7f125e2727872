"""The times a memory store keeps, read and said: created, updated, and TTL expiry.

SQLite's store writes ``CURRENT_TIMESTAMP`` (``2025-03-01 12:00:00``, UTC), Python datetimes
(``2025-03-01 12:00:00.123456+00:00``) and ``DATETIME(...)`` results as text; PostgreSQL's are
``timestamptz``. Every one is read as an aware datetime and shown in UTC; a text that is no time is None,
and the item says so (``time_problem``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..formatting import TIME_UNITS, scaled

LONGEST_TIME_TEXT = 64  # a stored "time" longer than this is no time LangGraph wrote: not parsed


def stored_time(value: Any) -> datetime | None:
    """A created/updated/expires column as an aware datetime (UTC, or PostgreSQL's session zone); None when empty or
    not a time."""
    if value is None:
        return None
    if isinstance(value, datetime):  # PostgreSQL's, in the session's zone: compared as they are, shown in UTC
        return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    if not isinstance(value, str) or len(value) > LONGEST_TIME_TEXT:
        return None
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return parsed.astimezone(timezone.utc) if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def time_problem(column: str, value: Any) -> str | None:
    """``expires_at holds 'soon', which is no time`` when a non-empty column could not be read as a time."""
    if value is None or stored_time(value) is not None:
        return None
    from ..store.not_utf8 import named

    return f"{column} holds {named(value)}, which is no time"


def span(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3.5 h``, ``2.0 days``."""
    seconds = abs(seconds)
    return scaled(seconds, TIME_UNITS) or f"{seconds:.0f} s"


def expiry_text(expires_at: datetime | None, ttl_minutes: float | None, now: datetime) -> str:
    """What an item's TTL means now: ``no TTL``, ``expires in 3.5 h (TTL 240 min, renewed on read)``,
    ``expired 2.0 days ago, not swept yet (TTL 60 min)``."""
    ttl = f"TTL {ttl_minutes:g} min" if ttl_minutes is not None else None
    if expires_at is None:
        return f"{ttl}, no expiry time stored" if ttl else "no TTL"
    left = (expires_at - now).total_seconds()
    when = f"expires in {span(left)}" if left > 0 else f"expired {span(left)} ago, not swept yet"
    return f"{when} ({ttl})" if ttl else when


def is_expired(expires_at: datetime | None, now: datetime) -> bool:
    return expires_at is not None and expires_at <= now


def time_text(value: datetime | None) -> str:
    """``2025-03-01 12:00:00 UTC``; empty when unknown."""
    return f"{value.astimezone(timezone.utc):%Y-%m-%d %H:%M:%S} UTC" if value is not None else ""
