"""What a page shows of a text from the data, apart from Markdown (``inert_text``): its bidi controls as
their code points, and a very long text cut for display.

- Bidi embeddings, overrides, isolates and marks (which make the text around them read in another order) are shown
  as their code points (``\\u202e``) by ``bidi_shown`` / ``bidi_shown_tree``, for the plain-text elements
  (``st.text``, ``st.code``, select options, table cells, JSON trees), by ``inert_text``'s Markdown and by the
  CLI's escapes (``BIDI_CODE_POINTS``).
- ``cut_for_display(text)`` is the part of a very long text a page shows (the first
  ``DISPLAY_CHARS`` characters), with the whole text's size, so the page can say what
  it cut and offer the whole text as a download: a browser is never sent megabytes of
  Markdown, and the dashboard's one process never formats them.
- ``cut_long_strings(value)`` is a JSON value as a tree shows it: long strings cut, each saying its length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["BIDI_CODE_POINTS", "DISPLAY_CHARS", "Shown", "bidi_shown", "bidi_shown_tree", "cut_for_display",
           "cut_long_strings", "too_long"]

DISPLAY_CHARS = 20_000  # of one text on a page; the rest is behind a download

# The invisible characters that reorder text: bidi embeddings, overrides and isolates (a thread id holding U+202E
# reads backwards from there: "cust-\u202edcba-4321" looks like "cust-1234-abcd"), and the marks (U+200E LRM, U+200F
# RLM, U+061C ALM), which move the neutral characters around them ("a-\u200f1-2" can read as another id). An id, a title
# or a label from the data shows them as their code points; the letters of Arabic and Hebrew text are shown as written.
BIDI_CODE_POINTS = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
BIDI_CONTROLS = str.maketrans({c: f"\\u{c:04x}" for c in BIDI_CODE_POINTS})
_BIDI = re.compile("[" + "".join(map(chr, BIDI_CODE_POINTS)) + "]")


def bidi_shown(text: str) -> str:
    """``text`` with its bidi embeddings, overrides, isolates and marks written as their code points (``\\u202e``)."""
    return text.translate(BIDI_CONTROLS)


@dataclass(frozen=True)
class Shown:
    """What a page shows of a text: ``text`` (all of it, or its first part) and the whole text's size."""

    text: str
    total_chars: int
    total_bytes: int

    @property
    def cut(self) -> bool:
        return len(self.text) < self.total_chars

    def note(self) -> str:
        """``Cut for display: ...`` (empty when nothing was cut)."""
        if not self.cut:
            return ""
        return (f"Cut for display: the first {len(self.text):,} of {self.total_chars:,} characters are shown "
                f"({_size(self.total_bytes)} in all); download the whole text to read the rest.")


def _size(n: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("KB", 1_000)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n} B"


def too_long(text: object, limit: int = DISPLAY_CHARS) -> bool:
    """Whether ``cut_for_display`` cuts ``text`` (without measuring its bytes, as the cut does)."""
    return len(str(text)) > limit


def cut_for_display(text: object, limit: int = DISPLAY_CHARS) -> Shown:
    """The first ``limit`` characters of ``text`` (at a line break near the cut when there is one) and its size."""
    text = str(text)
    if len(text) <= limit:
        return Shown(text, len(text), len(text.encode("utf-8", "surrogatepass")) if not text.isascii() else len(text))
    head = text[:limit]
    line_end = head.rfind("\n", limit - 2000)
    if line_end > 0:
        head = head[:line_end]
    return Shown(head, len(text), len(text.encode("utf-8", "surrogatepass")))


def cut_long_strings(value: Any, limit: int | None = DISPLAY_CHARS) -> tuple[Any, int]:
    """``value`` (plain JSON data) as a JSON tree shows it, and how many strings were cut: every string longer
    than ``limit`` cut, each saying its length (a JSON view of a field is sent to the browser whole otherwise),
    the bidi controls of strings and keys as their code points (``bidi_shown``). Same object when nothing changed."""
    count = [0]

    def walk(item: Any, depth: int) -> Any:
        if isinstance(item, str):
            if limit is not None and len(item) > limit:
                count[0] += 1
                item = item[:limit] + f" … [cut for display: {len(item):,} characters]"
            return bidi_shown(item) if _BIDI.search(item) else item
        if depth > 1000:
            return item
        if isinstance(item, list):
            items = [walk(v, depth + 1) for v in item]
            return item if all(a is b for a, b in zip(items, item)) else items
        if isinstance(item, dict):
            pairs = {_key_shown(k): walk(v, depth + 1) for k, v in item.items()}
            return item if len(pairs) == len(item) and all(pairs.get(k, pairs) is v for k, v in item.items()) else pairs
        return item

    return walk(value, 0), count[0]


def bidi_shown_tree(value: Any) -> Any:
    """``value`` (plain JSON data) with the bidi controls of its strings and keys as their code points (nothing cut)."""
    return cut_long_strings(value, limit=None)[0]


def _key_shown(key: Any) -> Any:
    return bidi_shown(key) if isinstance(key, str) and _BIDI.search(key) else key
