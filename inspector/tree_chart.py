"""The drawn history tree: one lane per branch, newest checkpoint at the top.

``tree_data`` lays out one page of the history as plain rows (points, edges,
branch labels); ``tree_chart`` turns them into a Vega-Lite chart (Altair) with a
click selection named ``pick`` carrying ``checkpoint`` and ``ns``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import altair as alt

from .checkpoint_kinds import step_label
from .history import History, Key, branch_label

ROW_HEIGHT = 24
SELECTION = "pick"


@dataclass
class TreeData:
    points: list[dict[str, Any]]
    edges: list[dict[str, Any]]
    labels: list[dict[str, Any]]
    lanes: int


def tree_data(history: History, keys: list[Key], selected: Key | None = None) -> TreeData:
    """Points, edges and branch labels for the checkpoints in ``keys`` (newest first)."""
    row_of = {key: i for i, key in enumerate(keys)}
    points, edges, labels = [], [], []
    lanes_used: set[int] = set()
    for i, key in enumerate(keys):
        node = history.node(key)
        lanes_used.add(node.branch)
        points.append({
            "checkpoint": key[1], "ns": key[0], "row": i, "lane": node.branch,
            "step": node.row.step, "source": node.row.source or "",
            "branch": branch_label(history, history.branches[node.branch]),
            "label": step_label(history, key),
            "kind": "fork" if node.is_fork else "checkpoint",
            "selected": key == selected,
        })
        if node.parent is not None:
            parent = history.node(node.parent)
            parent_row = row_of.get(node.parent, len(keys) - 0.5 if parent.order > node.order else -0.5)
            edges.append({"lane": node.branch, "row": i, "lane2": parent.branch, "row2": parent_row,
                          "cross": parent.branch != node.branch})
    for branch in history.branches:
        shown = [k for k in branch.keys if k in row_of]
        if shown:
            top = min(row_of[k] for k in shown)
            labels.append({"lane": branch.index, "row": top - 0.9, "text": branch_label(history, branch)})
    return TreeData(points, edges, labels, (max(lanes_used) + 1) if lanes_used else 1)


def tree_chart(data: TreeData) -> alt.LayerChart:
    rows = max(len(data.points), 1)
    lanes = sorted({p["lane"] for p in data.points}) or [0]
    x = alt.X("lane:Q", axis=None, scale=alt.Scale(domain=[min(lanes) - 0.5, max(lanes) + 2.5]))
    y = alt.Y("row:Q", axis=None, scale=alt.Scale(domain=[-1.5, rows - 0.5], reverse=True))
    pick = alt.selection_point(name=SELECTION, fields=["checkpoint", "ns"], on="click", toggle=False, clear=False)
    edges = alt.Chart(alt.Data(values=data.edges or [{}])).mark_rule(strokeWidth=2, color="#94a3b8").encode(
        x=x, y=y, x2="lane2:Q", y2="row2:Q",
        strokeDash=alt.condition("datum.cross", alt.value([4, 3]), alt.value([1, 0])),
    )
    base = alt.Chart(alt.Data(values=data.points))
    points = base.mark_point(filled=True, size=140, cursor="pointer").encode(
        x=x, y=y,
        color=alt.Color("branch:N", legend=alt.Legend(title="branch", orient="bottom")),
        shape=alt.Shape("kind:N", scale=alt.Scale(domain=["checkpoint", "fork"], range=["circle", "diamond"]), legend=None),
        stroke=alt.condition("datum.selected", alt.value("#111827"), alt.value(None)),
        strokeWidth=alt.condition("datum.selected", alt.value(3), alt.value(0)),
        tooltip=["step:Q", "source:N", "branch:N", "ns:N", "checkpoint:N"],
    ).add_params(pick)
    text = base.mark_text(align="left", dx=11, fontSize=11).encode(
        x=x, y=y, text="label:N",
        color=alt.condition("datum.selected", alt.value("#111827"), alt.value("#64748b")),
    )
    labels = alt.Chart(alt.Data(values=data.labels or [{}])).mark_text(
        align="left", dx=-6, fontSize=11, fontStyle="italic", color="#475569").encode(x=x, y=y, text="text:N")
    return alt.layer(edges, points, text, labels).properties(height=ROW_HEIGHT * (rows + 2))
