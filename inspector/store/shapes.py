"""The shape of a stored value, and what a checkpoint holds: read from the serialized bytes, never decoded.

A profile is chosen by what a thread's newest checkpoint holds (``inspector.profiles``): its channels and
the *shapes* of their values, since two apps may share a field's name but not its type (DeerFlow's
``viewed_images`` is a map keyed by path; another app's may be a list of URLs). A ``Shape`` says what a
value is (a map, a list, a string, a LangChain message, ...) with the first few of its keys and items
one level down, and nothing of its text but keys that read as names (``sandbox_id``, ``workspace_path``):
a shape can go to the analysis cache, which never holds the text of a value.

``CheckpointShapes`` is what ``Store.checkpoint_shapes`` returns for one checkpoint: the channels holding
a value, the channels LangGraph versioned (every channel ever written, ``channel_versions``), each held
channel's shape (LangGraph's own channels left out) and the checkpoint's metadata. The walk over the bytes
is ``shape_walk``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .decode import Opaque

ITEMS = 3  # items of a list (values of a map) whose own shapes are described
KEYS = 8  # keys of a map that are classified (and kept when they read as names)
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")  # a key that reads as a field name, kept as it is

# kind -> how a description names it, one and several
_NOUNS = {"map": "map", "list": "list", "str": "str", "int": "int", "float": "float", "bool": "bool",
          "none": "None", "bytes": "bytes", "message": "LangChain message", "object": "object", "opaque": "opaque value"}
_PLURALS = {"map": "maps", "list": "lists", "int": "ints", "float": "floats", "bool": "bools",
            "message": "LangChain messages", "object": "objects", "opaque": "opaque values"}


def _several(kinds: set[str]) -> str:
    return " and ".join(_PLURALS.get(k, _NOUNS.get(k, k)) for k in sorted(kinds))


def key_kind(key: Any) -> str:
    """What a map key looks like: ``name`` (an identifier), ``path`` (holds a ``/``), ``text``, or its type."""
    if isinstance(key, str):
        if NAME.fullmatch(key):
            return "name"
        return "path" if "/" in key[:256] else "text"
    if isinstance(key, bool) or key is None:
        return "other"
    return "int" if isinstance(key, int) else "other"


class Shape(NamedTuple):
    """What a stored value is, without its text (a named tuple: thousands are read back per page of threads).

    ``kind``: ``map``, ``list``, ``str``, ``int``, ``float``, ``bool``, ``none``, ``bytes``, ``message`` (a
    LangChain message), ``object`` (another typed value, named by ``name``) or ``opaque`` (encrypted,
    pickled, unreadable). ``size``: a map's entries, a list's items, a string's bytes. ``name``: a message's
    or an object's type (``HumanMessage``, ``uuid.UUID``). ``keys``: the first ``KEYS`` keys of a map that
    read as names; ``key_kinds``: the distinct kinds of those first keys (``key_kind``), sorted. ``items``: the shapes of the
    first ``ITEMS`` items of a list, or values of a map, one level down. ``cut``: the value was read only in
    part (a bounded prefix), so its items may be fewer than it holds.
    """

    kind: str
    size: int | None = None
    name: str = ""
    keys: tuple[str, ...] = ()
    key_kinds: tuple[str, ...] = ()
    items: tuple["Shape", ...] = ()
    cut: bool = False

    def item_kinds(self) -> set[str]:
        return {item.kind for item in self.items}

    def describe(self) -> str:
        """``a list of str``, ``a map keyed by path of map entries``, ``a str``: what the value is, in words."""
        noun = _NOUNS.get(self.kind, self.kind)
        if self.kind in ("list", "map") and self.size == 0:
            return f"an empty {noun}"
        if self.kind == "list":
            kinds = self.item_kinds()
            return f"a list of {_several(kinds)}" if kinds else "a list"
        if self.kind == "map":
            keyed = sorted(set(self.key_kinds))
            kinds = self.item_kinds()
            text = "a map" + (f" keyed by {' and '.join(keyed)}" if keyed else "")
            return text + (f" of {_several(kinds)}" if kinds else "")
        if self.kind == "none":
            return "None"
        if self.kind in ("message", "object") and self.name:
            return f"a {self.name}"
        article = "an" if noun[:1] in "aeiouAEIOU" else "a"
        return f"{article} {noun}"

    def as_data(self) -> list[Any]:
        """A compact form for the analysis cache (``from_data`` reads it back)."""
        return [self.kind, self.size, self.name, list(self.keys), list(self.key_kinds),
                [item.as_data() for item in self.items], self.cut]

    @classmethod
    def from_data(cls, data: Any, depth: int = 0) -> "Shape":
        if type(data) is not list or len(data) < 7 or depth > 3:
            return cls("opaque")
        kind, size, name, keys, key_kinds, items, cut = data[:7]
        return cls(str(kind), size if type(size) is int else None, name if type(name) is str else "",
                   tuple(k for k in keys if type(k) is str) if type(keys) is list and keys else (),
                   tuple(k for k in key_kinds if type(k) is str) if type(key_kinds) is list and key_kinds else (),
                   tuple([cls.from_data(i, depth + 1) for i in items]) if type(items) is list and items else (),
                   cut is True)


@dataclass(frozen=True)
class CheckpointShapes:
    """What one checkpoint holds, read from its stored bytes (``Store.checkpoint_shapes``).

    ``held``: the channels holding a value; ``versioned``: the channels its ``channel_versions`` names
    (every channel ever written, LangGraph's own included); ``shapes``: each held channel's ``Shape``
    (LangGraph's internal channels left out); ``metadata``: the checkpoint's metadata, decoded (None when
    not read); ``problem``: why what was read is partial (an encrypted or corrupt blob), else None.
    """

    held: tuple[str, ...] = ()
    versioned: tuple[str, ...] = ()
    shapes: dict[str, Shape] = field(default_factory=dict)
    metadata: dict[str, Any] | None = None
    problem: str | None = None

    @property
    def channels(self) -> frozenset[str]:
        return frozenset(self.held) | frozenset(self.versioned)

    def as_data(self) -> dict[str, Any]:
        """The names and shapes for the analysis cache (never the metadata: it holds values)."""
        return {"held": list(self.held), "versioned": list(self.versioned),
                "shapes": {name: shape.as_data() for name, shape in self.shapes.items()}, "problem": self.problem}

    @classmethod
    def from_data(cls, data: Any) -> "CheckpointShapes | None":
        if not isinstance(data, dict):
            return None
        names = [[n for n in data.get(key) or () if isinstance(n, str)] for key in ("held", "versioned")]
        shapes = data.get("shapes") if isinstance(data.get("shapes"), dict) else {}
        problem = data.get("problem") if isinstance(data.get("problem"), str) else None
        return cls(tuple(names[0]), tuple(names[1]),
                   {str(k): Shape.from_data(v) for k, v in shapes.items()}, None, problem)


def shape_of_value(value: Any, depth: int = 2) -> Shape:
    """The shape of a decoded value (a primitive inline in PostgreSQL's checkpoint JSONB, a JSON checkpoint)."""
    if value is None:
        return Shape("none")
    if isinstance(value, bool):
        return Shape("bool")
    if isinstance(value, int):
        return Shape("int")
    if isinstance(value, float):
        return Shape("float")
    if isinstance(value, str):
        return Shape("str", len(value.encode("utf-8", "surrogatepass")))
    if isinstance(value, (bytes, bytearray)):
        return Shape("bytes", len(value))
    if isinstance(value, Opaque):
        return Shape("opaque", value.size, value.type)
    if isinstance(value, (list, tuple)):
        items = tuple(shape_of_value(v, depth - 1) for v in value[:ITEMS]) if depth > 0 else ()
        return Shape("list", len(value), items=items)
    if isinstance(value, dict):
        keys = list(value)[:KEYS]
        items = tuple(shape_of_value(value[k], depth - 1) for k in keys[:ITEMS]) if depth > 0 else ()
        return Shape("map", len(value), keys=tuple(k for k in keys if isinstance(k, str) and NAME.fullmatch(k)),
                     key_kinds=tuple(sorted({key_kind(k) for k in keys})), items=items)
    return Shape("object", name=type(value).__name__)
