"""The drawn history tree: one lane per branch, newest checkpoint at the top.

``tree_data`` lays out one page of the history as plain rows (points, edges,
branch labels); a branch that starts below the top gets an empty row above its
newest checkpoint for its label, so the label never sits on the row above, whose
step label runs across the lanes to its right. ``tree_chart`` turns them into a Vega-Lite spec with a click
selection named ``pick`` carrying ``checkpoint`` and ``ns``, made on a band
over each checkpoint's row, so its label is as clickable as its dot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..store.not_utf8 import spelled
from .attribution import Attribution
from .checkpoint_kinds import step_label
from .lineage import History, Key, branch_label
from .node_colours import NO_NODE, SEVERAL, NodeColours, node_colours

ROW_HEIGHT = 24
SELECTION = "pick"


@dataclass
class TreeData:
    points: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    labels: list[dict[str, Any]]
    lanes: int
    rows: int  # the rows drawn: one per point, plus the label rows


LABEL_CHARS = 64


def _short(text: str) -> str:
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 1] + "…"


def tree_data(history: History, keys: list[Key], selected: Key | None = None,
              made: Mapping[Key, Attribution] | None = None, label_rows: bool = True,
              colours: NodeColours | None = None) -> TreeData:
    """Points, edges and branch labels for the checkpoints in ``keys`` (newest first); ``made``: their
    attributions, which name each point by the tasks that produced it and colour its dot by their node
    (``colours``: the thread's, ``node_colours``; grey where no node ran, black where several did).
    ``label_rows=False`` leaves out the label rows, one row per point (Play's window, whose chart keeps one size
    from frame to frame)."""
    made = made or {}
    colours = colours or node_colours(n for m in made.values() for n in m.nodes)
    row_of = _rows(history, keys, label_rows)
    total = (max(row_of.values()) + 1) if row_of else 0
    points, edges, labels = [], [], []
    lanes_used: set[int] = set()
    for key in keys:
        i = row_of[key]
        node = history.node(key)
        lanes_used.add(node.branch)
        points.append({
            "checkpoint": key[1], "ns": key[0], "row": i, "lane": node.branch,
            "namespace": spelled(key[0]), "id": spelled(key[1]),
            "step": node.row.step, "source": spelled(node.row.source or ""),
            "branch": spelled(branch_label(history, history.branches[node.branch])),
            "label": _short(spelled(step_label(history, key, made.get(key)))),
            "wrote": spelled(", ".join(made[key].fields)) if key in made else "",
            "kind": "fork" if node.is_fork else "checkpoint",
            "selected": key == selected,
            "colour": _colour(made.get(key), colours),
        })
        if node.parent is not None:
            parent = history.node(node.parent)
            parent_row = row_of.get(node.parent, total - 0.5 if parent.order > node.order else -0.5)
            edges.append({"lane": node.branch, "row": i, "lane2": parent.branch, "row2": parent_row,
                          "cross": parent.branch != node.branch})
    for branch in history.branches:
        shown = [k for k in branch.keys if k in row_of]
        if shown:
            top = min(row_of[k] for k in shown)
            labels.append({"lane": branch.index, "row": top - 0.9, "text": spelled(branch_label(history, branch))})
    return TreeData(points, edges, labels, (max(lanes_used) + 1) if lanes_used else 1, total)


def _colour(made: Attribution | None, colours: NodeColours) -> str:
    """A dot's colour: its node's; black for several nodes, grey where none ran (an input, an update)."""
    nodes = made.nodes if made is not None else ()
    return colours(nodes[0]) if len(nodes) == 1 else SEVERAL if nodes else NO_NODE


def _rows(history: History, keys: list[Key], label_rows: bool) -> dict[Key, int]:
    """Each key's row, newest first: with ``label_rows``, a branch's newest key below the first row takes one
    more row above it, where its branch label goes."""
    rows: dict[Key, int] = {}
    seen: set[int] = set()
    row = 0
    for key in keys:
        branch = history.node(key).branch
        if branch not in seen:
            seen.add(branch)
            row += 1 if label_rows and rows else 0
        rows[key] = row
        row += 1
    return rows


def _axis(field: str, domain: list[float], reverse: bool = False) -> dict[str, Any]:
    scale: dict[str, Any] = {"domain": domain, **({"reverse": True} if reverse else {})}
    return {"field": field, "type": "quantitative", "axis": None, "scale": scale}


def _when_selected(then: Any, otherwise: Any) -> dict[str, Any]:
    return {"condition": {"test": "datum.selected", "value": then}, "value": otherwise}


def tree_chart(data: TreeData, rows: int | None = None) -> dict[str, Any]:
    """The Vega-Lite spec (for ``st.vega_lite_chart``): edges, points carrying the ``pick`` selection, step
    labels and branch labels; ``rows``: the rows the chart is sized for (else as many as it has points), so
    charts of windows that differ in length are of one size. Written as a plain dict: building it through
    Altair's validated classes costs more than the rest of a thread page's run."""
    rows = max(data.rows, rows or 1, 1)
    lanes = sorted({p["lane"] for p in data.points}) or [0]
    x = _axis("lane", [min(lanes) - 0.5, max(lanes) + 2.5])
    y = _axis("row", [-1.5, rows - 0.5], reverse=True)
    edges = {
        "data": {"values": data.edges or [{}]},
        "mark": {"type": "rule", "strokeWidth": 2, "color": "#94a3b8"},
        "encoding": {"x": x, "y": y, "x2": {"field": "lane2"}, "y2": {"field": "row2"},
                     "strokeDash": {"condition": {"test": "datum.cross", "value": [4, 3]}, "value": [1, 0]}},
    }
    points = {
        "data": {"values": data.points},
        "mark": {"type": "point", "filled": True, "size": 140, "aria": False},
        "encoding": {
            "x": x, "y": y,
            # the node's colour, as every surface draws it (each lane's label names its branch)
            "color": {"field": "colour", "type": "nominal", "scale": None, "legend": None},
            "shape": {"field": "kind", "type": "nominal", "legend": None,
                      "scale": {"domain": ["checkpoint", "fork"], "range": ["circle", "diamond"]}},
            "stroke": _when_selected("#111827", None),
            "strokeWidth": _when_selected(3, 0),
        },
    }
    # one transparent band per checkpoint, from its dot to the chart's right edge, on top of the dot and its
    # label: clicking either picks the checkpoint, and its tooltip is the row's
    right = max(lanes) + 2.5
    hits = {
        "data": {"values": [{**p, "left": p["lane"] - 0.45, "right": right, "top": p["row"] - 0.5,
                             "bottom": p["row"] + 0.5} for p in data.points]},
        "mark": {"type": "rect", "fill": "#000000", "fillOpacity": 0, "cursor": "pointer"},
        "params": [{"name": SELECTION, "select": {"type": "point", "fields": ["checkpoint", "ns"], "on": "click",
                                                  "toggle": False, "clear": False}}],
        "encoding": {
            "x": {**x, "field": "left"}, "x2": {"field": "right"}, "y": {**y, "field": "top"}, "y2": {"field": "bottom"},
            "tooltip": [{"field": "step", "type": "quantitative"}] + [
                {"field": name, "type": "nominal", "title": title} for name, title in (
                    ("label", "label"), ("source", "source"), ("branch", "branch"), ("namespace", "ns"),
                    ("id", "checkpoint"))],
        },
    }
    text = {
        "data": {"values": data.points},
        "mark": {"type": "text", "align": "left", "dx": 11, "fontSize": 11},
        "encoding": {"x": x, "y": y, "text": {"field": "label", "type": "nominal"},
                     "color": _when_selected("#111827", "#64748b")},
    }
    labels = {
        "data": {"values": data.labels or [{}]},
        "mark": {"type": "text", "align": "left", "dx": -6, "fontSize": 11, "fontStyle": "italic", "color": "#475569"},
        "encoding": {"x": x, "y": y, "text": {"field": "text", "type": "nominal"}},
    }
    return {"height": ROW_HEIGHT * (rows + 2), "layer": [edges, points, text, labels, hits]}
