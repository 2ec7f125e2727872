"""Namespaces as a tree: each node counts the items stored in it and below it, their bytes, TTLs and vector rows.

Built from the namespace aggregate (one row per stored namespace), in time linear in the number of namespaces.
``tree_rows`` lays a subtree out depth first, biggest first, for a table; past ``limit`` rows it says how many
namespaces it left out (``TreeRows.left_out``), so a store of 100,000 namespaces draws one screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Iterable

from .model import MemoryTotals, NamespaceRow, namespace_of, prefix_of

TREE_ROWS = 500  # rows a tree table shows; the rest are counted


@dataclass(slots=True)
class Node:
    """One namespace path: what is stored at it (``own_*``) and at it and below (``items``, ``bytes``, ...)."""

    path: tuple[str, ...]
    own_items: int = 0
    own_bytes: int = 0
    items: int = 0
    bytes: int = 0
    with_ttl: int = 0
    expired: int = 0
    vector_rows: int = 0
    vector_bytes: int = 0
    newest_update: datetime | None = None
    stored: bool = False  # a namespace items are stored in (else only a path to deeper ones)
    namespaces: int = 0  # stored namespaces at and below it
    nodes: int = 1  # nodes at and below it (itself included)
    children: dict[str, "Node"] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.path[-1] if self.path else ""

    @property
    def prefix(self) -> str:
        return prefix_of(self.path)

    def add_counts(self, more: "Node | NamespaceRow") -> None:
        """Adds ``more``'s TTL, expired and vector counts (a stored namespace's row, or a child's totals) and keeps
        the newer update."""
        self.with_ttl += more.with_ttl
        self.expired += more.expired
        self.vector_rows += more.vector_rows
        self.vector_bytes += more.vector_bytes
        if more.newest_update is not None and (self.newest_update is None or more.newest_update > self.newest_update):
            self.newest_update = more.newest_update


def build_tree(rows: Iterable[NamespaceRow]) -> Node:
    """The root (path ``()``) of the tree of every namespace in ``rows``: each stored namespace's own counts set,
    then one pass from the leaves up sums them into every ancestor."""
    root = Node(())
    order = [root]  # every node, each after its parent
    for row in rows:
        path = namespace_of(row.prefix)
        node = root
        for depth, label in enumerate(path):
            child = node.children.get(label)
            if child is None:
                child = node.children[label] = Node(path[:depth + 1])
                order.append(child)
            node = child
        node.stored = node.stored or row.items > 0
        node.own_items += row.items
        node.own_bytes += row.bytes
        node.add_counts(row)
    for node in reversed(order):  # children before their parent
        node.items += node.own_items
        node.bytes += node.own_bytes
        node.namespaces += node.stored
        for child in node.children.values():
            node.items += child.items
            node.bytes += child.bytes
            node.add_counts(child)
            node.namespaces += child.namespaces
            node.nodes += child.nodes
    return root


def find(root: Node, path: tuple[str, ...]) -> Node | None:
    """The node at ``path``, or None."""
    node = root
    for label in path:
        node = node.children.get(label)
        if node is None:
            return None
    return node


def totals(root: Node) -> MemoryTotals:
    return MemoryTotals(root.items, root.namespaces, root.bytes, root.with_ttl, root.expired, root.vector_rows,
                        root.vector_bytes)


@dataclass(frozen=True)
class TreeRows:
    rows: list[dict[str, Any]]
    left_out: int  # namespaces (stored or paths) below ``under`` not in ``rows``


def tree_rows(root: Node, under: tuple[str, ...] = (), limit: int = TREE_ROWS) -> TreeRows:
    """The subtree at ``under`` (not the node itself), depth first, children by items (most first) then label:
    one row per node, at most ``limit``."""
    start = find(root, under)
    if start is None:
        return TreeRows([], 0)
    rows: list[dict[str, Any]] = []
    stack = [(child, 0) for child in _ordered(start)][::-1]
    while stack and len(rows) < limit:
        node, depth = stack.pop()
        rows.append(_row(node, depth))
        stack.extend([(child, depth + 1) for child in _ordered(node)][::-1])
    return TreeRows(rows, start.nodes - 1 - len(rows))


def _ordered(node: Node) -> list[Node]:
    return sorted(node.children.values(), key=lambda n: (-n.items, n.label))


def _row(node: Node, depth: int) -> dict[str, Any]:
    return {"namespace": list(node.path), "label": node.label, "depth": depth, "items": node.items,
            "bytes": node.bytes, "items here": node.own_items, "with TTL": node.with_ttl, "expired": node.expired,
            "vector rows": node.vector_rows, "newest update": node.newest_update}


def indented(label: str, depth: int, here: bool = False) -> str:
    """A tree row's label for a table: indented by depth, an empty label named as such; ``here``: marked as the
    namespace on screen."""
    return "   " * depth + ("● " if here else "└ ") + (label if label else "(empty label)")
