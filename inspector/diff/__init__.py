"""Reducer-aware diff between two checkpoints, and replay verification through the shared reducers."""

from .fields import CLEARED_NOTE
from .model import UNKNOWN_REDUCER, Change, FieldCheck, FieldDiff, ReplayVerdict, StateDiff, StepReplay, verdict
from .replay import GENERATED_ID, ReplayError, replay, replay_step
from .state_diff import diff, diff_checkpoints
from .summaries import message_line, summarise
from .thread_replay import cached_verdicts, replay_thread

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
    "cached_verdicts",
    "diff",
    "diff_checkpoints",
    "message_line",
    "replay",
    "replay_step",
    "replay_thread",
    "summarise",
    "verdict",
]
