"""The history tree of the thread page, drawn as SVG by the browser and updated in place from step to step.

``tree_data`` (``history.tree_chart``) lays the page of the history out in rows and lanes; this module draws it:
one lane per branch, a dot per checkpoint in its node's colour (a diamond where the history forks), the
selected one ringed, its step label to the right, a branch's name above its newest checkpoint, an edge to each
parent (dashed where it crosses lanes). Each row is a band as wide as the chart: clicking its dot or its label
picks the checkpoint, and its tooltip is the row's (step, label, source, branch, namespace, checkpoint id).

One element of Streamlit's custom components (``st.components.v2``) with a stable key: a step sends the page's
rows, and the script redraws a few dozen SVG elements. A Vega chart took a quarter of a step's time in the
browser for the same rows. The script and style are constants of this module; what comes from the data (labels,
names, ids) reaches the page as JSON and is set as ``textContent`` or an attribute's value: inert. A pick calls
``on_pick(index)`` (the index of the point in ``data.points``) in the run it starts, before the page is drawn.
"""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from ..history.tree_chart import ROW_HEIGHT, TreeData
from .native_controls import pick_callback

LANE_WIDTH = 20
LABEL_GAP = 11  # from a dot's centre to its label

TREE_JS = """export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  const NS = 'http://www.w3.org/2000/svg';
  const ROW = data.row, LANE = data.lane, GAP = data.gap;
  let svg = parentElement.querySelector('svg.si-tree');
  if (!svg) {
    svg = document.createElementNS(NS, 'svg');
    svg.setAttribute('class', 'si-tree');
    svg.setAttribute('role', 'img');  // the keyboard and screen readers reach the rows through the list under it
    parentElement.appendChild(svg);
    svg.addEventListener('click', (event) => {
      const band = event.target.closest('[data-index]');
      if (band) setTriggerValue('picked', Number(band.dataset.index));
    });
  }
  const make = (tag, attrs, text) => {
    const el = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const lanes = data.points.map(p => p.lane);
  const low = lanes.length ? Math.min(...lanes) : 0;
  const x = (lane) => 12 + (lane - low) * LANE;
  const y = (row) => (row + 1.5) * ROW;
  svg.setAttribute('height', String(ROW * (data.rows + 2)));
  svg.setAttribute('aria-label', data.label);
  const edges = make('g', {class: 'si-tree-edges'});
  for (const e of data.edges) {
    edges.append(make('line', {x1: x(e.lane), y1: y(e.row), x2: x(e.lane2), y2: y(e.row2),
                               ...(e.cross ? {'stroke-dasharray': '4 3'} : {})}));
  }
  const names = make('g', {class: 'si-tree-branches'});
  for (const b of data.labels) names.append(make('text', {x: x(b.lane) - 6, y: y(b.row)}, b.text));
  const rows = make('g', {class: 'si-tree-rows'});
  data.points.forEach((p, i) => {
    const row = make('g', {class: 'si-tree-row' + (p.selected ? ' si-tree-selected' : ''), 'data-index': i,
                           'data-checkpoint': p.id});
    const cx = x(p.lane), cy = y(p.row);
    row.append(make('rect', {class: 'si-tree-hit', x: cx - 0.45 * LANE, y: cy - ROW / 2, width: '100%',
                             height: ROW}));
    row.firstChild.append(make('title', {}, p.tip));
    const dot = p.kind === 'fork'
      ? make('path', {d: `M${cx} ${cy - 7.5}L${cx + 7.5} ${cy}L${cx} ${cy + 7.5}L${cx - 7.5} ${cy}Z`})
      : make('circle', {cx, cy, r: 6.5});
    dot.setAttribute('class', 'si-tree-dot');
    dot.style.fill = p.colour;
    row.append(dot, make('text', {class: 'si-tree-label', x: cx + GAP, y: cy}, p.label));
    rows.append(row);
  });
  svg.replaceChildren(edges, names, rows);
}
"""
TREE_CSS = """.si-tree {display: block; width: 100%; overflow: hidden; font-family: var(--st-font, sans-serif);}
.si-tree-edges line {stroke: #94a3b8; stroke-width: 2;}
.si-tree text {font-size: 12px; dominant-baseline: central; fill: var(--st-text-color, #31333f);}
.si-tree-branches text {font-style: italic; opacity: 0.75;}
.si-tree-label {opacity: 0.7;}
.si-tree-selected .si-tree-label {opacity: 1; font-weight: 600;}
.si-tree-selected .si-tree-dot {stroke: var(--st-text-color, #111827); stroke-width: 3;}
.si-tree-hit {fill: transparent; cursor: pointer;}
.si-tree-row:hover .si-tree-hit {fill: var(--st-primary-color, #ff4b4b); fill-opacity: 0.08;}
"""

_tree = st.components.v2.component("inspector.history_tree", js=TREE_JS, css=TREE_CSS)

TIP_FIELDS = (("step", "step"), ("label", "label"), ("source", "source"), ("branch", "branch"),
              ("namespace", "ns"), ("id", "checkpoint"))


def _tip(point: dict[str, Any]) -> str:
    """A row's tooltip: its fields one per line, those with something to say."""
    return "\n".join(f"{title}: {point[name]}" for name, title in TIP_FIELDS if point.get(name) not in (None, ""))


def drawn(data: TreeData) -> dict[str, Any]:
    """What the script draws: the rows of ``data`` (names already as shown), each point with its tooltip."""
    return {
        "points": [{"lane": p["lane"], "row": p["row"], "id": p["id"], "kind": p["kind"], "selected": p["selected"],
                    "colour": p["colour"], "label": p["label"], "tip": _tip(p)} for p in data.points],
        "edges": data.edges,
        "labels": data.labels,
        "rows": data.rows,
    }


def tree(label: str, data: TreeData, key: str, on_pick: Callable[[int], None]) -> None:
    """The tree of ``data`` (its names as shown) under the accessible name ``label``; a click on a row calls
    ``on_pick(index)`` with the index of its point, before the run it starts."""
    _tree(key=key, data={**drawn(data), "label": label, "row": ROW_HEIGHT, "lane": LANE_WIDTH, "gap": LABEL_GAP},
          on_picked_change=pick_callback(key, len(data.points), on_pick))
