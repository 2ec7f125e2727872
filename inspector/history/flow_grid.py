"""The flow grid: state fields (rows) by steps (columns), each cell naming the node that wrote that field in
that step, empty where nothing was written.

The columns are one window of the selected checkpoint's line of history (``History.path_through``),
``width`` steps wide; a window costs the write keys of its own checkpoints, their parents and
grandparents (``attribution.writes_needed``), so a 2,000-step thread pages through the grid at the
cost of one screen. What a cell says comes from the one attribution (``attribution.attribute``).

``flow_window`` picks the window, ``flow_grid`` lays it out as plain rows, ``grid_chart`` draws it
as a Vega-Lite heat map whose click selection ``cell`` carries ``checkpoint``, ``ns`` and ``field``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..store.not_utf8 import spelled
from .attribution import Attribution
from .lineage import History, Key
from .node_colours import SEVERAL, NodeColours, node_colours

SELECTION = "cell"
GRID_WIDTH = 40  # steps per window
LEGEND_COLUMNS = 3
MULTIPLE = "(several nodes)"


@dataclass(frozen=True)
class FlowWindow:
    keys: list[Key]  # oldest first
    page: int  # 0-based, counted from the oldest window
    pages: int
    path_length: int


def flow_window(history: History, key: Key, width: int = GRID_WIDTH, page: int | None = None) -> FlowWindow:
    """The window of ``key``'s line of history (``path_through``) holding ``key``, or window ``page``."""
    path = history.path_through(key)
    pages = max(1, -(-len(path) // width))
    if page is None:
        page = history.position(key) // width
    page = min(max(page, 0), pages - 1)
    return FlowWindow(path[page * width : (page + 1) * width], page, pages, len(path))


@dataclass(frozen=True)
class FlowGrid:
    columns: list[Key]  # oldest first
    steps: list[str]  # column labels: the step numbers as text
    fields: list[str]  # rows, in the order they were first written in the window
    cells: list[dict[str, Any]]  # one per written (field, column): field, column, step, node, nodes, checkpoint, ns
    nodes: list[str]  # every node seen in the window, for the legend

    def cell(self, field_name: str, key: Key) -> dict[str, Any] | None:
        return next((c for c in self.cells if c["field"] == field_name and (c["ns"], c["checkpoint"]) == key), None)


def flow_grid(history: History, keys: list[Key], made: Mapping[Key, Attribution],
              field_order: list[str] | None = None) -> FlowGrid:
    """The grid of ``keys`` (oldest first) from their attributions; rows in ``field_order`` where given,
    then the other fields written, in the order first written."""
    cells, fields, nodes = [], {}, {}
    steps = []
    for column, key in enumerate(keys):
        attribution = made.get(key)
        row = history.nodes[key].row
        steps.append(f"{row.step}" if row.step is not None else "?")
        if attribution is None:
            continue
        for name in attribution.fields:
            writers = attribution.writers(name)
            fields.setdefault(name, None)
            for node in writers:
                nodes.setdefault(node, None)
            cells.append({"field": name, "column": column, "step": row.step, "label": attribution.label,
                          "node": writers[0] if len(writers) == 1 else MULTIPLE, "nodes": ", ".join(writers),
                          "checkpoint": key[1], "ns": key[0]})
    ordered = [f for f in (field_order or []) if f in fields] + [f for f in fields if f not in (field_order or [])]
    return FlowGrid(list(keys), steps, ordered, cells, list(nodes))


def grid_chart(grid: FlowGrid, selected: Key | None = None, cell_px: int = 20,
               colours: NodeColours | None = None) -> dict[str, Any]:
    """The Vega-Lite spec (for ``st.vega_lite_chart``): a heat map of one rect per written cell, coloured by
    node (``colours``: the thread's, ``node_colours``; else the window's own), the selected step's cells
    outlined; a click selection ``cell`` carrying ``checkpoint``, ``ns`` and ``field``. Every step of the window
    keeps its column, written or not."""
    colours = colours or node_colours(grid.nodes)
    # names from the data drawn as ids are quoted (a bidi override in a field's name cannot turn its row around);
    # the selection carries the field as stored; a cell's colour is its node's, named as stored
    values = [{**c, "row": spelled(c["field"]), "node": spelled(c["node"]), "nodes": spelled(c["nodes"]),
               "label": spelled(c["label"]), "selected": selected is not None and c["checkpoint"] == selected[1],
               "colour": SEVERAL if c["node"] == MULTIPLE else colours(c["node"])}
              for c in grid.cells]
    legend = {v["node"]: v["colour"] for v in values}  # each node shown once, in its colour
    label_expr = "[" + ",".join(f"'{s}'" for s in grid.steps) + "][datum.value]"  # a column's step number
    return {  # the width fits the page; the height is the rows' (axis and legend come on top of it)
        "height": cell_px * max(len(grid.fields), 1),
        "autosize": {"type": "fit-x", "contains": "padding"},
        "data": {"values": values or [{}]},
        "mark": {"type": "rect", "cursor": "pointer"},
        "params": [{"name": SELECTION, "select": {"type": "point", "fields": ["checkpoint", "ns", "field"],
                                                 "on": "click", "toggle": False, "clear": False}}],
        "encoding": {
            "x": {"field": "column", "type": "ordinal", "title": "step",
                  "scale": {"domain": list(range(len(grid.steps))), "paddingInner": 0.08},
                  "axis": {"labelExpr": label_expr, "labelAngle": 0, "labelOverlap": True}},
            "y": {"field": "row", "type": "nominal", "title": None,
                  "scale": {"domain": [spelled(f) for f in grid.fields] or [""], "paddingInner": 0.08}},
            "color": {"field": "node", "type": "nominal",
                      "scale": {"domain": list(legend) or [""], "range": list(legend.values()) or ["#fff"]},
                      "legend": {"title": "node that wrote it", "orient": "bottom", "columns": LEGEND_COLUMNS}},
            "stroke": {"condition": {"test": "datum.selected", "value": "#111827"}, "value": None},
            "strokeWidth": {"condition": {"test": "datum.selected", "value": 2.5}, "value": 0},
            "tooltip": [{"field": "step", "type": "quantitative"}, {"field": "row", "type": "nominal", "title": "field"},
                        {"field": "nodes", "type": "nominal", "title": "written by"},
                        {"field": "label", "type": "nominal", "title": "step"}],
        },
    }
