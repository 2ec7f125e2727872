"""JSON text as the CLI prints it: ``indented(value)`` is ``json.dumps(value, indent=2, ensure_ascii=False)``,
character for character, in less time: under half for the long replay of ``benchmarks/bench_replay.py``
(``benchmarks/README.md``), about two thirds for the demo's replay or lists of small dicts; a list of short
lists of scalars gains next to nothing.

The standard library writes indented JSON with its pure-Python encoder (its C encoder cannot indent),
a generator per container and a call per value; a replay of a long thread prints hundreds of thousands
of values. Here scalars are written inline, by the same functions ``json`` uses (its C string encoder,
``int.__repr__``, ``float.__repr__``, ``NaN``/``Infinity``), in the same order of type checks. Anything
else (a value ``json`` cannot write, a cycle, a nesting past the interpreter's depth) is handed to
``json.dumps``, which writes it or raises exactly what it raises.
"""

from __future__ import annotations

import json
from json.encoder import INFINITY, encode_basestring
from typing import Any

INDENT = "  "


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == INFINITY:
        return "Infinity"
    if value == -INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def _bool(value: bool) -> str:
    return "true" if value else "false"


def _null(value: None) -> str:
    return "null"


# exact types whose text needs no walk (subclasses take the checks below, in ``json``'s order)
_SCALARS = {str: encode_basestring, int: int.__repr__, float: _float, bool: _bool, type(None): _null}


class _Unwritable(Exception):
    """A value this writer leaves to ``json.dumps``."""


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, float):
        return _float(key)
    if key is True or key is False:
        return _bool(key)
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    raise _Unwritable


def indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` (see the module's docstring)."""
    parts: list[str] = []
    add = parts.append
    scalar = _SCALARS.get

    def walk(obj: Any, level: int) -> None:
        if isinstance(obj, str):
            add(encode_basestring(obj))
        elif obj is None or obj is True or obj is False:
            add(_null(obj) if obj is None else _bool(obj))
        elif isinstance(obj, int):
            add(int.__repr__(obj))
        elif isinstance(obj, float):
            add(_float(obj))
        elif isinstance(obj, (list, tuple, dict)):  # json's order: lists and tuples, then dicts (no type is both)
            keyed = isinstance(obj, dict)
            if not obj:
                add("{}" if keyed else "[]")
                return
            inner = "\n" + INDENT * (level + 1)
            add(("{" if keyed else "[") + inner)
            for position, item in enumerate(obj.items() if keyed else obj):
                if position:
                    add("," + inner)
                if keyed:
                    key, item = item
                    add(encode_basestring(key if type(key) is str else _key(key)) + ": ")
                text = scalar(type(item))
                if text is not None:
                    add(text(item))
                else:
                    walk(item, level + 1)
            add("\n" + INDENT * level + ("}" if keyed else "]"))
        else:
            raise _Unwritable

    try:
        walk(value, 0)
    except (_Unwritable, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)
    return "".join(parts)
