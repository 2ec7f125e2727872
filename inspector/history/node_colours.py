"""One colour per node, the same on every surface that draws nodes: the graph, the flow grid, the step timeline
and the history tree (and Play's frames, which draw them).

A thread's colours are assigned once, from the names of the nodes its edges triggered: every ``branch:to:NODE``
channel its checkpoints' writes hold (``CheckpointRow.write_channels``, read with the keys when a thread opens, so
knowing them costs nothing more). Those names take the palette's colours in name order (its neighbours differ
most), so up to ``len(PALETTE)`` of them never share a colour. A node the edges never named (one only ever
started by ``Send``, a name planted in the data) takes the slot a hash of its name picks, moved past the slots
the thread's names hold while a free one is left. What a colour depends on is the thread and the
name, never the window or panel drawing it.

No node's colour is red (``FAILED``, a failed task's) or grey (``NO_NODE``: an input, an update, a wait).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import AbstractSet, Iterable, Mapping

from ..store import CheckpointRow

# Tableau's 10 and 20 without their reds and greys: no node is drawn in a failure's or a non-step's colour.
PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#ff9da7", "#9c755f", "#bcbd22",
           "#1f77b4", "#ffbb78", "#9467bd", "#98df8a", "#e377c2", "#8c564b", "#17becf", "#c5b0d5", "#2ca02c",
           "#dbdb8d", "#aec7e8")
FAILED = "#dc2626"
NO_NODE = "#cbd5e1"  # what no node made: an input, an update, a wait between runs
SEVERAL = "#111827"  # a cell several nodes wrote
ENDS = "#94a3b8"  # LangGraph's __start__ and __end__
BRANCH_TO = "branch:to:"
END_NAMES = ("__start__", "__end__")


def _slot(name: str) -> int:
    return zlib.crc32(name.encode("utf-8", "surrogatepass")) % len(PALETTE)


def _free(slot: int, taken: AbstractSet[int]) -> int:
    """``slot``, or the next one not in ``taken`` (``slot`` itself when every one is taken)."""
    for step in range(len(PALETTE)):
        candidate = (slot + step) % len(PALETTE)
        if candidate not in taken:
            return candidate
    return slot


@dataclass(frozen=True)
class NodeColours:
    """The colours of one thread's nodes: ``colours(name)`` is a node's colour (``"#rrggbb"``)."""

    assigned: Mapping[str, str] = field(default_factory=dict)
    special: Mapping[str, str] = field(default_factory=dict)  # names drawn in a fixed colour (several, no node)
    taken: frozenset[int] = frozenset()  # the palette's slots ``assigned`` holds

    def __call__(self, name: str) -> str:
        if name in self.special:
            return self.special[name]
        if name in END_NAMES:
            return ENDS
        found = self.assigned.get(name)
        if found is not None:
            return found
        return PALETTE[_free(_slot(name), self.taken)]

    def of(self, names: Iterable[str]) -> dict[str, str]:
        """``{name: colour}`` for ``names``, in their order (a chart's colour scale)."""
        return {name: self(name) for name in dict.fromkeys(names)}


def node_colours(names: Iterable[str], special: Mapping[str, str] | None = None) -> NodeColours:
    """The colours of a thread whose edges named the nodes ``names`` (see the module's docstring)."""
    taken: set[int] = set()
    assigned: dict[str, str] = {}
    for i, name in enumerate(sorted(set(names) - set(END_NAMES))):
        slot = i % len(PALETTE)
        taken.add(slot)
        assigned[name] = PALETTE[slot]
    return NodeColours(assigned, dict(special or {}), frozenset(taken))


def edge_targets(rows: Iterable[CheckpointRow]) -> list[str]:
    """The nodes a thread's edges triggered (``branch:to:NODE`` among its rows' written channels), each once."""
    names: dict[str, None] = {}
    for row in rows:
        for channel in row.write_channels:
            if channel.startswith(BRANCH_TO):
                names.setdefault(channel[len(BRANCH_TO):], None)
    return list(names)


def thread_colours(rows: Iterable[CheckpointRow], special: Mapping[str, str] | None = None) -> NodeColours:
    """The colours of the thread whose checkpoints are ``rows`` (keys are enough)."""
    return node_colours(edge_targets(rows), special)
