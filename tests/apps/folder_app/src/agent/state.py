"""The app's state, imported by the graph as ``from agent.state import ...`` (its package)."""

from __future__ import annotations

from typing import Annotated, TypedDict


def longest(existing: str | None, new: str) -> str:
    """The longest note so far: a reducer only this app's code knows."""
    return new if existing is None or len(new) > len(existing) else existing


class FolderState(TypedDict, total=False):
    log: list[str]
    best: Annotated[str, longest]
