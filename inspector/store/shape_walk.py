"""Walking serialized msgpack by its headers: a checkpoint's channel names and its values' shapes, read
without decoding a value.

msgpack stores each string, binary and extension value behind its length, so the walk jumps over their
bytes; only lists and maps are entered, and only to count their items. A ``Reader`` hands out bytes by
position: the whole blob in memory, a bounded prefix (PostgreSQL's ``substring``, where reading past it
cuts the shape short), or SQLite's incremental blob I/O, which reads only the pages the walk touches, so a
82 MB checkpoint costs its headers, not its base64. Every walk has a budget of values (``WALK_VALUES``):
a hostile list of millions of integers stops the walk, leaving the channels after it unread, and
nothing is recursed into deeper than a shape describes (two levels).
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from .model import is_internal_channel
from .shapes import ITEMS, KEYS, NAME, CheckpointShapes, Shape, key_kind

WALK_VALUES = 200_000  # values walked per checkpoint before the walk stops
NAME_BYTES = 1024  # the longest channel name or key read as text
CHUNK = 16_384  # bytes a chunked reader fetches at a time
_TYPE_NAME = re.compile(r"[A-Za-z0-9_.]{1,200}")
_MESSAGES = "langchain_core.messages"
_INT_WIDTHS = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}
_LEN_WIDTHS = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xC7: 1, 0xC8: 2, 0xC9: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4,
               0xDC: 2, 0xDD: 4, 0xDE: 2, 0xDF: 4}
_FIXEXT = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}


class Reader(Protocol):
    length: int

    def read(self, start: int, size: int) -> bytes:
        """Up to ``size`` bytes from ``start`` (fewer at the end)."""
        ...


class BytesReader:
    """Bytes in memory: a whole blob, or a bounded prefix of one (``length``: the stored value's length)."""

    def __init__(self, data: bytes, length: int | None = None) -> None:
        self.data = bytes(data)
        self.length = len(self.data) if length is None else length

    def read(self, start: int, size: int) -> bytes:
        return self.data[start : start + size]


class ChunkedReader:
    """A seekable file-like (SQLite's ``Blob``) read ``CHUNK`` bytes at a time, the last chunk kept."""

    def __init__(self, handle: Any, length: int) -> None:
        self.handle, self.length = handle, length
        self._start, self._data = 0, b""

    def read(self, start: int, size: int) -> bytes:
        if start >= self._start and start + size <= self._start + len(self._data):
            return self._data[start - self._start : start - self._start + size]
        if start >= self.length:
            return b""
        self.handle.seek(start)
        self._start, self._data = start, self.handle.read(min(max(size, CHUNK), self.length - start))
        return self._data[:size]


class Cut(Exception):
    """The walk stopped: the bytes end early (``short``) or the budget of values is spent."""

    def __init__(self, why: str, short: bool = False) -> None:
        super().__init__(why)
        self.short = short


class Walk:
    """Headers of msgpack values read from ``reader``, within a budget of ``budget`` values."""

    def __init__(self, reader: Reader, budget: int = WALK_VALUES) -> None:
        self.reader, self.budget = reader, budget
        self.stopped: Cut | None = None  # the budget ran out inside a value (``value`` returned what it read)

    def _spend(self) -> None:
        self.budget -= 1
        if self.budget < 0:
            raise Cut(f"more than {WALK_VALUES:,} values: the rest was not walked")

    def head(self, pos: int) -> tuple[str, int, int, int]:
        """(kind, header bytes, payload bytes, items or extension code) of the value at ``pos``."""
        data = self.reader.read(pos, 10)
        if not data:
            raise Cut("the stored bytes end early", short=pos < self.reader.length)
        b = data[0]
        if b <= 0x7F or b >= 0xE0:
            return "int", 1, 0, 0
        if b <= 0x8F:
            return "map", 1, 0, b & 0x0F
        if b <= 0x9F:
            return "list", 1, 0, b & 0x0F
        if b <= 0xBF:
            return "str", 1, b & 0x1F, 0
        if b == 0xC0:
            return "none", 1, 0, 0
        if b in (0xC2, 0xC3):
            return "bool", 1, 0, 0
        if b in (0xCA, 0xCB):
            return "float", 5 if b == 0xCA else 9, 0, 0
        if b in _INT_WIDTHS:
            return "int", 1 + _INT_WIDTHS[b], 0, 0
        if b in _FIXEXT:
            if len(data) < 2:
                raise Cut("the stored bytes end early", short=True)
            return "ext", 2, _FIXEXT[b], int.from_bytes(data[1:2], "big", signed=True)
        width = _LEN_WIDTHS.get(b)
        if width is None:
            raise Cut("not a msgpack value (a corrupt blob)")
        if len(data) < 1 + width + (1 if 0xC7 <= b <= 0xC9 else 0):
            raise Cut("the stored bytes end early", short=True)
        n = int.from_bytes(data[1 : 1 + width], "big")
        if b <= 0xC6:
            return "bytes", 1 + width, n, 0
        if b <= 0xC9:
            return "ext", 2 + width, n, int.from_bytes(data[1 + width : 2 + width], "big", signed=True)
        if b <= 0xDB:
            return "str", 1 + width, n, 0
        return ("list" if b <= 0xDD else "map"), 1 + width, 0, n

    def skip(self, pos: int) -> int:
        """Where the value at ``pos`` ends; lists and maps counted, never recursed into."""
        pending = 1
        while pending:
            self._spend()
            kind, header, payload, n = self.head(pos)
            pos += header + payload
            pending += -1 + (n if kind == "list" else 2 * n if kind == "map" else 0)
        if pos > self.reader.length:
            raise Cut("the stored bytes end early", short=True)
        return pos

    def text(self, pos: int) -> tuple[str | None, int]:
        """The string at ``pos`` (None when it is not one, or longer than ``NAME_BYTES``) and where it ends."""
        kind, header, payload, _ = self.head(pos)
        if kind != "str":
            return None, self.skip(pos)
        if payload > NAME_BYTES:
            return None, pos + header + payload
        raw = self.reader.read(pos + header, payload)
        if len(raw) < payload:
            raise Cut("the stored bytes end early", short=True)
        return raw.decode("utf-8", "surrogateescape"), pos + header + payload

    def _ext(self, pos: int, size: int, code: int) -> tuple[str, str]:
        """(kind, type name) of an extension value: LangGraph's constructor codes name a module and class."""
        if code == 7:
            return "object", "langgraph.DeltaSnapshot"
        if code == 6:
            return "object", "numpy.ndarray"
        if not 0 <= code <= 5:
            return "opaque", f"msgpack-ext:{code}"
        inner = Walk(BytesReader(self.reader.read(pos, min(size, 2 * NAME_BYTES)), size), 8)
        try:
            kind, header, _, n = inner.head(0)
            if kind != "list" or n < 2:
                return "object", ""
            module, at = inner.text(header)
            name, _ = inner.text(at)
        except Cut:
            return "object", ""
        module = module if module and _TYPE_NAME.fullmatch(module) else ""
        name = name if name and _TYPE_NAME.fullmatch(name) else ""
        if code in (4, 5) and module.startswith(_MESSAGES):
            return "message", name
        return "object", f"{module}.{name}" if module and name else ""

    def value(self, pos: int, depth: int = 2) -> tuple[Shape, int | None]:
        """The shape of the value at ``pos`` (its kind, size and, ``depth`` levels down, its first items) and
        where it ends, each value walked once; the end is None when the bytes end first (a bounded prefix)."""
        self._spend()
        kind, header, payload, n = self.head(pos)
        end: int | None = pos + header + payload
        if end > self.reader.length:  # a length past the stored bytes: a corrupt blob
            end = None
        if kind in ("str", "bytes"):
            return Shape(kind, payload), end
        if kind == "ext":
            what, name = self._ext(pos + header, payload, n)
            return Shape(what, payload, name), end
        if kind not in ("list", "map"):
            return Shape(kind), end
        at: int | None = pos + header
        items: list[Shape] = []
        keys: list[str] = []
        kinds: set[str] = set()
        described = min(n, KEYS if kind == "map" else ITEMS)  # entries whose key or shape the shape names
        index = 0
        try:
            for index in range(n):
                if kind == "map":
                    if index < KEYS:
                        key, at = self._key(at)
                        kinds.add(key_kind(key) if key is not _NOT_TEXT else "other")
                        if isinstance(key, str) and NAME.fullmatch(key):
                            keys.append(key)
                    else:
                        at = self.skip(at)
                if index < ITEMS and depth > 0:
                    item, at = self.value(at, depth - 1)
                    items.append(item)
                    if at is None:
                        raise Cut("the stored bytes end early", short=True)
                else:
                    at = self.skip(at)
        except Cut as exc:  # the bytes end, or the budget is spent (``stopped``): what was read is the shape
            if not exc.short and self.stopped is None:
                self.stopped = exc
            return Shape(kind, n, keys=tuple(keys), key_kinds=tuple(sorted(kinds)), items=tuple(items),
                         cut=index < described), None
        return Shape(kind, n, keys=tuple(keys), key_kinds=tuple(sorted(kinds)), items=tuple(items)), at

    def shape(self, pos: int, depth: int = 2) -> Shape:
        """The shape of the value at ``pos`` (see ``value``)."""
        return self.value(pos, depth)[0]

    def _key(self, pos: int) -> tuple[Any, int]:
        kind, header, payload, _ = self.head(pos)
        if kind == "str":
            return self.text(pos)
        if kind == "int":
            return 0, pos + header + payload
        return _NOT_TEXT, self.skip(pos)


_NOT_TEXT = object()


def checkpoint_shapes(reader: Reader, metadata: dict[str, Any] | None = None) -> CheckpointShapes:
    """The channels and shapes of a whole-checkpoint msgpack map (SQLite's layout, a saver's checkpoint);
    never raises: a walk cut short keeps what it read and says why in ``problem``."""
    walk = Walk(reader)
    held: list[str] = []
    versioned: list[str] = []
    shapes: dict[str, Shape] = {}
    problem = None
    seen: set[str] = set()
    try:
        kind, at, _, n = walk.head(0)
        if kind != "map":
            raise Cut("not a checkpoint map")
        for _ in range(n):
            key, at = walk.text(at)
            if key not in ("channel_values", "channel_versions"):
                at = walk.skip(at)
                continue
            seen.add(key)
            kind, header, _, entries = walk.head(at)
            if kind != "map":
                at = walk.skip(at)
                continue
            at += header
            for _ in range(entries):
                name, at = walk.text(at)
                if name is None:
                    at = walk.skip(at)
                    continue
                if key == "channel_versions":
                    versioned.append(name)
                    at = walk.skip(at)
                    continue
                held.append(name)
                if is_internal_channel(name):
                    at = walk.skip(at)
                    continue
                shapes[name], end = walk.value(at)
                if end is None:
                    raise walk.stopped or Cut("the stored bytes end early")
                at = end
            if len(seen) == 2:
                break
    except Cut as exc:
        problem = str(exc)
    except Exception as exc:  # noqa: BLE001 - a reader failing mid-walk (a file replaced): keep what was read
        problem = f"the checkpoint could not be read to its end ({type(exc).__name__})"
    return CheckpointShapes(tuple(held), tuple(versioned), shapes, metadata, problem)


def value_shape(reader: Reader) -> Shape:
    """The shape of one serialized value (a PostgreSQL blob row or its prefix); ``opaque`` when unreadable."""
    try:
        return Walk(reader).shape(0)
    except Cut:
        return Shape("opaque")


JSON_SHAPES_BYTES = 4_000_000  # a checkpoint stored as JSON is decoded for its shapes up to this size


def stored_shapes(type_tag: str | None, reader: Reader, metadata: dict[str, Any] | None) -> CheckpointShapes:
    """``checkpoint_shapes`` of a whole checkpoint as a saver stored it (``type_tag``): msgpack is walked by
    its headers; JSON (older savers) decoded when small; encrypted or pickled checkpoints show nothing."""
    if type_tag == "msgpack":
        return checkpoint_shapes(reader, metadata)
    if type_tag == "json" and reader.length <= JSON_SHAPES_BYTES:
        from .decode import decode_typed
        from .shapes import shape_of_value

        value = decode_typed(type_tag, reader.read(0, reader.length)).value
        values = value.get("channel_values") if isinstance(value, dict) else None
        if isinstance(values, dict):
            versions = value.get("channel_versions") if isinstance(value.get("channel_versions"), dict) else {}
            return CheckpointShapes(tuple(map(str, values)), tuple(map(str, versions)),
                                    {str(k): shape_of_value(v) for k, v in values.items()
                                     if not is_internal_channel(str(k))}, metadata)
    from .not_utf8 import named

    return CheckpointShapes(metadata=metadata, problem=f"a checkpoint stored as {named(type_tag)}: its channels "
                                                       "are not read")
