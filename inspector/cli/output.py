"""Printing command results: JSON with stable keys, or a readable table."""

from __future__ import annotations

import sys
from typing import Any, Iterable, Sequence, TextIO

from ..jsonable import dumps


def print_json(data: Any, out: TextIO | None = None) -> None:
    (out or sys.stdout).write(dumps(data) + "\n")


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], out: TextIO | None = None) -> None:
    """A plain aligned table; cells are shown with ``str`` and cut at 60 characters."""
    out = out or sys.stdout
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."
