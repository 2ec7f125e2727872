"""Reducer-aware diff between two checkpoints (of one thread or of two), and replay verification through the shared reducers."""

from .across import aligned_message_changes, compare_across, diff_threads
from .fields import CLEARED_NOTE
from .model import UNKNOWN_REDUCER, Change, FieldCheck, FieldDiff, ReplayVerdict, StateDiff, StepReplay, verdict
from .replay import GENERATED_ID, ReplayError, replay, replay_step, replay_thread
from .state_diff import diff, diff_checkpoints
from .summaries import message_line, summarise

__all__ = [
    "CLEARED_NOTE",
    "GENERATED_ID",
    "UNKNOWN_REDUCER",
    "Change",
    "FieldCheck",
    "FieldDiff",
    "ReplayError",
    "ReplayVerdict",
    "StateDiff",
    "StepReplay",
    "aligned_message_changes",
    "compare_across",
    "diff",
    "diff_checkpoints",
    "diff_threads",
    "message_line",
    "replay",
    "replay_step",
    "replay_thread",
    "summarise",
    "verdict",
]
