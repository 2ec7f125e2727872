"""The store's health as one report: the threads analysed, in one order, with their flags and drift, and
the bytes per field in them. The ``health`` command (table and JSON) and the Health page render it.

``health_report`` takes the reports ``store_health`` (or ``thread_health``) returned, so the ranking,
the cap (``health_top_threads``) and the order are decided once, in ``store_health``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..schema.default import SchemaDrift, active_schema_name
from ..settings import Settings
from ..store import StoreTotals
from .health import Flag, ThreadHealth, health_settings_note
from .store_sizes import StoreSizes, store_sizes


@dataclass(frozen=True)
class HealthRow:
    """One thread analysed: its stored bytes, newest state, repeats, flags and schema drift."""

    thread_id: str
    stored_bytes: int
    newest_state_bytes: int
    repeated_bytes: int
    flags: list[Flag] = field(default_factory=list)
    schema_drift: SchemaDrift = field(default_factory=SchemaDrift)

    def codes(self) -> list[str]:
        return list(dict.fromkeys(f.code for f in self.flags))


@dataclass(frozen=True)
class HealthReport:
    """The threads analysed (largest first), the thresholds and schema they were read with, and the
    sizes summed over them (``summary``: bytes per field, what-ifs, the store's totals)."""

    threads: list[HealthRow]
    thresholds: dict[str, int]
    schema: str
    summary: StoreSizes

    @property
    def flag_count(self) -> int:
        return sum(len(r.flags) for r in self.threads)

    @property
    def flagged_threads(self) -> int:
        return sum(1 for r in self.threads if r.flags)

    def as_dict(self) -> dict[str, Any]:
        """The ``health --json`` document."""
        return {"thresholds": self.thresholds, "schema": self.schema, "flag_count": self.flag_count,
                "threads": self.threads, "fields": self.summary.fields}


def health_rows(reports: list[ThreadHealth]) -> list[HealthRow]:
    """One row per thread, in the order given (``store_health`` ranks them)."""
    return [HealthRow(r.thread_id, r.sizes.stored_bytes, r.sizes.last_total_bytes, r.sizes.repeated_bytes,
                      list(r.flags), r.schema_drift) for r in reports]


def health_table(rows: list[HealthRow]) -> list[dict[str, Any]]:
    """The table of the threads analysed, as the page and the CLI show it (bytes as numbers)."""
    return [{"thread": r.thread_id, "stored bytes": r.stored_bytes, "newest state": r.newest_state_bytes,
             "repeats": r.repeated_bytes, "flags": ", ".join(r.codes())} for r in rows]


def health_report(reports: list[ThreadHealth], settings: Settings, totals: StoreTotals | None = None) -> HealthReport:
    """The report for ``reports`` (as ``store_health`` ranked them); ``totals`` covers the whole store."""
    accounting = reports[0].sizes.accounting if reports else ""
    summary = store_sizes([r.sizes for r in reports], accounting, totals, settings.what_if_keep_newest)
    return HealthReport(health_rows(reports), health_settings_note(settings), schema_read_with(reports), summary)


def schema_read_with(reports: list[ThreadHealth]) -> str:
    """The schema the threads were read with: each thread's own (its profile's, or ``--schema``), named once
    when they agree; the schema in force when no thread says."""
    names = list(dict.fromkeys(r.schema_drift.schema for r in reports if r.schema_drift.schema))
    if not names:
        return active_schema_name()
    return names[0] if len(names) == 1 else "per thread: " + ", ".join(names)
