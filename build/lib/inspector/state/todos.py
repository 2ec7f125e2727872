"""``todos`` as a status board; both ``{id, title, status}`` and ``{content, status}`` items."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

STATUSES = ("pending", "in_progress", "completed")
STATUS_LABELS = {"pending": "Pending", "in_progress": "In progress", "completed": "Completed"}


@dataclass(frozen=True)
class Todo:
    text: str
    status: str
    id: str | None = None
    raw: Any = None


def _todo(item: Any) -> Todo:
    if not isinstance(item, dict):
        return Todo(str(item), "unknown", raw=item)
    text = item.get("title") or item.get("content") or item.get("description") or item.get("text") or ""
    status = str(item.get("status") or "pending").strip().lower().replace(" ", "_").replace("-", "_")
    return Todo(str(text), status, str(item["id"]) if item.get("id") is not None else None, item)


def todo_board(todos: Any) -> dict[str, list[Todo]]:
    """Columns pending / in_progress / completed (always present), then any other status seen."""
    board: dict[str, list[Todo]] = {status: [] for status in STATUSES}
    for item in todos if isinstance(todos, list) else []:
        todo = _todo(item)
        board.setdefault(todo.status, []).append(todo)
    return board


def progress(board: dict[str, list[Todo]]) -> tuple[int, int]:
    """(completed, total)."""
    return len(board.get("completed", [])), sum(len(items) for items in board.values())
