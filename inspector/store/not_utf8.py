"""Ids (and other text) a store holds as text that is not UTF-8, read losslessly and named without collisions.

SQLite lets raw SQL store any bytes as TEXT, so a planted thread, namespace or checkpoint id may not be
UTF-8. The SQLite store reads text columns with ``decode`` (``surrogateescape``): each byte that is not
part of valid UTF-8 becomes one lone surrogate (U+DC80..U+DCFF), so the Python ``str`` of such an id
differs from every valid UTF-8 id (``victim`` + 0xFF is never equal to the real id ``victim\\xff``), and
``stored_bytes`` gives back exactly the stored bytes, which the store binds such an id by. PostgreSQL text
cannot hold such bytes; every function here is the identity on valid text.

How such a text leaves the core:

- ``shown(text)``: for people (pages, tables): the bad bytes as ``\\xff`` and the text marked
  ``(not UTF-8)``, so it can never be mistaken for a real id spelled with a backslash. An id a table holds
  as bytes (a SQLite BLOB, a PostgreSQL ``bytea``), read with ``decode``, is ``shown(text, stored_as_bytes=True)``:
  marked ``(stored as bytes)`` (``(not UTF-8, stored as bytes)``), since in SQLite it is another row key
  than the text of the same spelling (``'a' = X'61'`` is false).
- ``quoted(text)``: for a message that names an id (an error line, a page's error box): in quotes, spelled as
  ``shown`` spells it, ``'bad-\\xff' (not UTF-8)``, with control and invisible characters escaped (``\\x1b``,
  ``\\u202e``) so it is inert wherever the message goes, and a very long id cut, its length said.
- ``spelled(text)``: ``quoted`` without the quotes or the cut, for a short label a chart draws.
- ``named(value)``: ``quoted`` for a text, a short ``repr`` for any other value (``None``, a number).
- ``token(text)`` / ``from_token(text)``: a reversible, collision-free spelling in valid UTF-8, for URLs
  (``?thread=``), CLI arguments and cache keys. Valid text is itself; text that is not UTF-8, and valid text
  that happens to start with the marker, is the marker followed by its bytes in hex
  (``~bytes:6261642dff``). Two different ids never share a token.
"""

from __future__ import annotations

import binascii
import reprlib

__all__ = ["BYTES_MARK", "MARK", "TOKEN_PREFIX", "decode", "from_token", "is_not_utf8", "named", "quoted", "shown",
           "spelled", "stored_bytes", "token"]

MARK = " (not UTF-8)"
BYTES_MARK = " (stored as bytes)"
TOKEN_PREFIX = "~bytes:"
QUOTED_LONGEST = 200  # an id longer than this is cut in a message, its length said


def decode(raw: bytes) -> str:
    """Stored text as ``str``: valid UTF-8 as it is, each other byte as a lone surrogate (lossless)."""
    return raw.decode("utf-8", "surrogateescape")


def is_not_utf8(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (read from bytes that are not UTF-8, or otherwise unencodable)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def stored_bytes(text: str) -> bytes:
    """The bytes ``text`` was read from (its UTF-8; a lone surrogate of ``decode`` back as its byte)."""
    return text.encode("utf-8", "surrogateescape" if _escaped_only(text) else "surrogatepass")


def _escaped_only(text: str) -> bool:
    return all(not 0xD800 <= ord(c) < 0xDC80 for c in text if 0xD800 <= ord(c) < 0xE000)


def shown(text: str, stored_as_bytes: bool = False, cut: bool = False) -> str:
    """``text`` for a person: itself when it is UTF-8; else its bad bytes as ``\\xHH``, marked ``(not UTF-8)``.
    ``stored_as_bytes``: the text was read from a BLOB (bytea) value, marked ``(stored as bytes)`` as well.
    ``cut`` (an id on a line that lists ids): over ``QUOTED_LONGEST`` characters, its head and its length, as
    ``quoted`` cuts it (``LLLL… (10,000 characters)``)."""
    bad = is_not_utf8(text)
    body = escaped(text) if bad else text
    if cut and len(text) > QUOTED_LONGEST:
        body = escaped(_head(text)) + "… " + _length(text)
    if stored_as_bytes:
        return body + (" (not UTF-8, stored as bytes)" if bad else BYTES_MARK)
    return body + MARK if bad else body


def escaped(text: str) -> str:
    """Every lone surrogate of ``text`` as ``\\xHH`` (the byte it was read from) or ``\\udXXX``; no mark."""
    return "".join(_escape(c) if 0xD800 <= ord(c) < 0xE000 else c for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code - 0xDC00:02x}" if code >= 0xDC80 else f"\\u{code:04x}"


def quoted(text: str) -> str:
    """``text`` (an id) as a message names it: ``'id'``; text that is not UTF-8 as ``'bad-\\xff' (not UTF-8)``;
    every character that is not printable (C0 and C1 controls, DEL, bidi and other format characters, line
    separators) escaped as ``repr`` escapes it; over ``QUOTED_LONGEST`` characters, its head and its length."""
    text = str(text)
    mark = MARK if is_not_utf8(text) else ""
    if len(text) <= QUOTED_LONGEST:
        return f"'{_printable(text)}'" + mark
    return f"'{_printable(_head(text))}…' " + _length(text) + mark


def _head(text: str) -> str:
    """The part of an id longer than ``QUOTED_LONGEST`` that a message or a listing line shows."""
    return text[:QUOTED_LONGEST - 40]


def _length(text: str) -> str:
    return f"({len(text):,} characters)"


def spelled(text: str) -> str:
    """``text`` (a short label from the data: a namespace, a node's name) as a chart draws it, spelled as ``quoted``
    spells it without quotes or cut: ``sub-\\xfe (not UTF-8)``, a control or bidi character as its escape."""
    return _printable(text) + (MARK if is_not_utf8(text) else "")


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(_escape(c) if 0xD800 <= ord(c) < 0xE000 else c if c.isprintable() else repr(c)[1:-1] for c in text)


def named(value: object) -> str:
    """A value from the data or the user as a message names it: a text as ``quoted`` spells it; anything else (None,
    a number, a list where a text belongs) as a short ``repr`` (``None``, ``[1, 2, 3, ...]``), never a text's
    spelling."""
    return quoted(value) if isinstance(value, str) else reprlib.repr(value)


def token(text: str) -> str:
    """A spelling of ``text`` in valid UTF-8 that ``from_token`` turns back into it, never shared by two texts."""
    if text.startswith(TOKEN_PREFIX) or is_not_utf8(text):
        return TOKEN_PREFIX + stored_bytes(text).hex()
    return text


def from_token(text: str) -> str:
    """The text a ``token`` spells (a value that is no token, or no whole hex after the marker, as it is)."""
    if not text.startswith(TOKEN_PREFIX):
        return text
    try:
        return decode(binascii.unhexlify(text[len(TOKEN_PREFIX):]))
    except (binascii.Error, ValueError):
        return text
