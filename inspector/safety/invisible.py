"""Invisible characters inside a secret: zero-width spaces and joiners, the word joiner, invisible operators, the
soft hyphen, the byte order mark.

A key with a zero-width space inside (``sk-proj-Ab12\\u200bCd34…``) reads as the key on a screen, survives a copy
and paste, and works with any client that strips such characters, yet no key shape matches it as written. The
redaction rules therefore read a text holding them with them left out (``fold``; their escapes too, ``\\u200b``
as a ``repr`` or an escaped output line spells one), record each mark they make
there (``Marks``), and put the marks back into the text as written (``Marks.unfold``): what a mark covers goes,
invisible characters inside it with it; everything else stays as it was, invisible characters included (the
zero-width joiners of an emoji such as a woman technologist stay where they are). Every step is linear in the
text's length.
"""

from __future__ import annotations

import re

INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
_FOLDED = re.compile(f"[{INVISIBLE}]" + r"|\\(?:u(?:00[aA][dD]|180[eE]|200[b-dB-D]|206[0-4]|[fF][eE][fF][fF])|x[aA][dD])")
_FOLDED_PARTS = re.compile(f"((?:{_FOLDED.pattern})+)")

Edit = tuple[int, int, str]  # replace text[start:end] with this text
Mark = tuple[int, int, int, int, str]  # start and end in the folded text, start and end in the current one, its text


def holds_invisible(text: str) -> bool:
    """Whether ``text`` holds one of the invisible characters or its escape (a fast check first: none in ASCII text
    without a backslash)."""
    if text.isascii():
        return "\\" in text and _FOLDED.search(text) is not None
    return _FOLDED.search(text) is not None


def fold(text: str) -> str:
    """``text`` without its invisible characters (and their escapes)."""
    if "\\" in text:
        return _FOLDED.sub("", text)
    for char in INVISIBLE:
        if char in text:
            text = text.replace(char, "")
    return text


def _pieces(text: str) -> tuple[list[str], list[int] | None]:
    """The pieces of ``text`` that ``fold`` keeps, in order, and the length of what it leaves out after each
    (None: one character each)."""
    if "\\" in text:
        parts = _FOLDED_PARTS.split(text)
        return parts[0::2], [len(p) for p in parts[1::2]]
    first = INVISIBLE[0]
    for char in INVISIBLE[1:]:
        if char in text:
            text = text.replace(char, first)
    return text.split(first), None


def spliced(text: str, edits: list[Edit]) -> str:
    """``text`` with each edit applied (edits sorted, none overlapping)."""
    pieces: list[str] = []
    at = 0
    for start, end, replacement in edits:
        pieces += [text[at:start], replacement]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


class Marks:
    """The marks the rules made so far in a folded text that they rewrite rule by rule: where each stands in the
    folded text as first read, and where in the current one. A later mark over an earlier one takes it in."""

    def __init__(self) -> None:
        self.marks: list[Mark] = []

    def apply(self, text: str, edits: list[Edit]) -> str:
        """``text`` (the current one) with ``edits`` applied, each recorded as a mark."""
        old, out = self.marks, []
        j = shift = 0

        def folded_at(position: int, before: int) -> int:  # ``before``: the marks that end at or before it
            if before == 0:
                return position
            return old[before - 1][1] + position - old[before - 1][3]

        for start, end, replacement in edits:
            while j < len(old) and old[j][3] <= start:
                fs, fe, cs, ce, mark = old[j]
                out.append((fs, fe, cs + shift, ce + shift, mark))
                j += 1
            start_f, start_c, prefix = folded_at(start, j), start, ""
            if j < len(old) and old[j][2] < start:  # it starts inside an earlier mark
                start_f, start_c, prefix = old[j][0], old[j][2], old[j][4][:start - old[j][2]]
            k = j
            while k < len(old) and old[k][2] < end:
                k += 1
            end_f, end_c, suffix = folded_at(end, k), end, ""
            if k > j and old[k - 1][3] > end:  # it ends inside an earlier mark
                end_f, end_c, suffix = old[k - 1][1], old[k - 1][3], old[k - 1][4][end - old[k - 1][2]:]
            mark = prefix + replacement + suffix
            out.append((start_f, end_f, start_c + shift, start_c + shift + len(mark), mark))
            shift += len(mark) - (end_c - start_c)
            j = k
        out += [(fs, fe, cs + shift, ce + shift, mark) for fs, fe, cs, ce, mark in old[j:]]
        self.marks = out
        return spliced(text, edits)

    def unfold(self, original: str) -> str:
        """``original`` (the text as written) with the marks made in its folded text in place: one walk over the
        pieces ``fold`` kept and left out, up to the last mark."""
        kept, gaps = _pieces(original)
        i = before = start = 0  # kept[i] starts at ``start`` in ``original`` and holds folded characters from ``before``

        def where(folded_at: int) -> int:  # the index in ``original`` of the folded text's character
            nonlocal i, before, start
            while folded_at >= before + len(kept[i]) and i + 1 < len(kept):
                before += len(kept[i])
                start += len(kept[i]) + (1 if gaps is None else gaps[i])
                i += 1
            return start + folded_at - before

        pieces: list[str] = []
        at = 0
        for start_f, end_f, _, _, mark in self.marks:
            begin = where(start_f)
            pieces += [original[at:begin], mark]
            at = where(end_f - 1) + 1 if end_f > start_f else begin
        pieces.append(original[at:])
        return "".join(pieces)
