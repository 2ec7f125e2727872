"""Progress on stderr for analyses that take more than about a second: ``sizes bench-long: 812 / 1,999 checkpoints``.

On a terminal the line is rewritten in place; elsewhere (a log, a pipe) a line is
written every few seconds. ``--quiet`` silences it; stdout (the table or JSON)
is never touched. The label names a thread from the data: it is masked, escaped and bounded like an
error line, so an id holding ESC or 10,000 characters prints as one short inert line.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from .output import one_line, with_length

SHOW_AFTER_SECONDS = 1.0
TERMINAL_INTERVAL = 0.1
LOG_INTERVAL = 2.0
LABEL_CHARS = 80  # a longer label (a thread id from the data) is cut, its length said


class StderrProgress:
    """A ``progress(done, total)`` callback that reports counts once work has run ``SHOW_AFTER_SECONDS``."""

    def __init__(self, label: str, quiet: bool = False, stream: TextIO | None = None, unit: str = "checkpoints") -> None:
        self.label, self.quiet, self.unit = _inert(label), quiet, unit
        self.stream = stream or sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if now - self.started < SHOW_AFTER_SECONDS:
            return
        if done < total and now - self.last < (TERMINAL_INTERVAL if self.terminal else LOG_INTERVAL):
            return
        self.last = now
        self.shown = True
        text = f"{self.label}: {done:,} / {total:,} {self.unit}"
        self.stream.write(f"\r{text}\033[K" if self.terminal else f"{text}\n")
        self.stream.flush()

    def close(self) -> None:
        """End the progress line (a terminal's cursor moves on to a fresh line)."""
        if self.shown and self.terminal:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "StderrProgress":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _inert(label: str) -> str:
    """``label`` as one line a terminal prints as it is (``output.one_line``), at most ``LABEL_CHARS``."""
    return with_length(one_line(label), LABEL_CHARS)
