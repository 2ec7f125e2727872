"""The clues that DeerFlow wrote a thread: its store, its metadata markers, its ThreadState's channels and the
shapes of their values (``SHAPES``): a channel named like DeerFlow's but holding another type counts against."""

from __future__ import annotations

from ...schema.default import default_fields
from ...store.shapes import Shape
from .. import ThreadFacts
from ..shape_rules import (
    MESSAGES,
    ShapeRule,
    is_kind,
    is_map,
    judge,
    kind_is,
    list_of,
    map_with,
    untold,
)

STORE_FILE = "deerflow.db"
# Metadata keys only DeerFlow writes: delta mode, branch threads, run durations.
MARKERS = ("deerflow_checkpoint_channel_mode", "branch_parent_thread_id", "run_durations")
# ThreadState channels no generic agent declares (``messages``, ``todos``, ``title``, ``artifacts`` are common names).
DISTINCTIVE = frozenset({"sandbox", "thread_data", "uploaded_files", "viewed_images", "promoted", "delegations",
                         "skill_context", "goal", "summary_text", "background_tasks"})
DISTINCTIVE_NEEDED = 2


def _user_data_paths(shape: Shape) -> bool | None:
    """``thread_data``: a map of ``*_path`` names (workspace, uploads, outputs) to folder paths."""
    if untold(shape):
        return None
    if shape.kind != "map":
        return False
    if not shape.keys:
        return None if shape.cut else False
    return any(key.endswith("_path") for key in shape.keys) and all(i.kind in ("str", "none") for i in shape.items)


def _images_by_path(shape: Shape) -> bool | None:
    """``viewed_images``: a map from an image's path to its entry (a map: mime type, size, file or base64)."""
    if untold(shape):
        return None
    if shape.kind != "map":
        return False
    if shape.key_kinds and not set(shape.key_kinds) <= {"path", "text", "name"}:
        return False
    return all(item.kind == "map" for item in shape.items) if shape.items else None


SHAPES = (
    MESSAGES,
    ShapeRule("thread_data", "map of *_path folders", _user_data_paths),
    ShapeRule("sandbox", "map holding sandbox_id", map_with("sandbox_id")),
    ShapeRule("viewed_images", "map keyed by path with a map per image", _images_by_path),
    ShapeRule("uploaded_files", "list of maps naming each file", list_of(is_map("filename"))),
    ShapeRule("goal", "goal map", kind_is("map")),
    ShapeRule("promoted", "map holding catalog_hash", map_with("catalog_hash")),
    ShapeRule("delegations", "list of maps with id and status", list_of(is_map("id", "status"))),
    ShapeRule("skill_context", "list of maps with path", list_of(is_map("path"))),
    ShapeRule("summary_text", "str", kind_is("str")),
    ShapeRule("background_tasks", "list of maps", list_of(is_map())),
    ShapeRule("artifacts", "list of paths", list_of(is_kind("str")), distinctive=False),
    ShapeRule("todos", "list of maps", list_of(is_map()), distinctive=False),
    ShapeRule("delegations_truncated_count", "int", kind_is("int"), distinctive=False),
    ShapeRule("title", "str", kind_is("str"), distinctive=False),
)


def evidence(facts: ThreadFacts) -> list[str]:
    """Short phrases naming what in ``facts`` shows DeerFlow; empty when nothing does.

    The store alone (``deerflow.db``, ``deerflow://``) or one marker suffices. Without them, at least two
    of ThreadState's distinctive channels must be present with no foreign shape, and the channels whose
    values are shaped otherwise (``viewed_images`` a list, ``goal`` a str, messages as plain strings) must
    not outnumber those shaped as DeerFlow's."""
    clues: list[str] = []
    store = facts.store_file == STORE_FILE or facts.store_url.startswith("deerflow:")
    if store:
        clues.append(STORE_FILE)
    markers = [key for key in MARKERS if facts.metadata_key(key) is not None]
    clues.extend(f"metadata {key}" for key in markers)
    judged = judge(SHAPES, facts, "DeerFlow")
    fits = judged.distinctive_fits(SHAPES)
    fields = default_fields()
    held = [f for f in fields if f in facts.channels]
    named = [f for f in held if f in DISTINCTIVE and f not in judged.foreign]
    if not (store or markers) and (len(named) < DISTINCTIVE_NEEDED or len(judged.foreign) > len(fits)):
        return []
    if held:
        clues.append(f"{len(held)} of {len(fields)} ThreadState channels")
    if fits:
        clues.append(f"{', '.join(fits)} shaped as DeerFlow's")
    return clues
