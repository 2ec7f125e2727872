"""Stored sizes and content hashes of checkpoint channels, without decoding any value.

A checkpoint blob (SQLite's layout) is one msgpack map whose ``channel_values``
entry maps each channel to its serialized value. ``measure_checkpoint_blob``
walks that map with ``msgpack.Unpacker.skip``: each channel's raw byte slice is
measured and hashed, and when the value is a list or a map (``messages``,
``viewed_images``) each item is measured and hashed too. Equal hashes mean the
same payload stored again.

Measuring a history: pass the parent's measurement as ``previous``. A list or map
whose stored items begin with the parent's items, byte for byte (an append-only
conversation), reuses the parent's item sizes and walks only the new items, so a
thread costs one comparison per channel plus its new payloads.

``inspect``: called with each small stored value measured (at most ``INSPECT_MAX_BYTES``: a channel's value,
a list item, a map entry as a one-entry map) as ``(digest, raw bytes, "msgpack")``, so a caller can tell which
fingerprints belong to values it must not keep (the analysis cache: values the mask touches).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import msgpack

from .decode import CORRUPT_BLOB, Problem
from .encryption import is_encrypted
from .msgpack_containers import container_header as _container_header
from .not_utf8 import named

# a checkpoint stored as one encrypted value: sizes are measured from stored bytes and never decrypt, so they are
# the same with or without the key (and the cached facts never depend on it)
ENCRYPTED_BLOB = "checkpoint stored as one encrypted value"

# Base64 image data as it sits in serialized bytes (strings are stored verbatim in msgpack and JSON): the
# payload of a data URL, and raw base64 of PNG, JPEG, GIF and WebP files long enough to be image data.
DATA_URL_MARKER = b";base64,"
RAW_IMAGE_PREFIXES = (b"iVBORw0KGgo", b"/9j/", b"R0lGOD", b"UklGR")
RAW_IMAGE_MIN_CHARS = 200
BASE64_SCAN_MIN_BYTES = 256
_NOT_BASE64 = re.compile(rb"[^A-Za-z0-9+/=]")
INSPECT_MAX_BYTES = 1024  # the values handed to ``inspect``: a fingerprint of a longer one cannot be guessed
Inspect = Callable[[str, bytes, str], None]
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
    # each list or map channel's stored items, for measuring a child checkpoint against them
    regions: dict[str, "_Items"] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True)
class _Items:
    """A list or map channel's stored item bytes (a view into the blob), the running hash of its item
    hashes, and whether an item holds base64 image data."""

    raw: memoryview
    hashed: "hashlib._Hash"
    holds_base64: bool


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


def _walk_items(view: memoryview, kind: str, count: int, first: int, inspect: Inspect | None = None) -> list[ItemSize]:
    """``count`` items (or map entries) stored back to back in ``view``, labelled from index ``first``."""
    unpacker = _unpacker(view)
    items = []
    for index in range(first, first + count):
        if kind == "array":
            item = _skip(unpacker, view)
            item_digest = digest(item)
            items.append(ItemSize(str(index), len(item), item_digest, _item_base64(item_digest, item)))
            if inspect is not None and len(item) <= INSPECT_MAX_BYTES:
                inspect(item_digest, bytes(item), "msgpack")
            continue
        key = bytes(_skip(unpacker, view))
        value = _skip(unpacker, view)
        hashed = hashlib.sha256(key)
        hashed.update(value)
        item_digest = hashed.hexdigest()[:32]
        items.append(ItemSize(_label(key), len(key) + len(value), item_digest, _item_base64(item_digest, value)))
        if inspect is not None and len(key) + len(value) <= INSPECT_MAX_BYTES:
            inspect(item_digest, b"\x81" + key + bytes(value), "msgpack")  # the entry as a one-entry map
    return items


def _hash_items(hashed: "hashlib._Hash", items: list[ItemSize]) -> "hashlib._Hash":
    hashed.update("".join(item.digest for item in items).encode())
    return hashed


def _measure(blob: bytes, view: memoryview, start: int, end: int, previous: tuple[_Items, ChannelSize] | None = None,
             inspect: Inspect | None = None) -> tuple[ChannelSize, _Items | None]:
    """The channel value stored at ``view[start:end]``; a list or map reuses the parent's items
    when this value stores them first, byte for byte.

    A list or map is hashed from its items' hashes and its framing, so its bytes are hashed once; each
    distinct item is searched once for base64 image data.
    """
    header = _container_header(view, start) if start < end else None
    if header is None:
        raw = view[start:end]
        measured = ChannelSize(len(raw), digest(raw), holds_base64=base64_image_bytes(raw) > 0)
        if inspect is not None and len(raw) <= INSPECT_MAX_BYTES:
            inspect(measured.digest, bytes(raw), "msgpack")
        return measured, None
    kind, count, header_len = header
    body = start + header_len
    region = view[body:end]
    items: tuple[ItemSize, ...] = ()
    hashed = hashlib.sha256()
    holds = False
    if previous is not None:
        old, old_size = previous
        if len(old_size.items) <= count and blob.startswith(old.raw, body):
            items, hashed, holds = old_size.items, old.hashed.copy(), old.holds_base64
            body += len(old.raw)
    new = _walk_items(view[body:end], kind, count - len(items), len(items), inspect)
    hashed = _hash_items(hashed, new)
    holds = holds or any(item.base64_bytes for item in new)
    final = hashed.copy()
    final.update(view[start : start + header_len])
    return (ChannelSize(end - start, final.hexdigest()[:32], items + tuple(new), holds_base64=holds),
            _Items(region, hashed, holds))


def measure_checkpoint_blob(type_tag: str | None, blob: bytes | None, previous: MeasuredCheckpoint | None = None,
                            inspect: Inspect | None = None) -> MeasuredCheckpoint:
    """Per-channel stored sizes of a whole-checkpoint blob; never raises, never decodes values.

    ``previous``: the parent checkpoint's measurement; its items are reused where this
    checkpoint stores the same items first. ``inspect``: see the module's docstring.
    """
    payload = bytes(blob or b"")
    if is_encrypted(type_tag):
        problem = Problem(f"{ENCRYPTED_BLOB} ({type_tag}): its per-field sizes are inside it, so a field's size is "
                          "that of its writes", None, "size")
        return MeasuredCheckpoint({}, [problem])
    if type_tag != "msgpack":
        problem = Problem(f"per-field sizes are not available for checkpoints stored as {named(type_tag)}", None, "size")
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
                start = unpacker.tell()
                unpacker.skip()
                before = None
                if previous is not None and channel in previous.regions:
                    before = (previous.regions[channel], previous.channels[channel])
                measured.channels[channel], region = _measure(payload, view, start, unpacker.tell(), before, inspect)
                if region is not None:
                    measured.regions[channel] = region
    except Exception as exc:  # truncated or corrupt blob: keep what was measured
        measured.problems.append(
            Problem(f"{CORRUPT_BLOB} after {len(measured.channels)} channel(s) "
                    f"({type(exc).__name__})", None, "size")
        )
    return measured
