"""A scripted "model" beside the graph file: imported as ``from fakemodel import ...``, the way
``python graph.py`` finds a sibling module."""

from __future__ import annotations


def reply(turn: int) -> str:
    return f"reply {turn}"
