"""Content fingerprints inside cached facts, kept sealed under the cache's own key.

A fact may hold fingerprints of stored values (a field's or an item's content hash, an image entry's), so that
two checkpoints storing the same payload compare equal. A bare hash of a short value can be checked against a
list of guesses; so the cache never holds one. An encoder wraps each fingerprint in ``Fingerprint``; the cache
packs the fact with a ``FactSealer`` made for the fact's place (store, thread, kind, namespace, checkpoint) under
its per-cache key (``new_key``: 32 random bytes, kept where only the user can read it). The fact's own key is
HMAC-SHA256 of its place under the cache's key; its fingerprints, in the order they are packed, are XOR-ed with
the keystream SHAKE-256 draws from that key, after four zero bytes that tell a fingerprint sealed under another
key (or for another place) from one sealed here, so the file alone neither confirms a guess nor shows which payloads
repeat; read back, each is the very text the
encoder wrapped, and every comparison (repeated payloads, unchanged fields, image spans) works as without a
cache. What the mask touches has no fingerprint at all: the encoders leave it out (``sizes.cached``,
``profiles.deerflow.files.image_facts``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from typing import Any

import msgpack

SEALED = 5  # msgpack ext code of a sealed fingerprint
_HEX = re.compile(r"(?:[0-9a-f]{2})*")
_AS_HEX, _AS_TEXT = b"\x00", b"\x01"
_CHECK = bytes(4)  # leads every sealed fingerprint: under another key it reads back as anything else but 1 in 2**32


def new_key() -> bytes:
    """A fresh per-cache key."""
    return os.urandom(32)


def marks_key(cache_key: bytes) -> bytes:
    """The key the redaction marks are made with while this cache is open (``redaction.use_marks_key``):
    derived from the cache's own, so the cache's key is not itself used for anything shown."""
    return hmac.new(cache_key, b"state-inspector redaction marks", hashlib.sha256).digest()


class Fingerprint:
    """A content fingerprint in a fact (any text; hex is stored in half the bytes), sealed when stored."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return f"Fingerprint({self.text!r})"


class WrongShape(ValueError):
    """A stored fact that cannot be read back as its encoder wrote it (a miss, never an error)."""


class FactSealer:
    """Packs and unpacks the facts of one place, sealing their fingerprints (see the module's docstring)."""

    def __init__(self, key: bytes, place: tuple[str, ...]) -> None:
        self._key = hmac.digest(key, "\x1f".join(place).encode("utf-8", "surrogatepass"), "sha256")
        self._stream = b""
        self._used = 0

    def _pad(self, n: int) -> bytes:
        """The next ``n`` bytes of the fact's keystream."""
        end = self._used + n
        if end > len(self._stream):
            self._stream = hashlib.shake_256(self._key).digest(max(2 * end, 256))
        pad, self._used = self._stream[self._used : end], end
        return pad

    def _xor(self, data: bytes) -> bytes:
        pad = self._pad(len(data))
        return (int.from_bytes(data, "big") ^ int.from_bytes(pad, "big")).to_bytes(len(data), "big")

    def _seal(self, obj: Any) -> Any:
        if not isinstance(obj, Fingerprint):
            raise TypeError(f"a fact cannot hold {type(obj).__name__}")
        text = obj.text
        plain = _AS_HEX + bytes.fromhex(text) if _HEX.fullmatch(text) else _AS_TEXT + text.encode("utf-8", "surrogatepass")
        return msgpack.ExtType(SEALED, self._xor(_CHECK + plain))

    def _unseal(self, code: int, data: bytes) -> str:
        if code != SEALED or not data:
            raise WrongShape(f"ext type {code} in a fact")
        plain = self._xor(data)
        if plain[: len(_CHECK)] != _CHECK:
            raise WrongShape("a fingerprint sealed under another key")
        plain = plain[len(_CHECK) :]
        if plain[:1] == _AS_HEX:
            return plain[1:].hex()
        if plain[:1] == _AS_TEXT:
            return plain[1:].decode("utf-8", "surrogatepass")
        raise WrongShape("a fingerprint sealed under another key")

    def pack(self, value: Any) -> bytes:
        return msgpack.packb(value, use_bin_type=True, default=self._seal)

    def unpack(self, raw: Any) -> Any:
        """The fact, fingerprints as text; ``WrongShape`` when the stored bytes are not a fact this cache wrote."""
        if not isinstance(raw, (bytes, bytearray, memoryview)):
            raise WrongShape(f"a fact stored as {type(raw).__name__}")
        raw = bytes(raw)
        self._stream = hashlib.shake_256(self._key).digest(max(len(raw), 256))  # more than its fingerprints use
        try:
            return msgpack.unpackb(raw, raw=False, strict_map_key=False, use_list=True, ext_hook=self._unseal)
        except WrongShape:
            raise
        except Exception as exc:  # truncated, extra data, too deep, not msgpack: all the same to a reader
            raise WrongShape(f"a fact that does not unpack ({type(exc).__name__})") from None
