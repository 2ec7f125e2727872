"""Printing command results: JSON with stable keys, or a readable table; secrets masked in both.

Everything a command prints goes through ``print_json``, ``print_table`` or
``say``, which mask secrets with the settings' redaction rules (``--reveal``
turns that off where the operator set ``allow_reveal``).
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TextIO

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


def print_table(headers: Sequence[str] | None, rows: Iterable[Any], out: TextIO | None = None,
                formats: Mapping[str, Callable[[Any], Any]] | None = None) -> None:
    """A plain aligned table; cells are shown with ``str`` (masked) and cut at 60 characters.

    ``rows`` are the core's rows as they are: dicts or dataclasses, whose keys (field names) ``headers``
    picks in order (``None``: every key of the first row), or plain sequences, one cell per header.
    ``formats`` turns a column's values into text (``{"stored bytes": human_bytes}``); None stays blank."""
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
        cells.append([_cell(formats[h](v) if h in formats and v is not None else v)
                      for h, v in zip(headers, values)])
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    out.write("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip() + "\n")
    for row in cells:
        out.write("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n")


def _record(row: Any) -> Any:
    """A dataclass as its fields (by name, not converted); dicts and sequences as they are."""
    if dataclasses.is_dataclass(row) and not isinstance(row, type):
        return {f.name: getattr(row, f.name) for f in dataclasses.fields(row)}
    return row


def _cell(value: Any) -> str:
    text = "" if value is None else masked(str(value))
    text = text.replace("\n", " ")
    return text if len(text) <= 60 else text[:57] + "..."
