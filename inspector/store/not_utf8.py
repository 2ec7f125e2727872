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
  that happens to start with a marker, is the marker followed by its bytes in hex
  (``~bytes:6261642dff``); an id stored as bytes is ``~blob:`` and its bytes. Two different ids never share a token.

Ids stored as bytes. SQLite lets raw SQL store a BLOB in any column, ids too; such a thread, namespace or
checkpoint id is another row key than the text of the same spelling (``'a' = X'61'`` is false). The SQLite
store reads it with ``from_blob``: ``BLOB`` (a lone high surrogate, which no text read with ``decode`` holds)
followed by its bytes as ``decode`` reads them, so it is a ``str`` like every other id, unequal to every text
id, and travels through histories, URLs and caches as they do. ``is_blob`` tells it apart, ``stored_bytes``
gives back its bytes (which the store binds it by, as a BLOB), ``shown`` and ``quoted`` mark it
``(stored as bytes)``. PostgreSQL's id columns are text, so no id read from it is one.
"""

from __future__ import annotations

import binascii
import reprlib

__all__ = ["BLOB", "BLOB_TOKEN_PREFIX", "BYTES_MARK", "MARK", "TOKEN_PREFIX", "decode", "from_blob", "from_token", "is_blob",
           "is_not_utf8", "named", "order_key", "quoted", "shown", "spelled", "stored_bytes", "token"]

MARK = " (not UTF-8)"
BYTES_MARK = " (stored as bytes)"
TOKEN_PREFIX = "~bytes:"
BLOB_TOKEN_PREFIX = "~blob:"
BLOB = "\ud800"  # leads an id stored as bytes (``from_blob``); ``decode`` never makes this character
QUOTED_LONGEST = 200  # an id longer than this is cut in a message, its length said


def decode(raw: bytes) -> str:
    """Stored text as ``str``: valid UTF-8 as it is, each other byte as a lone surrogate (lossless)."""
    return raw.decode("utf-8", "surrogateescape")


def from_blob(raw: bytes) -> str:
    """An id a table holds as bytes (a SQLite BLOB), as the store names it: ``BLOB`` and the bytes as ``decode``
    reads them."""
    return BLOB + decode(bytes(raw))


def is_blob(text: object) -> bool:
    """Whether ``text`` is an id stored as bytes (``from_blob``)."""
    return type(text) is str and text[:1] == BLOB


def is_not_utf8(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (read from bytes that are not UTF-8, an id stored as bytes, or otherwise
    unencodable): no UTF-8 text spells it, so it is bound, written and named by its bytes."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def stored_bytes(text: str) -> bytes:
    """The bytes ``text`` was read from (its UTF-8; a lone surrogate of ``decode`` back as its byte; an id stored as
    bytes, those bytes)."""
    if is_blob(text):
        text = text[1:]
    return text.encode("utf-8", "surrogateescape" if _escaped_only(text) else "surrogatepass")


def order_key(text: str) -> tuple[int, bytes]:
    """A sort key giving ids the order SQLite's BINARY collation gives them: text by its stored bytes, then ids stored
    as bytes (BLOBs) by theirs."""
    return (1 if is_blob(text) else 0), stored_bytes(text)


def _escaped_only(text: str) -> bool:
    return all(not 0xD800 <= ord(c) < 0xDC80 for c in text if 0xD800 <= ord(c) < 0xE000)


def shown(text: str, stored_as_bytes: bool = False, cut: bool = False) -> str:
    """``text`` for a person: itself when it is UTF-8; else its bad bytes as ``\\xHH``, marked ``(not UTF-8)``.
    ``stored_as_bytes``: the text was read from a BLOB (bytea) value, marked ``(stored as bytes)`` as well.
    ``cut`` (an id on a line that lists ids): over ``QUOTED_LONGEST`` characters, its head and its length, as
    ``quoted`` cuts it (``LLLL… (10,000 characters)``). An id stored as bytes (``from_blob``) is marked so, and so
    is a line naming one (its ``BLOB`` lead left out)."""
    if BLOB in text:
        text, stored_as_bytes = text.replace(BLOB, ""), True
    bad = is_not_utf8(text)
    body = escaped(text) if bad else text
    if cut and len(text) > QUOTED_LONGEST:
        body = escaped(_head(text)) + "… " + _length(text)
    if stored_as_bytes:
        return body + (" (not UTF-8, stored as bytes)" if bad else BYTES_MARK)
    return body + MARK if bad else body


def escaped(text: str) -> str:
    """Every lone surrogate of ``text`` as ``\\xHH`` (the byte it was read from) or ``\\udXXX``; no mark (an id stored
    as bytes: its bytes so spelled)."""
    text = text.replace(BLOB, "")
    return "".join(_escape(c) if 0xD800 <= ord(c) < 0xE000 else c for c in text)


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code - 0xDC00:02x}" if code >= 0xDC80 else f"\\u{code:04x}"


def quoted(text: str) -> str:
    """``text`` (an id) as a message names it: ``'id'``; text that is not UTF-8 as ``'bad-\\xff' (not UTF-8)``;
    every character that is not printable (C0 and C1 controls, DEL, bidi and other format characters, line
    separators) escaped as ``repr`` escapes it; over ``QUOTED_LONGEST`` characters, its head and its length."""
    text, mark = _marked(str(text))
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
    spells it without quotes or cut: ``sub-\\xfe (not UTF-8)``, a control or bidi character as its escape; an id stored
    as bytes marked so."""
    text, mark = _marked(text)
    return _printable(text) + mark


def _marked(text: str) -> tuple[str, str]:
    """``text`` without the ``BLOB`` lead (of the id it is, or of one it names, as a label built from an id does), and
    the mark it is shown with: ``(not UTF-8)``, ``(stored as bytes)``, both, or none."""
    blob = BLOB in text
    if blob:
        text = text.replace(BLOB, "")
    bad = is_not_utf8(text)
    if blob:
        return text, " (not UTF-8, stored as bytes)" if bad else BYTES_MARK
    return text, MARK if bad else ""


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
    if is_blob(text):
        return BLOB_TOKEN_PREFIX + stored_bytes(text).hex()
    if text.startswith((TOKEN_PREFIX, BLOB_TOKEN_PREFIX)) or is_not_utf8(text):
        return TOKEN_PREFIX + stored_bytes(text).hex()
    return text


def from_token(text: str) -> str:
    """The text a ``token`` spells (a value that is no token, or no whole hex after the marker, as it is)."""
    prefix = TOKEN_PREFIX if text.startswith(TOKEN_PREFIX) else BLOB_TOKEN_PREFIX if text.startswith(BLOB_TOKEN_PREFIX) else ""
    if not prefix:
        return text
    try:
        raw = binascii.unhexlify(text[len(prefix):])
    except (binascii.Error, ValueError):
        return text
    return from_blob(raw) if prefix == BLOB_TOKEN_PREFIX else decode(raw)
