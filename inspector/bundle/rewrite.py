"""LangGraph's serialized values taken apart and written back in the same format, never executed.

``load_msgpack`` reads a value as LangGraph's serializer wrote it: maps, arrays
and scalars as Python values, each extension value as an ``Ext`` holding the
type it names (module and class, kept aside and never imported) and its data.
``dump_msgpack`` writes such a tree back with the same extension codes, so
LangGraph reads the result as it read the original. Masking a tree touches only
``Ext.data`` and plain values: the names LangGraph needs to rebuild an object
stay exactly as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import msgpack

from ..store.decode import (
    EXT_CONSTRUCTOR_KW_ARGS,
    EXT_CONSTRUCTOR_POS_ARGS,
    EXT_CONSTRUCTOR_SINGLE_ARG,
    EXT_DELTA_SENTINEL,
    EXT_DELTA_SNAPSHOT,
    EXT_METHOD_SINGLE_ARG,
    EXT_NUMPY_ARRAY,
    EXT_PYDANTIC_V1,
    EXT_PYDANTIC_V2,
    checkpoint_items,
    unpack_nested,
)
from ..store.depth import TooDeep, loads, too_deep

NAMED_CODES = frozenset({EXT_CONSTRUCTOR_SINGLE_ARG, EXT_CONSTRUCTOR_POS_ARGS, EXT_CONSTRUCTOR_KW_ARGS,
                         EXT_METHOD_SINGLE_ARG, EXT_PYDANTIC_V1, EXT_PYDANTIC_V2})


@dataclass(frozen=True)
class Ext:
    """An extension value: ``data`` is what it holds. The code, the type's name and any trailing
    arguments (a method name) are kept outside the dataclass fields, so walking the record sees data only."""

    data: Any

    @property
    def code(self) -> int:
        return self.__dict__["_code"]

    def payload(self) -> Any:
        raw = self.__dict__.get("_raw")
        if raw is not None:
            return None
        if self.code in NAMED_CODES:
            return [*self.__dict__["_head"], self.data, *self.__dict__["_tail"]]
        return self.data


def make_ext(code: int, data: Any, head: tuple = (), tail: tuple = (), raw: bytes | None = None) -> Ext:
    value = Ext(data)
    object.__setattr__(value, "_code", code)
    object.__setattr__(value, "_head", tuple(head))
    object.__setattr__(value, "_tail", tuple(tail))
    object.__setattr__(value, "_raw", raw)
    return value


class Dropped:
    """An extension value of a kind the inspector cannot look inside: it is written back as null."""

    def __init__(self, code: int) -> None:
        self.code = code


class _Loader:
    def __init__(self) -> None:
        self.dropped: list[Dropped] = []
        self.nesting = 0

    def __call__(self, code: int, payload: bytes) -> Any:
        if code in (EXT_NUMPY_ARRAY, EXT_DELTA_SENTINEL):
            return make_ext(code, None, raw=payload)  # numbers, dtype and shape, or an empty marker: kept as stored
        if code == EXT_DELTA_SNAPSHOT:
            return make_ext(code, self.unpack(payload))
        if code in NAMED_CODES:
            parts = self.unpack(payload)
            if isinstance(parts, list) and len(parts) >= 3 and all(isinstance(p, str) for p in parts[:2]):
                return make_ext(code, parts[2], head=(parts[0], parts[1]), tail=tuple(parts[3:]))
        dropped = Dropped(code)
        self.dropped.append(dropped)
        return dropped

    def unpack(self, data: bytes) -> Any:
        return unpack_nested(self, data)


def load_msgpack(data: bytes) -> tuple[Any, list[Dropped]]:
    """The tree a msgpack value holds, and the extension values that had to be dropped.

    Raises ``ValueError`` when the bytes are not msgpack, ``depth.TooDeep`` (a ``ValueError``) when the value
    nests deeper than ``depth.MAX_DEPTH`` levels.
    """
    loader = _Loader()
    try:
        tree = loader.unpack(bytes(data))
    except TooDeep:
        raise
    except Exception as exc:  # msgpack raises several unrelated types on bad input
        raise ValueError(f"undecodable msgpack ({type(exc).__name__})") from None
    if too_deep(tree, inner=_ext_data):
        raise TooDeep()
    return tree, loader.dropped


def _ext_data(value: Any) -> Any:
    return value.data if isinstance(value, Ext) else None


def _default(value: Any) -> Any:
    if isinstance(value, Ext):
        raw = value.__dict__.get("_raw")
        return msgpack.ExtType(value.code, raw if raw is not None else dump_msgpack(value.payload()))
    if isinstance(value, Dropped):
        return None
    raise TypeError(f"cannot write a {type(value).__name__} as msgpack")


def dump_msgpack(tree: Any) -> bytes:
    """``tree`` as msgpack with LangGraph's extension codes."""
    return msgpack.packb(tree, default=_default, use_bin_type=True)


def load_json(data: bytes | str) -> Any:
    """Raises ``ValueError`` when the bytes are not JSON (``depth.TooDeep`` when they nest too deep)."""
    return loads(data)


def dump_json(value: Any) -> bytes:
    """JSON as LangGraph's savers write it (``ensure_ascii=False``, UTF-8)."""
    return json.dumps(value, ensure_ascii=False).encode("utf-8", "ignore")


def checkpoint_parts(data: bytes) -> tuple[list[tuple[Any, bytes]], list[tuple[Any, bytes]]]:
    """A whole-checkpoint msgpack map split into (header key, raw value) and (channel, raw value) pairs,
    so a channel stored unchanged in many checkpoints can be handled once, by its bytes."""
    header: list[tuple[Any, bytes]] = []
    channels: list[tuple[Any, bytes]] = []
    try:
        for is_channel, key, raw in checkpoint_items(data):
            (channels if is_channel else header).append((key, raw))
    except Exception as exc:  # truncated or not a map
        raise ValueError(f"not a checkpoint map ({type(exc).__name__})") from None
    return header, channels


def array_items(data: bytes) -> list[bytes] | None:
    """The raw items of a msgpack array (a message list), or None when ``data`` is not exactly one array."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(data), 1))
    unpacker.feed(data)
    items = []
    try:
        for _ in range(unpacker.read_array_header()):
            start = unpacker.tell()
            unpacker.skip()
            items.append(data[start:unpacker.tell()])
    except Exception:  # not an array, or truncated
        return None
    return items if unpacker.tell() == len(data) else None


def join_array(items: list[bytes]) -> bytes:
    return msgpack.Packer(use_bin_type=True).pack_array_header(len(items)) + b"".join(items)


def join_checkpoint(header: list[tuple[Any, bytes]], channels: list[tuple[Any, bytes]]) -> bytes:
    """The inverse of ``checkpoint_parts``: raw values placed back under their keys."""
    packer = msgpack.Packer(use_bin_type=True)
    out = bytearray(packer.pack_map_header(len(header) + 1))
    for key, raw in header:
        out += packer.pack(key) + raw
    out += packer.pack("channel_values") + packer.pack_map_header(len(channels))
    for channel, raw in channels:
        out += packer.pack(channel) + raw
    return bytes(out)
