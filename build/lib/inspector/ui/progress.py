"""A progress bar with counts for work that takes more than about a second: ``Replaying: 812 / 1,999 steps``.

Each update is a message to the browser, and Streamlit stops a script at its next
message when the person leaves the page, so work that reports progress stops
with it (facts already computed stay in the analysis cache).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import streamlit as st

SHOW_AFTER_SECONDS = 1.0
UPDATE_EVERY_SECONDS = 0.1


@contextmanager
def progress_bar(label: str, unit: str = "checkpoints") -> Iterator[Callable[[int, int], None]]:
    """A ``progress(done, total)`` callback drawing a bar once the work has run a second; removed after."""
    started = time.monotonic()
    shown: list = []
    last = [0.0]

    def update(done: int, total: int) -> None:
        now = time.monotonic()
        if now - started < SHOW_AFTER_SECONDS or (now - last[0] < UPDATE_EVERY_SECONDS and done < total):
            return
        last[0] = now
        if not shown:
            shown.append(st.progress(0.0))
        shown[0].progress(done / total if total else 1.0, text=f"{label}: {done:,} / {total:,} {unit}")

    try:
        yield update
    finally:
        if shown:
            shown[0].empty()
