"""What kind of step each checkpoint is, and its label.

Most checkpoints are graph steps (``source`` ``input`` or ``loop``), named by the
task(s) that produced them (``attribution``). Others were written outside a graph
step; an app's profile may name its own (``Profile.checkpoint_kind``: DeerFlow's
run-duration, goal, title and branch checkpoints, ``profiles.deerflow.checkpoint_kinds``).
LangGraph's own: an ``update`` checkpoint on a parent with no stored writes (so not
``update_state``, which stores its writes there) is named ``put``: written straight
through the saver, what for is not recorded. A graph step whose step number jumps past
its parent's, the parent holding no writes, is named ``steps not saved (durability
exit?)``: ``graph.invoke(..., durability="exit")`` saves only a run's final state.

Delta mode is read from LangGraph's ``counters_since_delta_snapshot`` (or an app's
marker, ``Profile.delta_marker``). Where a branch thread was branched from is the
oldest branch record its root checkpoints carry (``branch_origin``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

from ..store import BranchThread, CheckpointRow
from ..store.model import branch_of
from .lineage import History, Key

if TYPE_CHECKING:
    from .attribution import Attribution

GRAPH_SOURCES = ("input", "loop")  # checkpoints of graph steps, never one an app wrote itself
DELTA_COUNTERS = "counters_since_delta_snapshot"


@dataclass(frozen=True)
class CheckpointKind:
    name: str  # "put", or an app's: "run finished", "goal set", "goal cleared", "title set", "branch copy"
    detail: str = ""

    @property
    def label(self) -> str:
        return f"{self.name} ({self.detail})" if self.detail else self.name


def seconds(value: int | float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    total = int(value)
    if total < 60:
        return f"{total} s"
    if total < 3600:
        return f"{total // 60} min {total % 60:02d} s"
    return f"{total // 3600} h {total % 3600 // 60:02d} min"


# The app's own kinds and delta marker come from the profile in force: ``profiles.active`` hands its
# ``in_force`` here when it is loaded (``answered_by``), so history never imports the profiles above it.
# Until then (history read alone), only LangGraph's own kinds are named.
_IN_FORCE: list[Callable[[], Any]] = []


def answered_by(in_force: Callable[[], Any]) -> None:
    """Name the app's kinds by the profile ``in_force()`` gives (its ``checkpoint_kind`` and ``delta_marker``)."""
    _IN_FORCE[:] = [in_force]


def _profile() -> Any:
    return _IN_FORCE[0]() if _IN_FORCE else None


def checkpoint_kind(metadata: Any, parent: CheckpointRow | None = None) -> CheckpointKind | None:
    """What this checkpoint was written for, when it is not a graph step (the app's kinds, by the profile in
    force, then ``put``); None for ordinary checkpoints.

    ``parent`` (the checkpoint it was written on top of) is needed only where the saver dropped ``writes``.
    """
    if not isinstance(metadata, dict) or metadata.get("source") in GRAPH_SOURCES:
        return None
    own = getattr(_profile(), "checkpoint_kind", None)
    kind = own(metadata, parent) if own is not None else None
    if kind is not None:
        return kind
    if "writes" in metadata or metadata.get("source") != "update" or parent is None:
        return None
    if not parent.write_channels:
        return CheckpointKind("put", "written straight through the saver, not by a graph step")
    return None


def parent_row(history: History, key: Key) -> CheckpointRow | None:
    """The checkpoint ``key`` was written on top of, in its own namespace."""
    parent = history.node(key).parent
    return history.node(parent).row if parent is not None and parent[0] == key[0] else None


STEPS_NOT_SAVED = "steps not saved"


def unsaved_steps(step: int | None, parent_step: int | None, parent_wrote: bool) -> str | None:
    """``durability exit?: steps 4–7`` when the steps between a graph step's checkpoint and its parent's were
    not saved: the step numbers jump and the parent holds no writes (a run with ``durability="exit"`` saves only
    its final state, and none of the writes); None otherwise. ``parent_step`` None: the checkpoint has no parent,
    and the steps before its own were not saved if it is past step -1."""
    if step is None or parent_wrote:
        return None
    first = -1 if parent_step is None else parent_step + 1
    if step <= first:
        return None
    return f"durability exit?: step {first}" if step - 1 == first else f"durability exit?: steps {first}–{step - 1}"


def _unsaved(history: History, key: Key) -> CheckpointKind | None:
    row = history.node(key).row
    if row.source not in GRAPH_SOURCES and not (row.keys_only and row.source is None):
        return None
    if isinstance(row.metadata, dict) and row.metadata.get("writes"):
        return None  # the old convention: the metadata says what the step wrote
    parent = parent_row(history, key)
    if parent is None and (row.parent_checkpoint_id or row.write_channels):
        return None  # a parent in another namespace, or not in the store: not a run saved at its end
    detail = unsaved_steps(row.step, parent.step if parent else None, bool(parent.write_channels) if parent else False)
    return CheckpointKind(STEPS_NOT_SAVED, detail) if detail else None


def kind_at(history: History, key: Key) -> CheckpointKind | None:
    """The checkpoint's kind: an app's, ``put``, or ``steps not saved`` (durability exit) for a graph step whose
    steps before it were not saved."""
    return checkpoint_kind(history.node(key).row.metadata, parent_row(history, key)) or _unsaved(history, key)


def step_label(history: History, key: Key, made: "Attribution | None" = None) -> str:
    """``7 · view_image_middleware → viewed_images, messages`` (``made``: the checkpoint's attribution), or the
    kind's name for checkpoints written outside graph steps (``7 · run finished``); without an attribution,
    ``6 · loop``."""
    row, kind = history.node(key).row, kind_at(history, key)
    if kind is None and made is not None:
        return made.label
    return f"{row.step} · {kind.name if kind else row.source or '?'}"


def delta_marker(metadata: Any) -> str | None:
    """The metadata key that says a checkpoint was written in delta mode (the app's marker first, by the
    profile in force, then LangGraph's counters), or None."""
    if not isinstance(metadata, dict):
        return None
    own = getattr(_profile(), "delta_marker", None)
    marker = own(metadata) if own is not None else None
    if marker is not None:
        return marker
    counters = metadata.get(DELTA_COUNTERS)
    return DELTA_COUNTERS if isinstance(counters, dict) and counters else None


def branch_origin(rows: Iterable[CheckpointRow]) -> BranchThread | None:
    """Where a thread was branched from: the branch record of its oldest root checkpoint that carries one."""
    for row in sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id):
        origin = branch_of(row.thread_id, row.metadata)
        if origin is not None:
            return origin
    return None
