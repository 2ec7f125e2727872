"""A whole-checkpoint blob (SQLite's layout) taken apart channel by channel: each channel's value decoded on its
own by the safe decoder (``decode``), its stored size known exactly, the parent's list and map items carried
forward (``carried``), an encrypted checkpoint decrypted with the operator's key or named as such."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import msgpack

from .carried import decode_value
from .decode import CORRUPT_BLOB, Problem, decode_typed, unpack_msgpack
from .encryption import decrypt, is_encrypted
from .not_utf8 import named


@dataclass
class DecodedCheckpoint:
    """A checkpoint blob taken apart: header keys, channel values, their stored sizes."""

    header: dict[str, Any]
    channel_values: dict[str, Any]
    channel_bytes: dict[str, int]
    problems: list[Problem]
    # list and map channels as decoded, for decoding a child checkpoint against (``store.carried``)
    carried: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)


def decode_checkpoint_blob(type_tag: str | None, blob: bytes | None, channels: Collection[str] | None = None,
                           previous: DecodedCheckpoint | None = None) -> DecodedCheckpoint:
    """Decode a whole-checkpoint blob (SQLite's layout) channel by channel; never raises.

    ``channels``: decode only these channel values (the others are skipped, not built); None: all.
    ``previous``: the parent checkpoint, decoded; items this one stores again are taken from it.
    """
    payload = bytes(blob or b"")
    if is_encrypted(type_tag):
        found = decrypt(str(type_tag), payload)
        if found.plaintext is None:
            return DecodedCheckpoint({}, {}, {}, [Problem(whole_checkpoint_encrypted(str(type_tag), len(payload), found.why),
                                                          None, found.kind)])
        type_tag, payload = found.base, found.plaintext
    if type_tag != "msgpack":
        decoded = decode_typed(type_tag, payload)
        value = decoded.value
        if isinstance(value, dict) and isinstance(value.get("channel_values"), dict):
            values = value.pop("channel_values")
            if channels is not None:
                values = {k: v for k, v in values.items() if k in channels}
            return DecodedCheckpoint(value, values, {}, decoded.problems)
        problems = decoded.problems or [Problem(f"checkpoint stored as {named(type_tag)} is not a checkpoint")]
        return DecodedCheckpoint({}, {}, {}, problems)
    return _walk_checkpoint(payload, channels, previous.carried if previous is not None else {})


def whole_checkpoint_encrypted(type_tag: str, size: int, why: str) -> str:
    """The line a checkpoint stored as one encrypted value (SQLite's layout) shows in place of its fields."""
    return (f"the whole checkpoint is one encrypted value ({type_tag}, {size:,} bytes): its fields and their values "
            f"are inside it; {why}")


def _walk_checkpoint(payload: bytes, wanted: Collection[str] | None, before: dict[str, Any]) -> DecodedCheckpoint:
    header: dict[str, Any] = {}
    values: dict[str, Any] = {}
    sizes: dict[str, int] = {}
    problems: list[Problem] = []
    carried: dict[str, Any] = {}
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(payload), 1))
    unpacker.feed(payload)
    try:
        for _ in range(unpacker.read_map_header()):
            key = unpacker.unpack()
            if key != "channel_values":
                start = unpacker.tell()
                unpacker.skip()
                decoded = unpack_msgpack(payload[start : unpacker.tell()], None)
                header[key] = decoded.value
                problems.extend(decoded.problems)
                continue
            for _ in range(unpacker.read_map_header()):
                channel = unpacker.unpack()
                start = unpacker.tell()
                unpacker.skip()
                name = str(channel)
                if wanted is not None and name not in wanted:
                    continue
                decoded, carried[name] = decode_value(payload, start, unpacker.tell(), name, before.get(name))
                values[name] = decoded.value
                sizes[name] = unpacker.tell() - start
                problems.extend(decoded.problems)
    except Exception as exc:  # truncated or corrupt blob: keep what was read
        problems.append(Problem(f"{CORRUPT_BLOB} after {len(values)} channel(s) ({type(exc).__name__})"))
    return DecodedCheckpoint(header, values, sizes, problems, carried)
