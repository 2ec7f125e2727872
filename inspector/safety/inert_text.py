"""Text from the data turned into Markdown that cannot make the browser load anything.

The dashboard renders Markdown in many places (``st.markdown``, captions, alerts,
titles, widget, tab and expander labels, image captions). Text taken from a store
(messages, titles, todos, tool arguments, metadata, ids, file names and contents)
may have been written by an attacker, so it never reaches those renderers as is:

- ``literal(text)`` shows ``text`` exactly as written: every character that could
  start Markdown, HTML, a link, an image, math or a Streamlit directive is
  backslash-escaped (line-start markers such as ``#``, ``-`` or ``1.`` only at the
  start of a line, ``_`` only at a word's edge, ``:`` only before a shortcode name),
  so nothing is interpreted. For ids, names, labels, titles and messages of problems.
- ``inert_markdown(text)`` keeps the formatting of a message or a Markdown file
  (headings, emphasis, lists, tables, code) but nothing that loads or links:
  images (``![x](url)``, reference images), raw HTML, autolinks, link
  definitions and LaTeX are shown as the text they are, and bare URLs and e-mail
  addresses as code. A Markdown image becomes its visible source text, URL included.
- ``code_span(text)`` is one inline code span holding ``text``.
- Bidi embeddings, overrides, isolates and marks are shown as their code points (``\\u202e``) by all of these
  (``display_text.bidi_shown``).
- ``links_in(text)`` lists the http(s) URLs a text mentions, for a control that
  opens one only when a person asks for it.
- Text read from bytes that are not UTF-8 (``store.not_utf8``: an id planted by raw SQL) holds lone
  surrogates, which no browser message can carry: every function here shows it as ``shown`` does, the
  bad bytes as ``\\xff`` and the text marked ``(not UTF-8)``.

How ``inert_markdown`` stays safe whatever the input: outside code, every
character that can start a link, an image, HTML, an autolink, an entity, math
or a directive (``\\ [ ] < & $``, and ``:`` before a shortcode name) is
escaped, and so is every backtick that does not pair into a code span on its
own line. Escaping does not stop GitHub's
autolink literals (they are found in the parsed text), so URLs, ``www.`` names
and e-mail addresses become code spans, which are never linked. Code is emitted
in delimiters the function chooses: fenced blocks are re-emitted at column 0
after a blank line with a fence longer than any backtick run inside, and a code
span is kept only when it opens and closes on one line and holds no ``|`` (a
table row would split it). A table's delimiter row (``|:---|---:|``) is kept as
written: it holds only bars, colons, hyphens and spaces, and its colons align the
columns. So every unescaped special character of the output sits in code or in
such a row by construction, whatever a renderer makes of the input's own structure.
"""

from __future__ import annotations

import bisect
import re
from typing import Any, Callable, Iterator, Mapping, Sequence

from ..store.not_utf8 import shown
from .display_text import bidi_shown

__all__ = ["code_span", "inert_markdown", "links_in", "literal", "table_cell", "text_table"]

# Characters that start a link, image, raw HTML, autolink, entity, LaTeX or code, anywhere.
_PROSE_SPECIALS = str.maketrans({c: "\\" + c for c in "\\`[]<&$"})
# ... and for literal text, emphasis, strikethrough and table cells too.
_LITERAL_SPECIALS = str.maketrans({c: "\\" + c for c in "\\`[]<&$*~|"})
_UNDERSCORE_AT_EDGE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_SHORTCODE_COLON = re.compile(r":(?=[\w+/-])")  # :emoji:, :material/icon:, :red[...]
_LINE_MARKER = re.compile(r"^(\s*)(?:([#>+=-])|(\d+)([.)]))")  # headings, quotes, lists, setext lines
_LINE_MARKERS = re.compile(r"^([^\S\n]*)(?:([#>+=-])|(\d+)([.)]))", re.MULTILINE)  # the same, on every line
# What GitHub-flavoured Markdown turns into a link even in escaped text: URLs, www. names, e-mail addresses.
# Found by ``_linkifiable`` in time linear in the text: a URL or an "@" before a dotted domain is searched for, and an address's
# local part is read backwards from its "@" (a pattern starting at the local part would rescan a long run
# of letters for an "@" from every position of it: quadratic).
_URL_OR_AT = re.compile(r"(?:https?://|www\.)[^\s<>`|\\]*|@(?=[-\w]+\.[-\w])", re.IGNORECASE)
_LOCAL_REVERSED = re.compile(r"[-.\w+]*")
_DOMAIN = re.compile(r"[-\w]+(?:\.[-\w]+)+")
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_BACKTICKS = re.compile(r"`+")
_BAR = re.compile(r"\|")
_INFO = re.compile(r"[^\w+#.-]")
_URL = re.compile(r"https?://[^\s<>()\[\]{}\"'`\\|^]+", re.IGNORECASE)


def _lines(text: object) -> list[str]:
    """``text`` as lines, its bidi controls as their code points (``bidi_shown``: in prose and in code alike);
    every CommonMark line ending (``\\r\\n``, ``\\r``, ``\\n``) splits."""
    return bidi_shown(shown(str(text))).replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _escape_prose(text: str, at_line_start: bool) -> str:
    return _SHORTCODE_COLON.sub(r"\\:", text.translate(_PROSE_SPECIALS))


def _escape_literal(text: str, at_line_start: bool) -> str:
    text = _SHORTCODE_COLON.sub(r"\\:", _UNDERSCORE_AT_EDGE.sub(r"\\_", text.translate(_LITERAL_SPECIALS)))
    if at_line_start:
        text = _LINE_MARKER.sub(lambda m: m.group(1) + (f"\\{m.group(2)}" if m.group(2) else f"{m.group(3)}\\{m.group(4)}"),
                                text, count=1)
    return text


def literal(text: object) -> str:
    """Markdown that shows ``text`` exactly as written (line breaks kept, nothing interpreted, bidi controls shown
    as their code points: ``bidi_shown``).

    The whole text is escaped at once (no URL, address or escape crosses a line break), and line-start
    markers are found on every line start of a piece, so many short lines cost what one long line costs."""
    text = bidi_shown(shown(str(text))).replace("\r\n", "\n").replace("\r", "\n")
    out: list[str] = []
    pos = 0
    for start, end in _linkifiable(text):
        out.append(_escape_literal_lines(text[pos:start], pos == 0 or text[pos - 1] == "\n"))
        out.append(code_span(text[start:end]))
        pos = end
    out.append(_escape_literal_lines(text[pos:], pos == 0 or text[pos - 1] == "\n"))
    return "".join(out).replace("\n", "  \n")


def _escape_literal_lines(text: str, at_line_start: bool) -> str:
    """``_escape_literal`` over a piece holding line breaks: the markers of each line that starts in it."""
    text = _SHORTCODE_COLON.sub(r"\\:", _UNDERSCORE_AT_EDGE.sub(r"\\_", text.translate(_LITERAL_SPECIALS)))
    first_break = 0 if at_line_start else text.find("\n") + 1
    if at_line_start or first_break:
        text = text[:first_break] + _LINE_MARKERS.sub(_marker, text[first_break:])
    return text


def _marker(m: re.Match[str]) -> str:
    return m.group(1) + (f"\\{m.group(2)}" if m.group(2) else f"{m.group(3)}\\{m.group(4)}")


def code_span(text: object) -> str:
    """An inline code span showing ``text`` on one line (not for table cells: a ``|`` would split it)."""
    flat = " ".join(_lines(text))
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat.strip() else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


def links_in(text: object, limit: int = 50) -> list[str]:
    """The distinct http(s) URLs mentioned in ``text``, in order (at most ``limit``)."""
    found: list[str] = []
    for match in _URL.finditer(str(text)):
        url = match.group(0).rstrip(".,;:!?*_~")
        if url not in found:
            found.append(url)
            if len(found) >= limit:
                break
    return found


def _escaped(text: str, escape: Callable[[str, bool], str], after_code: bool = False, before_code: bool = False) -> str:
    """``text`` escaped with ``escape``, every URL, ``www.`` name or e-mail address in it as a code span.

    Renderers turn such text into links even when escaped (GitHub's autolink literals
    work on the parsed text); code is never linked. A span must not touch a code span
    kept beside it (two backtick runs would merge), so a boundary character stays text.
    """
    out: list[str] = []
    pos = 0
    for start, end in _linkifiable(text):
        if start == 0 and after_code:
            start += 1
        if end == len(text) and before_code:
            end -= 1
        if start >= end:
            continue
        out.append(escape(text[pos:start], pos == 0 and not after_code))
        out.append(code_span(text[start:end]))
        pos = end
    out.append(escape(text[pos:], pos == 0 and not after_code))
    return "".join(out)


def _linkifiable(text: str) -> Iterator[tuple[int, int]]:
    """The spans of URLs, ``www.`` names and e-mail addresses in ``text``, left to right, not overlapping."""
    pos = 0
    while True:
        found = _URL_OR_AT.search(text, pos)
        if found is None:
            return
        if found.group() != "@":
            yield found.span()
            pos = found.end()
            continue
        at = found.start()
        local = _LOCAL_REVERSED.match(text[pos:at][::-1]).end()  # the chars since ``pos`` are read once
        domain = _DOMAIN.match(text, at + 1)
        if local and domain:
            yield at - local, domain.end()
            pos = domain.end()
        else:
            pos = at + 1


def _inline(line: str) -> str:
    """One line: code spans that close on this line and hold no ``|`` kept, everything else escaped.

    Linear in the line: each backtick run's next run of the same length is found in one pass from the end,
    and whether a ``|`` lies between two runs from the sorted positions of the line's ``|`` characters."""
    parts: list[tuple[bool, str]] = []  # (is kept code, text)
    spans = [m.span() for m in _BACKTICKS.finditer(line)]
    mate = [-1] * len(spans)  # index of the next run of the same length
    newest: dict[int, int] = {}
    for k in range(len(spans) - 1, -1, -1):
        length = spans[k][1] - spans[k][0]
        mate[k] = newest.get(length, -1)
        newest[length] = k
    bars = [m.start() for m in _BAR.finditer(line)] if "|" in line else []
    pos = 0
    i = 0
    while i < len(spans):
        closing = mate[i]
        if closing >= 0 and not _bar_between(bars, spans[i][1], spans[closing][0]):
            parts += [(False, line[pos:spans[i][0]]), (True, line[spans[i][0]:spans[closing][1]])]
            pos = spans[closing][1]
            i = closing + 1
        else:
            i += 1
    parts.append((False, line[pos:]))
    out = []
    for k, (code, text) in enumerate(parts):
        if code:
            out.append(text)
        else:
            out.append(_escaped(text, _escape_prose, after_code=k > 0, before_code=k + 1 < len(parts)))
    return "".join(out)


def _bar_between(bars: list[int], start: int, end: int) -> bool:
    k = bisect.bisect_left(bars, start)
    return k < len(bars) and bars[k] < end


def _closes(line: str, fence: str) -> bool:
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3 or not stripped.startswith(fence[0] * len(fence)):
        return False
    return stripped.rstrip() == fence[0] * len(stripped.rstrip())


def _code_block(body: list[str], info: str) -> list[str]:
    longest = max((len(run) for line in body for run in _BACKTICKS.findall(line)), default=0)
    fence = "`" * max(3, longest + 1)
    return ["", fence + _INFO.sub("", info.split(" ", 1)[0] if info else ""), *body, fence, ""]


# A table's delimiter row (``|:---|---:|``): bars, colons, hyphens and spaces only, so nothing in it can load,
# link or run; kept as written, its colons (which align the columns) are not read as a shortcode's.
_RULE_CHARS = frozenset("|:- \t")
_RULE_CELL = re.compile(r":?-+:?")


def _table_rule(line: str) -> bool:
    """Whether ``line`` is a table's delimiter row (linear: a set test, then each cell matched alone)."""
    if "|" not in line or not _RULE_CHARS.issuperset(line):
        return False
    cells = line.strip(" \t")
    cells = cells[1:] if cells.startswith("|") else cells
    cells = cells[:-1] if cells.endswith("|") else cells
    return all(_RULE_CELL.fullmatch(cell.strip(" \t")) for cell in cells.split("|"))


def inert_markdown(text: object) -> str:
    """Markdown showing ``text``'s formatting, in which nothing loads, links or runs (see the module doc)."""
    lines = _lines(text)
    out: list[str] = []
    i = 0
    while i < len(lines):
        opened = _FENCE_OPEN.match(lines[i])
        if opened and not (opened.group(1)[0] == "`" and "`" in opened.group(2)):
            end = next((j for j in range(i + 1, len(lines)) if _closes(lines[j], opened.group(1))), len(lines))
            out += _code_block(lines[i + 1:end], opened.group(2).strip())
            i = end + 1
            continue
        out.append(lines[i] if _table_rule(lines[i]) else _inline(lines[i]))
        i += 1
    return "\n".join(out)


CELL_CHARS = 200  # of one cell of a ``text_table``; longer ones end in "…"
_BARE_PIPE = re.compile(r"(?<!\\)\|")


def table_cell(value: object) -> str:
    """One cell of a Markdown table showing ``value`` as written, on one line: blank for None, line breaks as
    spaces, cut at ``CELL_CHARS``; every ``|`` escaped (``literal`` escapes the text's own; those in the code
    spans it makes of addresses are escaped here), so a cell never splits."""
    if value is None:
        return ""
    flat = " ".join(str(value).split())
    flat = flat if len(flat) <= CELL_CHARS else flat[: CELL_CHARS - 1] + "…"
    return _BARE_PIPE.sub(r"\\|", literal(flat)) or " "


def text_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """A small table as Markdown, every cell through ``table_cell``: for a few rows where a data grid (and the
    megabytes of script the browser loads for one) is not needed. ``columns`` are shown as named (no data)."""
    head = "| " + " | ".join(columns) + " |"
    rule = "|" + "|".join(" --- " for _ in columns) + "|"
    body = ["| " + " | ".join(table_cell(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join([head, rule, *body])
