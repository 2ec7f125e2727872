"""Questions a thread is waiting on: ``__interrupt__`` writes on a checkpoint.

A graph's own interrupt usually carries its question as text (``{"question": ...}``, a string).
An app's middleware may ask in its own shape: where the thread's profile knows it (LangChain's
human-in-the-loop request, ``profiles.langchain_agent``), the question is read in its terms.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import WriteRecord

INTERRUPT_CHANNEL = "__interrupt__"


@dataclass(frozen=True)
class PendingQuestion:
    id: str | None
    value: Any  # what the graph asked: often {"question": ..., "options": [...]} or a string
    task_path: str
    asked: str | None = None  # the question as the thread's profile reads an app's own shape

    @property
    def question(self) -> str:
        if self.asked:
            return self.asked
        if isinstance(self.value, dict):
            for key in ("question", "message", "prompt", "text"):
                if isinstance(self.value.get(key), str):
                    return self.value[key]
        return self.value if isinstance(self.value, str) else ""

    @property
    def options(self) -> list[str]:
        options = self.value.get("options") if isinstance(self.value, dict) else None
        return [str(o) for o in options] if isinstance(options, list) else []


def _unwrap(item: Any) -> tuple[Any, str | None]:
    """An ``Interrupt`` decoded as ``{"__type__": ..., "value": {"value": v, "id": i}}`` -> (v, i)."""
    if isinstance(item, dict) and "__type__" in item and isinstance(item.get("value"), dict):
        inner = item["value"]
        return inner.get("value"), inner.get("id")
    if isinstance(item, dict) and "value" in item:
        return item.get("value"), item.get("id")
    return item, None


def _app_question() -> Any:
    """The reader of an app's own interrupt shape the thread's profile knows, or None."""
    from ..profiles import current_knows
    from ..profiles.langchain_agent import HITL, hitl_question

    return hitl_question if current_knows(HITL, default=False) else None


def pending_questions(writes: list[WriteRecord]) -> list[PendingQuestion]:
    """Every interrupt written against a checkpoint, in write order."""
    app_question = _app_question() if any(w.channel == INTERRUPT_CHANNEL for w in writes) else None
    found = []
    for write in writes:
        if write.channel != INTERRUPT_CHANNEL:
            continue
        items = write.value if isinstance(write.value, list) else [write.value]
        for item in items:
            value, interrupt_id = _unwrap(item)
            asked = app_question(value) if app_question is not None else None
            found.append(PendingQuestion(interrupt_id, value, write.task_path, asked))
    return found
