"""Safe decoding of LangGraph's serialized values.

LangGraph's own decoder imports the module named inside a msgpack ext value and
calls it. This one never does: ext values become plain data, LangChain messages
become message dicts, pickled values stay opaque, and encrypted values stay opaque
unless the operator gave their key (``encryption``: decrypted by LangGraph's AES
cipher, then decoded here like any other value). Anything that cannot be decoded
is reported as a ``Problem`` instead of raising.

Checkpoint blobs are walked key by key (``msgpack.Unpacker``), so each channel
value is decoded on its own: its stored byte size is known exactly and a bad
value spoils only its own field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

import msgpack

from .depth import MAX_DEPTH, MAX_EXT_DEPTH, TooDeep, too_deep
from .depth import loads as json_loads
from .encryption import decrypt
from .not_utf8 import named

# LangGraph's ext codes (langgraph.checkpoint.serde.jsonplus).
EXT_CONSTRUCTOR_SINGLE_ARG = 0
EXT_CONSTRUCTOR_POS_ARGS = 1
EXT_CONSTRUCTOR_KW_ARGS = 2
EXT_METHOD_SINGLE_ARG = 3
EXT_PYDANTIC_V1 = 4
EXT_PYDANTIC_V2 = 5
EXT_NUMPY_ARRAY = 6
EXT_DELTA_SNAPSHOT = 7
EXT_DELTA_SENTINEL = 8  # LangGraph 1.2's alphas: a DeltaChannel stored this empty marker instead of its value

MESSAGE_MODULE_PREFIX = "langchain_core.messages"
DELTA_SNAPSHOT_TYPE = "langgraph.DeltaSnapshot"
DELTA_SENTINEL_TYPE = "langgraph.DeltaSentinel"
OVERWRITE_TYPE = "langgraph.types.Overwrite"
OVERWRITE_KEY = "__overwrite__"

# Types LangGraph writes itself; shown as data without a warning.
FAMILIAR_TYPES = frozenset(
    {
        "uuid.UUID",
        "decimal.Decimal",
        "datetime.datetime",
        "datetime.date",
        "datetime.time",
        "datetime.timedelta",
        "datetime.timezone",
        "zoneinfo.ZoneInfo",
        "builtins.set",
        "builtins.frozenset",
        "collections.deque",
        "pathlib.Path",
        "pathlib.PosixPath",
        "pathlib.WindowsPath",
        "langgraph.types.Send",
        "langgraph.types.Interrupt",
        "langgraph.types.Command",
        OVERWRITE_TYPE,
        "langgraph.store.base.Item",
    }
)


def overwritten(value: Any) -> tuple[bool, Any]:
    """``(True, v)`` when a decoded write is LangGraph's ``Overwrite(v)``, which bypasses the reducer.

    Recognises the decoded ext value (``{"__type__": "langgraph.types.Overwrite",
    "value": {"value": v, ...}}``) and LangGraph's two dict forms
    (``{"__overwrite__": v}``, ``{"type": "__overwrite__", "value": v}``).
    """
    if not isinstance(value, dict):
        return False, None
    if value.get("__type__") == OVERWRITE_TYPE:
        inner = value.get("value")
        if isinstance(inner, dict) and inner.get("type") == OVERWRITE_KEY and "value" in inner:
            return True, inner["value"]
        return True, inner
    if len(value) == 1 and OVERWRITE_KEY in value:
        return True, value[OVERWRITE_KEY]
    if value.get("type") == OVERWRITE_KEY and "value" in value:
        return True, value["value"]
    return False, None


CORRUPT_BLOB = "checkpoint blob is corrupt or truncated"  # a checkpoint-wide problem: channels after it are unread


@dataclass(frozen=True)
class Problem:
    """Something that could not be read as it should; attached to a field when known."""

    message: str
    field: str | None = None
    kind: str = "decode"

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "kind": self.kind, "message": self.message}


@dataclass(frozen=True)
class Opaque:
    """A value shown only by its type and size: encrypted, pickled or of an unknown tag."""

    type: str
    size: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"__opaque__": self.type, "size": self.size, "reason": self.reason}


@dataclass
class Decoded:
    value: Any
    problems: list[Problem] = field(default_factory=list)


class _Collector:
    """Ext hook that maps ext values to plain data and notes foreign types."""

    def __init__(self) -> None:
        self.foreign: list[str] = []
        self.nesting = 0

    def __call__(self, code: int, data: bytes) -> Any:
        if code == EXT_DELTA_SNAPSHOT:
            return {"__type__": DELTA_SNAPSHOT_TYPE, "value": self.unpack(data)}
        if code == EXT_DELTA_SENTINEL:
            return {"__type__": DELTA_SENTINEL_TYPE}
        if code == EXT_NUMPY_ARRAY:
            dtype, shape, _order, buf = self.unpack(data)
            return {"__type__": "numpy.ndarray", "value": {"dtype": dtype, "shape": list(shape), "bytes": len(buf)}}
        if code not in (
            EXT_CONSTRUCTOR_SINGLE_ARG,
            EXT_CONSTRUCTOR_POS_ARGS,
            EXT_CONSTRUCTOR_KW_ARGS,
            EXT_METHOD_SINGLE_ARG,
            EXT_PYDANTIC_V1,
            EXT_PYDANTIC_V2,
        ):
            return Opaque(f"msgpack-ext:{code}", len(data), "unknown extension code")
        parts = self.unpack(data)
        if not isinstance(parts, (list, tuple)) or len(parts) < 3:
            return Opaque(f"msgpack-ext:{code}", len(data), "malformed extension value")
        module, name, payload = str(parts[0]), str(parts[1]), parts[2]
        dotted = f"{module}.{name}"
        if code in (EXT_PYDANTIC_V1, EXT_PYDANTIC_V2) and module.startswith(MESSAGE_MODULE_PREFIX):
            return message_dict(payload, name)
        if dotted not in FAMILIAR_TYPES and not module.startswith(MESSAGE_MODULE_PREFIX):
            self.foreign.append(dotted)
        if dotted == "uuid.UUID" and isinstance(payload, str) and len(payload) == 32:
            payload = f"{payload[:8]}-{payload[8:12]}-{payload[12:16]}-{payload[16:20]}-{payload[20:]}"
        return {"__type__": dotted, "value": payload}

    def unpack(self, data: bytes) -> Any:
        """``data`` decoded; ``TooDeep`` past ``MAX_EXT_DEPTH`` extension values inside one another."""
        return unpack_nested(self, data)


def unpack_nested(hook: Any, data: bytes) -> Any:
    """``data`` unpacked with ``hook`` as its ext hook, each extension value inside the last one's call (on the C
    stack): ``hook.nesting`` counts them, ``TooDeep`` past ``MAX_EXT_DEPTH``."""
    if hook.nesting >= MAX_EXT_DEPTH:
        raise TooDeep(MAX_EXT_DEPTH, "extension values")
    hook.nesting += 1
    try:
        return msgpack.unpackb(data, ext_hook=hook, raw=False, strict_map_key=False, use_list=True)
    finally:
        hook.nesting -= 1


def message_dict(fields: Any, class_name: str = "") -> dict[str, Any]:
    """A LangChain message's fields as a plain dict; ``type`` always present."""
    if not isinstance(fields, dict):
        return {"type": "unknown", "content": fields, "__type__": class_name}
    out = dict(fields)
    if not out.get("type"):
        out["type"] = class_name.removesuffix("MessageChunk").removesuffix("Message").lower() or "unknown"
    out.setdefault("id", None)
    out.setdefault("content", "")
    out.setdefault("name", None)
    out.setdefault("additional_kwargs", {})
    if out["type"] == "ai":
        out.setdefault("tool_calls", [])
    return out


def _foreign_problems(collector: _Collector, field_name: str | None) -> list[Problem]:
    return [
        Problem(
            f"value of type {dotted} shown as data; the inspector never imports or calls it",
            field_name,
            "foreign-type",
        )
        for dotted in dict.fromkeys(collector.foreign)
    ]


def too_deep_value(type_tag: str, size: int, field_name: str | None, exc: TooDeep | None = None) -> Decoded:
    """What a value nested deeper than ``MAX_DEPTH`` levels (or ``exc`` says) decodes to: opaque, with a
    problem on its field."""
    reason = str(exc).removesuffix("; not shown") if exc is not None else f"nested deeper than {MAX_DEPTH} levels"
    return Decoded(Opaque(type_tag, size, reason),
                   [Problem(f"value shown as too deep, not walked: {reason}", field_name, "too-deep")])


def unpack_msgpack(data: bytes, field_name: str | None = None) -> Decoded:
    """Decode one msgpack value; never raises. A value nested past ``MAX_DEPTH`` is reported as too deep."""
    collector = _Collector()
    try:
        value = collector.unpack(data)
    except TooDeep as exc:
        return too_deep_value("msgpack", len(data), field_name, exc)
    except Exception as exc:  # msgpack raises several unrelated types on bad input
        return Decoded(
            Opaque("msgpack", len(data), "undecodable"),
            [Problem(f"undecodable msgpack value ({type(exc).__name__}: {exc})", field_name)],
        )
    if too_deep(value):
        return too_deep_value("msgpack", len(data), field_name)
    return Decoded(value, _foreign_problems(collector, field_name))


def decode_typed(type_tag: str | None, data: bytes | None, field_name: str | None = None) -> Decoded:
    """Decode a ``(type, bytes)`` pair as a saver stored it, without executing anything."""
    tag = type_tag or "null"
    payload = bytes(data or b"")
    if tag in ("null", "empty"):
        return Decoded(None)
    if tag == "msgpack":
        return unpack_msgpack(payload, field_name)
    if tag == "json":
        try:
            return Decoded(json_loads(payload))
        except TooDeep:
            return too_deep_value("json", len(payload), field_name)
        except ValueError as exc:
            return Decoded(Opaque("json", len(payload), "undecodable"), [Problem(f"undecodable JSON value ({exc})", field_name)])
    if tag in ("bytes", "bytearray"):
        return Decoded(payload)
    if tag == "pickle":
        return Decoded(
            Opaque("pickle", len(payload), "pickled values are never unpickled"),
            [Problem("pickled value left opaque: unpickling could execute code", field_name, "opaque")],
        )
    if "+" in tag:
        return _decrypted(tag, payload, field_name)
    return Decoded(
        Opaque(tag, len(payload), "unknown serialization type"),
        [Problem(f"unknown serialization type {named(tag)}", field_name, "opaque")],
    )


def _decrypted(tag: str, payload: bytes, field_name: str | None) -> Decoded:
    """An encrypted value (``EncryptedSerializer``) decrypted with the operator's key and decoded as its
    serializer's tag says; opaque, with one line saying why, when it cannot be."""
    found = decrypt(tag, payload)
    if found.plaintext is None:
        return Decoded(Opaque(tag, len(payload), "encrypted"), [Problem(found.reason, field_name, found.kind)])
    return decode_typed(found.base, found.plaintext, field_name)


def checkpoint_items(payload: bytes) -> Iterator[tuple[bool, Any, bytes]]:
    """Each header key and each channel of a whole-checkpoint msgpack map as ``(is_channel, key, raw value)``,
    values left undecoded. Raises (after yielding what it could read) on a truncated or malformed map."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(payload), 1))
    unpacker.feed(payload)
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        if key != "channel_values":
            start = unpacker.tell()
            unpacker.skip()
            yield False, key, payload[start : unpacker.tell()]
            continue
        for _ in range(unpacker.read_map_header()):
            channel = unpacker.unpack()
            start = unpacker.tell()
            unpacker.skip()
            yield True, channel, payload[start : unpacker.tell()]
