"""Printing command results: JSON with stable keys, or a readable table; secrets masked in both.

Everything a command prints goes through ``print_json``, ``print_table`` or
``say``, which mask secrets with the settings' redaction rules (``--reveal``
turns that off where the operator set ``allow_reveal``).
"""

from __future__ import annotations

import sys
from typing import Any, Iterable, Sequence, TextIO

from ..formatting import dumps, to_jsonable
from ..safety.redaction import Redactor, redactor_for

_redactor: Redactor | None = None


def use_redactor(redactor: Redactor | None) -> None:
    """The redactor for this run's output (``None``: the settings' default, chosen on first use)."""
    global _redactor
    _redactor = redactor


def masked(value: Any, keys: bool = True) -> Any:
    """``value`` with secrets masked for output (``keys=False``: text shapes only, for size reports)."""
    global _redactor
    if _redactor is None:
        _redactor = redactor_for()
    return _redactor(value, keys=keys)


def print_json(data: Any, out: TextIO | None = None, keys: bool = True) -> None:
    (out or sys.stdout).write(dumps(masked(to_jsonable(data), keys)) + "\n")


def say(text: str, out: TextIO | None = None) -> None:
    """One line of prose output (masked like every other output)."""
    (out or sys.stdout).write(masked(text) + "\n")


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], out: TextIO | None = None) -> None:
    """A plain aligned table; cells are shown with ``str`` (masked) and cut at 60 characters."""
    out = out or sys.stdout
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")


def _cell(value: Any) -> str:
    text = "" if value is None else masked(str(value))
    text = text.replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."
