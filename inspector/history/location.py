"""Where the dashboard is looking, as it travels in a URL: ``?thread=...&checkpoint=...&ns=...&step=...``.

The location never names the store, so a link shows the same thing to anyone
who opened the same store. ``step`` names the checkpoint's step for people (a
presenter can type ``&step=12``); the checkpoint id, when given, decides.

Ids travel as ``store.not_utf8.token``: an id a SQLite store holds as text that is not UTF-8 is
``~bytes:<hex>`` in the URL (any id starting with that marker too), an id it holds as a BLOB ``~blob:<hex>``,
every other id as it is; so each id has one spelling in a URL, never shared with another id. ``url_id`` /
``id_from_url`` do it. A ``step`` that is not a whole number of at most nine ASCII digits (``²``, ``--5``) is none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping

from ..store.not_utf8 import TOKEN_PREFIX, from_token, is_blob, stored_bytes, token

# LangGraph bounds no id, and the thread list links every thread it lists: a longer value names nothing (never its
# prefix, which could be another thread's id)
MAX_PARAM_LENGTH = 65_536


def url_id(value: str) -> str:
    """An id (thread, checkpoint, namespace) as a URL names it (``not_utf8.token``); an id with spaces or line breaks
    at either end is spelled as its bytes too, since a location read from a URL is stripped (a typed link)."""
    if value != value.strip() and not is_blob(value):  # an id stored as bytes is always spelled by its bytes
        return TOKEN_PREFIX + stored_bytes(value).hex()
    return token(value)


def id_from_url(value: str) -> str:
    """The id a URL parameter names (``url_id`` undone)."""
    return from_token(value)


@dataclass(frozen=True)
class Location:
    thread: str | None = None
    checkpoint: str | None = None
    ns: str = ""
    step: int | None = None

    def params(self) -> dict[str, str]:
        """Query parameters for this location; empty parts are left out."""
        out: dict[str, str] = {}
        if self.thread:
            out["thread"] = url_id(self.thread)
        if self.thread and self.checkpoint:
            out["checkpoint"] = url_id(self.checkpoint)
        if self.thread and self.ns:
            out["ns"] = url_id(self.ns)
        if self.thread and self.step is not None:
            out["step"] = str(self.step)
        return out


def _clean(value: object) -> str | None:
    if isinstance(value, (list, tuple)):
        value = value[-1] if value else None
    if value is None:
        return None
    text = str(value).strip()
    return text if 0 < len(text) <= MAX_PARAM_LENGTH else None


def _id(value: object) -> str | None:
    text = _clean(value)
    return None if text is None else id_from_url(text)


_STEP = re.compile(r"-?[0-9]{1,9}")  # ASCII digits only: ``str.isdigit`` takes ``²``, which ``int`` refuses


def _step(value: object) -> int | None:
    text = _clean(value)
    if text is None or _STEP.fullmatch(text) is None:
        return None
    return int(text)


def parse_location(params: Mapping[str, object]) -> Location:
    """The location in query parameters; blank, missing or malformed parts become None (``ns`` becomes "")."""
    return Location(
        thread=_id(params.get("thread")),
        checkpoint=_id(params.get("checkpoint")),
        ns=_id(params.get("ns")) or "",
        step=_step(params.get("step")),
    )
