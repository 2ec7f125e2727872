"""Values LangGraph's ``EncryptedSerializer`` stored: type tags ``<serializer>+<cipher>`` (``msgpack+aes``).

Without a key such a value is opaque: its tag, its stored size and that it is
encrypted are all that can be known. With the key the operator gives (the
``aes_key`` setting or LangGraph's own ``LANGGRAPH_AES_KEY``, handed here by a
key source: ``set_key_source``), a value is decrypted by LangGraph's own AES
cipher (``EncryptedSerializer.from_pycryptodome_aes``: AES in EAX mode, nonce
and tag in front of the ciphertext, authenticated), and the plaintext goes back
to the safe decoder. LangGraph's ``loads_typed`` is never called, so nothing
named by the data is imported.

The key is held only inside the cipher object: it is never part of a message,
a repr, a log line or a cached fact. Every failure is one line: no key, a key of
the wrong length, pycryptodome not installed, an unknown cipher, a value too
short to be ciphertext, or a value that does not decrypt with the key given
(a wrong key, or a damaged value).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

KEY_ENV = "LANGGRAPH_AES_KEY"
AES_CIPHER = "aes"
AES_KEY_LENGTHS = (16, 24, 32)
EAX_OVERHEAD = 32  # LangGraph stores nonce (16 bytes) + tag (16 bytes) before the ciphertext

# Problem kinds: no key to read the value with; a key was given but the value did not decrypt
ENCRYPTED = "encrypted"
UNDECRYPTED = "undecrypted"
WRONG_KEY = "does not decrypt with the AES key given"
KEY_HINT = "give the store's AES key (setting aes_key, or LANGGRAPH_AES_KEY) to read it"

KeySource = Callable[[], "str | bytes | None"]


def _environment_key() -> str | None:
    return os.environ.get(KEY_ENV) or None


_source: list[KeySource] = [_environment_key]
_lock = threading.Lock()
_resolved: dict[str, Any] = {}


def set_key_source(source: KeySource) -> None:
    """Where the AES key comes from (called once, on the first encrypted value; ``reset`` asks again)."""
    with _lock:
        _source[0] = source
        _resolved.clear()


def reset() -> None:
    """Forget the cipher built from the key, so the next encrypted value asks the key source again."""
    with _lock:
        _resolved.clear()


@dataclass(frozen=True)
class Decrypted:
    """The plaintext of one encrypted value and the serializer tag it was written with, or why there is none
    (``reason``, one line; ``kind``: ``ENCRYPTED`` when no key was given, ``UNDECRYPTED`` otherwise)."""

    base: str
    plaintext: bytes | None = None
    reason: str = ""
    kind: str = ""
    why: str = ""  # the reason without the value's name: "a wrong key, or a damaged value"


def split_tag(type_tag: str) -> tuple[str, str]:
    """``("msgpack", "aes")`` for ``msgpack+aes``: the serializer's tag and the cipher's name, split as LangGraph does."""
    base, _, cipher = type_tag.partition("+")
    return base, cipher


def is_encrypted(type_tag: str | None) -> bool:
    return isinstance(type_tag, str) and "+" in type_tag


class _Cipher:
    """LangGraph's AES cipher for one key; holds the key and never shows it."""

    __slots__ = ("_cipher",)

    def __init__(self, cipher: Any) -> None:
        self._cipher = cipher

    def __repr__(self) -> str:
        return "<AES cipher>"

    def decrypt(self, ciphertext: bytes) -> bytes:
        return self._cipher.decrypt(AES_CIPHER, ciphertext)


def _build() -> tuple[_Cipher | None, str]:
    """The cipher for the key the source gives, or (None, why not)."""
    try:
        key = _source[0]()
    except Exception as exc:  # noqa: BLE001 - a key source that fails is a missing key, said in one line
        return None, f"the AES key could not be read ({type(exc).__name__}); {KEY_HINT}"
    if not key:
        return None, ""
    raw = key.encode() if isinstance(key, str) else bytes(key)
    if len(raw) not in AES_KEY_LENGTHS:
        return None, (f"the AES key given is {len(raw)} bytes long; LangGraph's AES keys are 16, 24 or 32 bytes, "
                      "so values stay encrypted")
    try:
        from langgraph.checkpoint.serde.encrypted import EncryptedSerializer

        serializer = EncryptedSerializer.from_pycryptodome_aes(key=raw)
    except ImportError:
        return None, "decrypting needs pycryptodome (pip install pycryptodome), which is not installed"
    return _Cipher(serializer.cipher), ""


def _cipher() -> tuple[_Cipher | None, str]:
    with _lock:
        if "cipher" not in _resolved:
            _resolved["cipher"], _resolved["why"] = _build()
        return _resolved["cipher"], _resolved["why"]


def left_encrypted(problems: Iterable[Any]) -> bool:
    """Whether a decoded value stayed encrypted (no key, or one that did not decrypt it), by its problems: a fact
    computed from such a state would differ once the key is given, so it is never kept in the analysis cache."""
    return any(getattr(p, "kind", None) in (ENCRYPTED, UNDECRYPTED) for p in problems)


def key_given() -> bool:
    """Whether a usable key was given (the cipher is built from it)."""
    return _cipher()[0] is not None


_MET = [0]  # encrypted values met by this process (``encrypted_met``)


def encrypted_met() -> int:
    """How many encrypted values this process has met so far: a reader compares the count before and after
    reading to know whether what it read was stored encrypted (whatever the key made of it), and keeps none of
    it where it persists text (the thread search's index)."""
    return _MET[0]


def decrypt(type_tag: str, payload: bytes) -> Decrypted:
    """The plaintext of ``payload`` stored under ``type_tag`` (``msgpack+aes``), or why it stays encrypted."""
    _MET[0] += 1
    base, cipher_name = split_tag(type_tag)
    cipher, why = _cipher()
    if cipher is None:
        kind = UNDECRYPTED if why else ENCRYPTED
        why = why or KEY_HINT
        return Decrypted(base, reason=f"encrypted value ({type_tag}) shown as opaque: {why}", kind=kind, why=why)
    if cipher_name != AES_CIPHER:
        why = "the cipher is not AES, the only one LangGraph ships"
        return Decrypted(base, reason=f"encrypted value ({type_tag}) shown as opaque: {why}", kind=UNDECRYPTED, why=why)
    if len(payload) < EAX_OVERHEAD:
        why = f"{len(payload)} bytes, shorter than the {EAX_OVERHEAD} bytes of nonce and tag"
        return Decrypted(base, reason=f"encrypted value ({type_tag}) is not valid ciphertext: {why}", kind=UNDECRYPTED,
                         why=f"not valid ciphertext: {why}")
    try:
        return Decrypted(base, cipher.decrypt(payload))
    except (ValueError, KeyError, TypeError):  # the MAC check failed (or pycryptodome refused the input)
        why = f"it {WRONG_KEY}: a wrong key, or a damaged value"
        return Decrypted(base, reason=f"encrypted value ({type_tag}) {WRONG_KEY}: a wrong key, or a damaged value",
                         kind=UNDECRYPTED, why=why)
