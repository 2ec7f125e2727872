"""Printing command results: JSON with stable keys, or a readable table; secrets masked in both.

Everything a command prints goes through ``print_json``, ``print_table``, ``say`` or
``warn``, which mask secrets with the settings' redaction rules (``--reveal`` turns
that off where the operator set ``allow_reveal``) and show the data's control
characters escaped (``terminal_safe``): an ESC, BEL, CR, backspace, C1 or bidi
control in an id, a title or a message never reaches the terminal as itself, so a
stored value cannot set the window title, clear the screen, hide text or plant an
OSC 8 link. A table cell shows a line feed as ``\\n`` too (an id ``a\\nb`` is never read as ``a b``), but in
the columns a command names as free text (a title), where it reads as a space. JSON escapes the C0 controls
itself; the others are written as ``\\uXXXX``.
Text a SQLite store holds that is not UTF-8 (``store.not_utf8``) never breaks output: in tables its bad
bytes are shown as ``\\xff`` and the cell marked ``(not UTF-8)``; JSON writes them as ``\\udcff``, which
a JSON reader turns back into the same string.
"""

from __future__ import annotations

import dataclasses
import re
import sys
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, TextIO

from ..formatting import to_jsonable
from ..safety.display_text import BIDI_CODE_POINTS
from ..safety.redaction import Redactor, redactor_for
from ..store.not_utf8 import shown
from .json_text import indented

_redactor: Redactor | None = None

# C0 controls (but line feed), DEL, C1 controls, and the characters that reorder or hide text
_UNSAFE = [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0), *BIDI_CODE_POINTS, 0x2028, 0x2029]
_NAMED = {0x09: "\\t", 0x0D: "\\r", 0x1B: "\\x1b"}
_ESCAPES = {c: _NAMED.get(c, f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _UNSAFE if c != 0x0A}
# a lone surrogate (a byte that is not UTF-8, as ``not_utf8.decode`` reads it) as that byte, or its code point
_SURROGATES = range(0xD800, 0xE000)
_ESCAPES.update({c: f"\\x{c - 0xDC00:02x}" if c >= 0xDC80 else f"\\u{c:04x}" for c in _SURROGATES})
_JSON_ESCAPES = {c: f"\\u{c:04x}" for c in [*_UNSAFE, *_SURROGATES] if c >= 0x7F}


def _escaper(escapes: dict[int, str]) -> Callable[[str], str]:
    """``str.translate(escapes)``, as one regular-expression pass that costs nothing where no character
    needs escaping (a dict lookup per character does, on megabytes of output)."""
    runs: list[list[int]] = []  # consecutive code points as ranges: a class of 2,000 single ones compiles slowly
    for c in sorted(escapes):
        if runs and runs[-1][1] == c - 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    unsafe = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in runs) + "]")

    def escape(text: str) -> str:
        return unsafe.sub(lambda m: escapes[ord(m.group())], text)
    return escape


_escape_terminal = _escaper(_ESCAPES)
_escape_json = _escaper(_JSON_ESCAPES)


def terminal_safe(text: str, newlines: bool = True) -> str:
    """``text`` with every control character escaped (``\\x1b``, ``\\r``, ``\\u202e``), so it prints as what
    it is; line feeds kept (``newlines=False``: escaped too)."""
    text = _escape_terminal(text)
    return text if newlines else text.replace("\n", "\\n")


def use_redactor(redactor: Redactor | None) -> None:
    """The redactor for this run's output (``None``: the settings' default, chosen on first use)."""
    global _redactor
    _redactor = redactor


def masked(value: Any, keys: bool = True, names: bool = False) -> Any:
    """``value`` with secrets masked for output (``keys=False``: text shapes only, for size reports; ``names``:
    namespaces masked as names, for what is printed: before it, a command looks checkpoints up by them)."""
    global _redactor
    if _redactor is None:
        _redactor = redactor_for()
    return _redactor(value, keys=keys, names=names)


def masked_name(text: str) -> str:
    """A name from the data (a namespace, a node's name) as output shows it (``Redactor.name``)."""
    masked(None)  # the run's redactor, chosen on first use
    assert _redactor is not None
    return _redactor.name(text)


def print_json(data: Any, out: TextIO | None = None, keys: bool = True) -> None:
    text = indented(masked(to_jsonable(data), keys, names=True))  # json.dumps(indent=2, ensure_ascii=False); plain data
    (out or sys.stdout).write(_escape_json(text) + "\n")


def say(text: str, out: TextIO | None = None) -> None:
    """One line of prose output (masked and escaped like every other output). A line feed in it (an id from the data
    holding one) is shown as ``\\n``: a thread id cannot start a line of its own, such as a forged statement among
    the ones ``health --store`` prints."""
    (out or sys.stdout).write(terminal_safe(shown(masked(text)), newlines=False) + "\n")


WARN_LONGEST = 1_000  # an error line past this (a path or value of megabytes named in it) is cut, its length said


def warn(text: str) -> None:
    """One line on stderr (``warning: ...``, ``error: ...``), masked and escaped; cut past ``WARN_LONGEST``."""
    sys.stderr.write(with_length(one_line(text), WARN_LONGEST) + "\n")


def one_line(text: str) -> str:
    """``text`` as one line a terminal prints as it is: secrets masked (the default rules when the settings are
    bad), text that is not UTF-8 marked, controls and line feeds escaped."""
    return terminal_safe(shown(safe_masked(text)), newlines=False)


def with_length(text: str, longest: int) -> str:
    """``text`` itself up to ``longest`` characters; a longer one cut to ``longest``, ending with its whole
    length (``... [10,000 chars]``)."""
    if len(text) <= longest:
        return text
    size = f"... [{len(text):,} chars]"
    return text[:longest - len(size)] + size


def safe_masked(text: str) -> str:
    """``text`` masked, with the default rules when the settings themselves are bad (for error lines)."""
    try:
        return masked(text)
    except ValueError:
        return redactor_for(object()).text(text)


def listed(text: str, stored_as_bytes: bool = False) -> str:
    """An id from the data on a line that lists ids (``health``'s flags, ``health --store``'s leftovers, a timeline's
    branches): masked, spelled as a table cell spells it, and past ``QUOTED_LONGEST`` characters cut with its
    length as ``not_utf8.quoted`` cuts it (``LLLL… (10,000 characters)``); ``--json`` holds it whole."""
    return shown(masked(text), stored_as_bytes, cut=True)


def print_table(headers: Sequence[str] | None, rows: Iterable[Any], out: TextIO | None = None,
                formats: Mapping[str, Callable[[Any], Any]] | None = None, prose: Collection[str] = (),
                names: Collection[str] = ("namespace", "checkpoint_ns", "ns")) -> None:
    """A plain aligned table; cells are shown with ``str`` (masked) and cut at 60 characters (a value of
    1,000 characters or more with its length; ``--json`` prints it whole).

    A cell spells a line feed as ``\\n`` (and a tab, a CR as ``\\t``, ``\\r``), as ``not_utf8.quoted`` does, so an
    id (a thread ``a\\nb``) reads as itself, never as ``a b``; the ``prose`` columns hold free text (a title, a
    message), where a line feed reads as a space.

    ``rows`` are the core's rows as they are: dicts or dataclasses, whose keys (field names) ``headers``
    picks in order (``None``: every key of the first row), or plain sequences, one cell per header.
    ``formats`` turns a column's values into text (``{"stored bytes": human_bytes}``); None stays blank. The
    ``names`` columns hold names from the data (namespaces): masked as names (``masked_name``)."""
    out = out or sys.stdout
    records = [_record(row) for row in rows]
    if headers is None:
        headers = list(records[0]) if records and isinstance(records[0], Mapping) else []
    if not headers:
        return  # rows by key and none to show: nothing to head
    formats = formats or {}
    cells = []
    for record in records:
        values = [record.get(h) for h in headers] if isinstance(record, Mapping) else list(record)
        cells.append([_cell(formats[h](v) if h in formats and v is not None else v, h in prose, h in names)
                      for h, v in zip(headers, values)])
    headers = [terminal_safe(str(h), newlines=False) for h in headers]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")


def _record(row: Any) -> Any:
    """A dataclass as its fields (by name, not converted); dicts and sequences as they are."""
    if dataclasses.is_dataclass(row) and not isinstance(row, type):
        return {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}
    return row


def _cell(value: Any, prose: bool = False, name: bool = False) -> str:
    text = "" if value is None else shown(str(value))
    text = masked_name(text) if name else masked(text)
    text = terminal_safe(text.replace("\n", " ") if prose else text, newlines=False)
    if len(text) <= 60:
        return text
    if len(text) < 1000:
        return text[:57] + "..."
    return with_length(text, 60)  # a long value: its size, and --json for the whole
