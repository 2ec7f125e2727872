"""Checkpoints in LangGraph's older layouts, read as LangGraph migrates them when it loads them.

A checkpoint records its format in ``v``. Before format 3 a node was triggered by channels named
``start:<node>`` and ``branch:<source>:<condition>:<node>`` (and by a channel named after the node that
ran before it); LangGraph's ``CompiledStateGraph._migrate_checkpoint`` renames the first two to
``branch:to:<node>`` on load and folds their versions and ``versions_seen``, and the third by the graph's
edges, which a store does not hold: those channels are kept under their own names, among LangGraph's
internal channels. Before format 4 the ``Send`` packets of the next step sat in the checkpoint's
``pending_sends``; ``Pregel._migrate_checkpoint`` moves them into the ``__pregel_tasks`` channel.
Metadata of that time also carries ``writes`` (what each node wrote), which attribution reads.
"""

from __future__ import annotations

from typing import Any

TASKS = "__pregel_tasks"
START = "__start__"
CURRENT_FORMAT = 4
NOT_NODES = frozenset({START, "__input__", "__interrupt__", "__copy__"})


def _greater(a: Any, b: Any) -> Any:
    try:
        return max(a, b)
    except TypeError:  # versions of mixed types: keep the first
        return a


def _rename(old: str, new: str, versions: dict, values: dict, seen: dict, node: str) -> None:
    """One channel renamed as LangGraph's migration does: versions and seen versions folded by max."""
    version = versions.pop(old)
    versions[new] = _greater(versions[new], version) if new in versions else version
    for key in (node, "__interrupt__"):
        marks = seen.get(key)
        if isinstance(marks, dict) and old in marks:
            mark = marks.pop(old)
            marks[new] = _greater(marks[new], mark) if new in marks else mark
    if new not in values and old in values:
        values[new] = values.pop(old)


def migrate(header: dict[str, Any], values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], set[str], str | None]:
    """``(header, channel values, node-named channels kept as internal, the line naming the migration)`` of a
    checkpoint; one with nothing to migrate comes back as it is, with None."""
    version = header.get("v")
    if not isinstance(version, int) or version >= CURRENT_FORMAT:
        return header, values, set(), None
    original, original_values = header, values
    header = {**header}
    values = dict(values)
    versions = dict(header.get("channel_versions") or {}) if isinstance(header.get("channel_versions"), dict) else {}
    seen_raw = header.get("versions_seen")
    seen = {k: dict(v) for k, v in seen_raw.items() if isinstance(v, dict)} if isinstance(seen_raw, dict) else {}
    renamed: list[str] = []
    nodes: set[str] = set()
    if versions and version < 3:
        for name in [k for k in versions if isinstance(k, str) and k.startswith("start:")]:
            node = name.split(":")[1]
            _rename(name, f"branch:to:{node}", versions, values, seen, node)
            renamed.append(f"{name} → branch:to:{node}")
        for name in [k for k in versions if isinstance(k, str) and k.startswith("branch:") and k.count(":") == 3]:
            node = name.split(":")[-1]
            _rename(name, f"branch:to:{node}", versions, values, seen, node)
            renamed.append(f"{name} → branch:to:{node}")
        nodes = {k for k in versions if isinstance(k, str) and k in seen and k not in NOT_NODES}
    moved = False
    sends = header.pop("pending_sends", None)
    if sends:
        values[TASKS] = sends
        if versions:
            versions[TASKS] = max(versions.values(), key=lambda v: (str(type(v)), v))
        moved = True
    parts = []
    if renamed:
        parts.append("renamed " + ", ".join(renamed))
    if nodes:
        parts.append(f"the node channel(s) {', '.join(sorted(nodes))} kept among the internal channels (LangGraph maps "
                     "them to branch:to:<next node> by the graph's edges)")
    if moved:
        parts.append(f"pending_sends moved into {TASKS}")
    if not parts:  # LangGraph's own puts still write format 2 (``empty_checkpoint``): nothing to migrate
        return original, dict(original_values), set(), None
    header["channel_versions"] = versions
    header["versions_seen"] = seen
    line = (f"checkpoint format {version} (LangGraph's current is {CURRENT_FORMAT}): read as LangGraph migrates it on "
            f"load: " + "; ".join(parts))
    return header, values, nodes, line
