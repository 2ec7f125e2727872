"""Reducer-aware diff between two checkpoints (of one thread or of two), and replay verification through the shared reducers.

Names are loaded on first use: reading a thread's cached replay verdicts needs none of the reducers,
so it does not load LangGraph's graph package.

May import ``store``, ``schema``, ``history``, ``cache`` and ``lazy_names``.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from ..lazy_names import loader

_EXPORTS = {
    "aligned_message_changes": ".across", "compare_across": ".across", "diff_threads": ".across",
    "CLEARED_NOTE": ".fields",
    "UNKNOWN_REDUCER": ".model", "Change": ".model", "FieldCheck": ".model", "FieldDiff": ".model",
    "ReplayVerdict": ".model", "StateDiff": ".model", "StepReplay": ".model", "verdict": ".model",
    "GENERATED_ID": ".replay", "ReplayError": ".replay", "replay": ".replay", "replay_step": ".replay",
    "diff": ".state_diff", "diff_checkpoints": ".state_diff",
    "CheckedReplay": ".doubt", "ProfileDoubt": ".doubt", "checked_replay": ".doubt",
    "message_line": ".summaries", "summarise": ".summaries",
    "cached_verdicts": ".thread_replay", "replay_thread": ".thread_replay",
}

__all__ = sorted(_EXPORTS)


__getattr__ = loader(__name__, _EXPORTS)


class _Package(types.ModuleType):
    """``inspector.diff.replay`` is the replay function, as it was before names were loaded lazily; the module
    of that name stays importable by its full name (``from inspector.diff.replay import ...``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _EXPORTS and isinstance(value, types.ModuleType):
            return  # the import system binding a submodule over an exported name of the same name
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
