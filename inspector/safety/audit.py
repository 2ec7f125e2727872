"""The audit trail: one JSON line per look at a thread, a checkpoint or a diff, per reveal and per export.

Set ``audit_log`` (or ``INSPECTOR_AUDIT_LOG``) to a file path. Each line holds
``time`` (UTC, ISO 8601), ``user`` (the login, or ``anonymous``), ``action``,
``store`` (its URL with any password masked), ``thread``, ``ns``, ``checkpoint``
and, for some actions, a few more identifiers (``from_checkpoint``, ``what``,
``field``). Identifiers only: never a value of the state.

The file is only ever appended to: each line is one ``write`` on a descriptor
opened with ``O_APPEND``, so lines from several dashboard processes never
interleave, and a rotated file is picked up at the next line. A line that
cannot be written raises ``AuditError``; the dashboard then shows nothing more.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TypeVar

from ..store import display_url
from ..store.not_utf8 import named, quoted, token
from .access import ANONYMOUS

ACTIONS = ("thread_view", "checkpoint_view", "diff_view", "memory_view", "reveal", "export")
MAX_FIELD_CHARS = 512  # identifiers are cut here, so a line stays one small write

T = TypeVar("T")
Scalar = str | int | float | bool | None


class AuditError(Exception):
    """The audit log could not be written."""


def _field(value: Scalar) -> Scalar:
    if isinstance(value, str):
        value = token(value)  # an id that is not UTF-8 (a hostile SQLite store's) by its unambiguous token
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        return value[:MAX_FIELD_CHARS] + "…"
    return value


def audit_line(action: str, user: str, store: str, thread: str | None = None, checkpoint: str | None = None,
               ns: str | None = None, now: datetime | None = None, **detail: Scalar) -> bytes:
    """One line of the trail, newline included (the store URL is masked here)."""
    if action not in ACTIONS:
        raise ValueError(f"unknown audit action {named(action)}; one of {', '.join(ACTIONS)}")
    bad = [key for key, value in detail.items() if not isinstance(value, Scalar)]
    if bad:
        raise TypeError(f"audit details must be identifiers, not values: {', '.join(bad)}")
    when = (now or datetime.now(timezone.utc)).isoformat(timespec="milliseconds")
    record = {"time": when, "user": user or ANONYMOUS, "action": action, "store": display_url(store or ""),
              "thread": thread, "ns": ns, "checkpoint": checkpoint, **detail}
    text = json.dumps({key: _field(value) for key, value in record.items()}, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n").encode()


def append_line(path: str | os.PathLike, line: bytes) -> None:
    """Append ``line`` to ``path`` in one ``write`` (created ``0600`` when missing)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            written = os.write(fd, line)
        finally:
            os.close(fd)
    except OSError as exc:
        raise AuditError(f"cannot write the audit log {quoted(os.fspath(path))}: {exc.strerror or exc}") from exc
    if written != len(line):
        raise AuditError(f"the audit log {quoted(os.fspath(path))} took {written} of {len(line)} bytes")


@dataclass(frozen=True)
class AuditTrail:
    """Where lines go (``path`` None: nowhere), who is looking and at which store."""

    path: str | None
    user: str = ANONYMOUS
    store: str = ""

    def record(self, action: str, thread: str | None = None, checkpoint: str | None = None,
               ns: str | None = None, **detail: Scalar) -> None:
        """Append one line for ``action`` (nothing when no audit log is set)."""
        line = audit_line(action, self.user, self.store, thread, checkpoint, ns, **detail)
        if self.path:
            append_line(self.path, line)

    def exported(self, data: Callable[[], T], thread: str | None = None, checkpoint: str | None = None,
                 ns: str | None = None, **detail: Scalar) -> Callable[[], T]:
        """``data`` for a download button: the export is recorded when the file is produced."""

        def produce() -> T:
            self.record("export", thread, checkpoint, ns, **detail)
            return data()

        return produce
