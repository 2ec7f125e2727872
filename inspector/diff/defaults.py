"""The checkpoints a diff of one thread compares when none are named, one rule for ``diff`` and the Diff page: the
newest checkpoint of the namespace that wrote a state field (a run's last checkpoint often writes none: a title
step that found the title set, DeerFlow's run-duration checkpoint), against its parent; and each checkpoint named
as the history tree names it (``history.checkpoint_kinds.step_label``, by the one attribution)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..history.checkpoint_kinds import step_label
from ..store import NotFound
from ..store.not_utf8 import quoted

if TYPE_CHECKING:
    from ..history.attribution import Attribution
    from ..history.lineage import History, Key
    from ..history.thread_history import ThreadHistory
    from ..store import Store

LABEL_CHARS = 72  # a step's name is cut past this many characters (a step that wrote many fields)


def checkpoint_label(history: History, key: Key, made: Attribution | None) -> str:
    """``step 7 · agent → messages · …8e8d0a824b3c``: the step as the tree names it, and the end of its id."""
    step = f"step {step_label(history, key, made)}"
    step = step if len(step) <= LABEL_CHARS else step[: LABEL_CHARS - 1] + "…"
    return f"{step} · …{key[1][-12:]}"


def default_to(store: Store, thread: ThreadHistory, ns: str = "") -> tuple[str, str | None]:
    """The checkpoint a diff shows when ``to`` is not named: the newest of namespace ``ns`` that wrote a state field
    (the newest one when none did), and a line saying so when that is not the newest checkpoint. Reads the write
    keys back along the lineage until it finds one, and the full rows of the two checkpoints named."""
    history = thread.history
    newest = next((k for k in history.ordered if k[0] == ns), None)
    if newest is None:
        raise NotFound(f"no checkpoints in namespace {quoted(ns)} for thread {quoted(thread.thread_id)}")
    found = thread.newest_writing(store, newest)
    if found is None or found.key == newest:
        return newest[1], None
    keys = [newest, found.key]
    thread.complete(store, keys)  # their kinds (a run-duration checkpoint ...) are in their metadata
    made = thread.attributions(store, keys)
    return found.key[1], (f"The newest checkpoint ({checkpoint_label(history, newest, made.get(newest))}) wrote no "
                          f"field; showing the newest step that did: "
                          f"{checkpoint_label(history, found.key, made.get(found.key))}.")
