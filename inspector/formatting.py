"""Values for people and for JSON: byte sizes in decimal units (as the size thresholds are set,
1 MB = 1,000,000 bytes), and what the inspector computes turned into JSON-safe data for the CLI
and downloads."""

from __future__ import annotations

import base64
import dataclasses
import json
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from .store.decode import Opaque

if TYPE_CHECKING:
    import pandas as pd


def byte_unit(peak: int) -> tuple[str, int]:
    """The unit a chart of values up to ``peak`` bytes is drawn in: ``("MB", 1_000_000)``, KB or B."""
    for name, size in (("GB", 10**9), ("MB", 10**6), ("KB", 10**3)):
        if peak >= size:
            return name, size
    return "B", 1


def frame_unit(frame: pd.DataFrame) -> str:
    """The unit (``byte_unit``) a chart of ``frame``'s column ``bytes`` is drawn in (B for no row)."""
    return byte_unit(int(frame["bytes"].max()) if len(frame) else 0)[0]


def count_of(value: Any) -> str:
    """How many items or keys a value holds, as a person reads it (``3 item(s)``, ``2 key(s)``; "" for a scalar)."""
    if isinstance(value, (list, tuple)):
        return f"{len(value)} item(s)"
    if isinstance(value, dict):
        return f"{len(value)} key(s)"
    return ""


# (size of the unit, its name, decimals shown), largest first: ``scaled`` picks the largest a value reaches
BYTE_UNITS = ((1_000_000_000, "GB", 2), (1_000_000, "MB", 2), (1000, "KB", 1))
TIME_UNITS = ((86_400, "days", 1), (3600, "h", 1), (60, "min", 0))


def scaled(value: float, units: tuple[tuple[int, str, int], ...]) -> str | None:
    """``value`` in the largest of ``units`` it reaches (``2.0 KB``); None below the smallest."""
    for size, name, decimals in units:
        if value >= size:
            return f"{value / size:.{decimals}f} {name}"
    return None


def human_bytes(size: int | None) -> str:
    """``512 B``, ``2.0 KB``, ``1.00 MB``; ``?`` when unknown."""
    if size is None:
        return "?"
    if size < 0:
        return "-" + human_bytes(-size)
    return scaled(size, BYTE_UNITS) or f"{size} B"


_PLAIN = (str, int, float, bool, type(None))
_FIELDS: dict[type, tuple[str, ...]] = {}  # a dataclass -> its field names, looked up once


def to_jsonable(obj: Any) -> Any:
    """Plain JSON data for dataclasses, datetimes, bytes and opaque values, recursively."""
    kind = type(obj)
    if kind in _PLAIN:
        return obj
    if kind is dict:
        return {k if type(k) is str else str(k): to_jsonable(v) for k, v in obj.items()}
    if kind is list:
        return [to_jsonable(v) for v in obj]
    names = _FIELDS.get(kind)
    if names is not None:
        return {name: to_jsonable(getattr(obj, name)) for name in names}
    if isinstance(obj, Opaque):
        return obj.as_dict()
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        names = _FIELDS[kind] = tuple(f.name for f in dataclasses.fields(obj))
        return {name: to_jsonable(getattr(obj, name)) for name in names}
    if isinstance(obj, dict):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, (datetime, date)):
        return obj.isoformat()
    if isinstance(obj, (bytes, bytearray, memoryview)):
        raw = bytes(obj)
        try:  # bytes that are UTF-8 text are shown as the text (masked like any text before they get here)
            return {"__bytes__": len(raw), "text": raw.decode("utf-8")}
        except UnicodeDecodeError:
            return {"__bytes__": len(raw), "base64": base64.b64encode(raw).decode("ascii")}
    if obj is None or isinstance(obj, (str, int, float, bool)):
        return obj
    return repr(obj)


def dumps(obj: Any, indent: int | None = 2) -> str:
    return json.dumps(to_jsonable(obj), indent=indent, ensure_ascii=False)
