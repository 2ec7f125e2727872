"""Decoding a history one checkpoint after another, carrying the parent's decoded items forward.

A conversation is stored again at every checkpoint: the child's ``messages`` are
the parent's messages, byte for byte, then one or two more. When a list or map
value begins with exactly the bytes of the parent's items, those items decode to
what the parent's did, so they are reused (the same objects) and only the new
items are decoded. The result equals a full decode (same values, same problems),
and a stream of checkpoints costs one byte comparison per channel plus its new
payloads. Items are shared between consecutive states: nothing may modify them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from .decode import Decoded, Opaque, Problem, _Collector, _foreign_problems, too_deep_value
from .depth import MAX_DEPTH, TooDeep, too_deep
from .msgpack_containers import container_header as _container_header


@dataclass(frozen=True)
class Carried:
    """A list or map channel value as decoded, with the bytes of its items, for decoding a child against."""

    kind: str  # "array" or "map"
    items: memoryview  # the stored item bytes (after the list or map header)
    count: int
    value: Any  # the decoded list or dict
    foreign: tuple[str, ...]  # foreign types met in the items, in order


def _collector(foreign: tuple[str, ...] = ()) -> _Collector:
    collector = _Collector()
    collector.foreign = list(foreign)
    return collector


def decode_value(payload: bytes, start: int, end: int, field: str | None,
                 previous: Carried | None = None) -> tuple[Decoded, Carried | None]:
    """Decode the msgpack value at ``payload[start:end]``; a list or map reuses ``previous``'s items
    when it stores them first. Returns the decoded value and what a child can be decoded against."""
    view = memoryview(payload)
    header = _container_header(view, start) if start < end else None
    kind, count, header_len = header if header is not None else (None, 0, 0)
    body = start + header_len
    if (header is not None and previous is not None and previous.kind == kind and previous.count <= count
            and payload.startswith(previous.items, body)):
        collector = _collector(previous.foreign)
        unpacker = msgpack.Unpacker(ext_hook=collector, raw=False, strict_map_key=False, use_list=True,
                                    max_buffer_size=max(end - body, 1))
        unpacker.feed(view[body + len(previous.items) : end])
        try:
            if kind == "array":
                added: list[Any] = [unpacker.unpack() for _ in range(count - previous.count)]
                value: Any = previous.value + added
            else:
                value = dict(previous.value)
                added = []
                for _ in range(count - previous.count):
                    key = unpacker.unpack()
                    value[key] = item = unpacker.unpack()
                    added.append(item)
        except Exception:  # a damaged tail: decode the whole value, which reports it
            return decode_value(payload, start, end, field)
        if too_deep(added, MAX_DEPTH):  # the parent's items were checked when they were decoded
            return too_deep_value("msgpack", end - start, field), None
        carried = Carried(kind, view[body:end], count, value, tuple(collector.foreign))
        return Decoded(value, _foreign_problems(collector, field)), carried
    collector = _collector()
    try:
        value = collector.unpack(payload[start:end])
    except TooDeep as exc:
        return too_deep_value("msgpack", end - start, field, exc), None
    except Exception as exc:  # msgpack raises several unrelated types on bad input
        return Decoded(Opaque("msgpack", end - start, "undecodable"),
                       [Problem(f"undecodable msgpack value ({type(exc).__name__}: {exc})", field)]), None
    if too_deep(value):
        return too_deep_value("msgpack", end - start, field), None
    decoded = Decoded(value, _foreign_problems(collector, field))
    if header is None or not isinstance(value, (list, dict)):
        return decoded, None
    return decoded, Carried(kind, view[body:end], count, value, tuple(collector.foreign))
