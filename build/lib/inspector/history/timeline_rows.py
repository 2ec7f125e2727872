"""The checkpoint table of the thread page: one plain record per checkpoint."""

from __future__ import annotations

from typing import Any, Mapping

from ..store import is_internal_channel
from .attribution import Attribution, attribute
from .checkpoint_kinds import delta_marker, kind_at
from .lineage import History, Key, branch_label, short_namespace


def written_channels(channels: tuple[str, ...], include_internal: bool = False) -> str:
    """``messages, title`` — what a step wrote (LangGraph plumbing left out unless asked)."""
    shown = [c for c in channels if include_internal or not is_internal_channel(c)]
    return ", ".join(shown)


def kind_columns(history: History, key: Key) -> dict[str, str]:
    """``kind`` (what DeerFlow wrote the checkpoint for, with details) and ``mode`` (``delta`` or blank)."""
    kind = kind_at(history, key)
    return {"kind": kind.label if kind else "", "mode": "delta" if delta_marker(history.node(key).row.metadata) else ""}


def timeline_records(history: History, keys: list[Key], marks: dict[Key, str] | None = None,
                     made: Mapping[Key, Attribution] | None = None) -> list[dict[str, Any]]:
    """Rows for the checkpoint table, in the order of ``keys``; ``marks`` are the replay checks' marks, ``made``
    the checkpoints' attributions (``attribution``: which nodes ran and which fields they wrote; without
    them, nothing is said to have been written)."""
    marks = marks or {}
    records = []
    for key in keys:
        node = history.node(key)
        row = node.row
        attribution = (made or {}).get(key) or attribute(history, key, {})
        records.append(
            {
                "step": row.step,
                "source": row.source,
                "node": ", ".join(attribution.nodes) or ("" if attribution.made_by == "step" else attribution.what),
                **kind_columns(history, key),
                "time": row.created_at,
                "namespace": short_namespace(row.checkpoint_ns),
                "branch": branch_label(history, history.branches[node.branch]),
                "wrote": ", ".join(attribution.fields),
                "size": row.stored_bytes + row.writes_bytes,
                "fork": node.is_fork,
                "replay": marks.get(key, ""),
                "checkpoint": row.checkpoint_id,
                "ns": row.checkpoint_ns,
            }
        )
    return records
