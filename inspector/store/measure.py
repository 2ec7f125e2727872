"""Stored sizes and content hashes of checkpoint channels, without decoding any value.

A checkpoint blob (SQLite's layout) is one msgpack map whose ``channel_values``
entry maps each channel to its serialized value. ``measure_checkpoint_blob``
walks that map with ``msgpack.Unpacker.skip``: each channel's raw byte slice is
measured and hashed, and when the value is a list or a map (``messages``,
``viewed_images``) each item is measured and hashed too. Equal hashes mean the
same payload stored again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import msgpack

from .decode import Problem

_ARRAY_TYPES = frozenset({0xDC, 0xDD})
_MAP_TYPES = frozenset({0xDE, 0xDF})

# Base64 image data as it sits in serialized bytes (strings are stored verbatim in msgpack and JSON): the
# payload of a data URL, and raw base64 of PNG, JPEG, GIF and WebP files long enough to be image data.
DATA_URL_MARKER = b";base64,"
RAW_IMAGE_PREFIXES = (b"iVBORw0KGgo", b"/9j/", b"R0lGOD", b"UklGR")
RAW_IMAGE_MIN_CHARS = 200
BASE64_SCAN_MIN_BYTES = 256
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/=]")
_ITEM_BASE64: dict[str, int] = {}  # item digest -> base64 bytes: a payload stored again is not searched again
_ITEM_BASE64_MAX = 100_000


def _may_hold_base64(data: bytes) -> bool:
    """A quick search for the markers base64 image data starts with."""
    return len(data) >= BASE64_SCAN_MIN_BYTES and any(m in data for m in (DATA_URL_MARKER, *RAW_IMAGE_PREFIXES))


def _runs(data: bytes, marker: bytes, skip: int, minimum: int) -> int:
    total, position = 0, data.find(marker)
    while position >= 0:
        stop = _NOT_BASE64.search(data, position + skip)
        end = stop.start() if stop else len(data)
        if end - (position + skip) >= minimum:
            total += end - (position + skip)
        position = data.find(marker, max(end, position + 1))
    return total


def base64_image_bytes(raw: bytes | memoryview) -> int:
    """Bytes of base64 image data inside a serialized value (0 for most values: a quick search first)."""
    data = bytes(raw)
    if not _may_hold_base64(data):
        return 0
    total = _runs(data, DATA_URL_MARKER, len(DATA_URL_MARKER), 1)
    return total + sum(_runs(data, prefix, 0, RAW_IMAGE_MIN_CHARS) for prefix in RAW_IMAGE_PREFIXES)


def _item_base64(item_digest: str, value: memoryview) -> int:
    """``base64_image_bytes`` of an item, searched once per distinct item (items repeat across checkpoints)."""
    if len(value) < BASE64_SCAN_MIN_BYTES:
        return 0
    found = _ITEM_BASE64.get(item_digest)
    if found is None:
        if len(_ITEM_BASE64) >= _ITEM_BASE64_MAX:
            _ITEM_BASE64.clear()
        found = _ITEM_BASE64[item_digest] = base64_image_bytes(value)
    return found


def digest(raw: bytes) -> str:
    """A short content hash of raw stored bytes (sha256: hardware-accelerated on most CPUs)."""
    return hashlib.sha256(raw).hexdigest()[:32]


@dataclass(frozen=True)
class ItemSize:
    """One list item or map entry of a channel value: its label, stored bytes and hash, and the bytes
    of base64 image data it holds."""

    label: str
    bytes: int
    digest: str
    base64_bytes: int = 0


@dataclass(frozen=True)
class ChannelSize:
    """One channel's stored value at one checkpoint.

    ``blob_key`` is set by stores where checkpoints share one stored row per
    channel version (PostgreSQL's ``checkpoint_blobs``): rows with the same key
    are one stored copy. ``None`` means this checkpoint holds its own copy.
    """

    bytes: int
    digest: str
    items: tuple[ItemSize, ...] = ()
    blob_key: str | None = None
    holds_base64: bool = False  # base64 image data somewhere in the value (per item in ``items``)


@dataclass
class MeasuredCheckpoint:
    channels: dict[str, ChannelSize] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)


def _is_container(first_byte: int) -> str | None:
    if 0x90 <= first_byte <= 0x9F or first_byte in _ARRAY_TYPES:
        return "array"
    if 0x80 <= first_byte <= 0x8F or first_byte in _MAP_TYPES:
        return "map"
    return None


def _unpacker(raw: bytes) -> msgpack.Unpacker:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=max(len(raw), 1))
    unpacker.feed(raw)
    return unpacker


def _skip(unpacker: msgpack.Unpacker, view: memoryview) -> memoryview:
    """Skip the next value; return its raw bytes (a view, not a copy)."""
    start = unpacker.tell()
    unpacker.skip()
    return view[start : unpacker.tell()]


def _label(key_raw: bytes) -> str:
    try:
        key = msgpack.unpackb(key_raw, raw=False, strict_map_key=False, ext_hook=lambda code, data: f"<ext {code}>")
    except Exception:  # an odd key is still an entry; label it by hash
        return digest(key_raw)[:8]
    return key if isinstance(key, str) else repr(key)


def _items(unpacker: msgpack.Unpacker, view: memoryview, kind: str) -> list[ItemSize]:
    items = []
    if kind == "array":
        for index in range(unpacker.read_array_header()):
            item = _skip(unpacker, view)
            item_digest = digest(item)
            items.append(ItemSize(str(index), len(item), item_digest, _item_base64(item_digest, item)))
        return items
    for _ in range(unpacker.read_map_header()):
        key = bytes(_skip(unpacker, view))
        value = _skip(unpacker, view)
        hashed = hashlib.sha256(key)
        hashed.update(value)
        item_digest = hashed.hexdigest()[:32]
        items.append(ItemSize(_label(key), len(key) + len(value), item_digest, _item_base64(item_digest, value)))
    return items


def measure_next(unpacker: msgpack.Unpacker, view: memoryview) -> ChannelSize:
    """Measure the value at the unpacker's position and move past it, walking a list or map item by item.

    A list or map is hashed from its framing and its items' hashes, so its bytes are hashed once; each
    distinct item is searched once for base64 image data.
    """
    start = unpacker.tell()
    kind = _is_container(view[start]) if start < len(view) else None
    if kind is None:
        raw = _skip(unpacker, view)
        return ChannelSize(len(raw), digest(raw), holds_base64=base64_image_bytes(raw) > 0)
    items = tuple(_items(unpacker, view, kind))
    end = unpacker.tell()
    framing = bytes(view[start : end - sum(item.bytes for item in items)])
    return ChannelSize(end - start, digest(framing + "".join(i.digest for i in items).encode()), items,
                       holds_base64=any(item.base64_bytes for item in items))


def measure_value(raw: bytes) -> ChannelSize:
    """Size, hash and per-item sizes of one serialized msgpack value; a corrupt one is measured whole."""
    try:
        return measure_next(_unpacker(raw), memoryview(raw))
    except Exception:
        return ChannelSize(len(raw), digest(raw))


def measure_checkpoint_blob(type_tag: str | None, blob: bytes | None) -> MeasuredCheckpoint:
    """Per-channel stored sizes of a whole-checkpoint blob; never raises, never decodes values."""
    payload = bytes(blob or b"")
    if type_tag != "msgpack":
        problem = Problem(f"per-field sizes are not available for checkpoints stored as {type_tag!r}", None, "size")
        return MeasuredCheckpoint({}, [problem])
    measured = MeasuredCheckpoint()
    unpacker = _unpacker(payload)
    view = memoryview(payload)
    try:
        for _ in range(unpacker.read_map_header()):
            key = unpacker.unpack()
            if key != "channel_values":
                unpacker.skip()
                continue
            for _ in range(unpacker.read_map_header()):
                channel = str(unpacker.unpack())
                measured.channels[channel] = measure_next(unpacker, view)
    except Exception as exc:  # truncated or corrupt blob: keep what was measured
        measured.problems.append(
            Problem(f"checkpoint blob is corrupt or truncated after {len(measured.channels)} channel(s) ({type(exc).__name__})", None, "size")
        )
    return measured
