"""Where the dashboard is looking, as it travels in a URL: ``?thread=...&checkpoint=...&ns=...``.

The location never names the store, so a link shows the same thing to anyone
who opened the same store.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

MAX_PARAM_LENGTH = 512


@dataclass(frozen=True)
class Location:
    thread: str | None = None
    checkpoint: str | None = None
    ns: str = ""

    def params(self) -> dict[str, str]:
        """Query parameters for this location; empty parts are left out."""
        out: dict[str, str] = {}
        if self.thread:
            out["thread"] = self.thread
        if self.thread and self.checkpoint:
            out["checkpoint"] = self.checkpoint
        if self.thread and self.ns:
            out["ns"] = self.ns
        return out


def _clean(value: object) -> str | None:
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    if value is None:
        return None
    text = str(value).strip()
    return text[:MAX_PARAM_LENGTH] or None


def parse_location(params: Mapping[str, object]) -> Location:
    """The location in query parameters; blank or missing parts become None (``ns`` becomes "")."""
    return Location(
        thread=_clean(params.get("thread")),
        checkpoint=_clean(params.get("checkpoint")),
        ns=_clean(params.get("ns")) or "",
    )
