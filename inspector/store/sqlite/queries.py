"""SQL pieces and row helpers the SQLite store's readers share."""

from __future__ import annotations

import json
from typing import Any, Iterable

from ..depth import TOO_DEEP_KEY, TooDeep, loads
from ..model import Key, StoreError
from ..not_utf8 import named

OWN_BYTES = "length(checkpoint) + coalesce(length(metadata), 0)"  # a checkpoint row's own bytes


def by_namespace(keys: Iterable[Key]) -> dict[str, list[str]]:
    """Checkpoint ids grouped by namespace."""
    grouped: dict[str, list[str]] = {}
    for ns, cid in keys:
        grouped.setdefault(ns, []).append(cid)
    return grouped


def metadata(raw: Any) -> dict[str, Any]:
    """A stored metadata column as a dict (``__undecodable__`` when it is not JSON, ``__too_deep__`` when it
    nests past ``depth.MAX_DEPTH``)."""
    if raw is None:
        return {}
    try:
        value = loads(raw)
    except TooDeep as exc:
        return {TOO_DEEP_KEY: str(exc)}
    except (ValueError, TypeError):
        return {"__undecodable__": True}
    return value if isinstance(value, dict) else {"value": value}


def in_clause(ids: list[str]) -> str:
    """``?,?,...``: one placeholder per id."""
    return ",".join("?" * len(ids))


def metadata_equals(key: str, value: Any) -> tuple[str, list[Any]]:
    """A SQL condition: the metadata's top-level ``key`` holds a JSON value equal to ``value``."""
    if not isinstance(key, str) or '"' in key:
        raise StoreError(f"metadata filter key {named(key)} is not a plain name")
    # a row whose metadata is not JSON SQLite can read (corrupt, or nested past its depth limit) matches
    # nothing, instead of failing the whole query
    meta, path = "(CASE WHEN json_valid(CAST(metadata AS TEXT)) THEN CAST(metadata AS TEXT) END)", f'$."{key}"'
    if value is None:
        return f"json_type({meta}, ?) = 'null'", [path]
    if isinstance(value, bool):
        return f"json_type({meta}, ?) = ?", [path, "true" if value else "false"]
    if isinstance(value, (int, float)):
        return f"json_type({meta}, ?) IN ('integer', 'real') AND json_extract({meta}, ?) = ?", [path, path, value]
    if isinstance(value, str):
        return f"json_type({meta}, ?) = 'text' AND json_extract({meta}, ?) = ?", [path, path, value]
    try:
        text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        raise StoreError(f"metadata filter value for {named(key)} is not JSON") from None
    kind = "object" if isinstance(value, dict) else "array"
    return f"json_type({meta}, ?) = '{kind}' AND json_extract({meta}, ?) = json(?)", [path, path, text]
