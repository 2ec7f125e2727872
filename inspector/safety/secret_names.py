"""Which names hold a secret: a mapping key, or the ``NAME`` of ``NAME=value`` in text, read as people write it.

Used by the redaction rules (``safety.redaction``, ``safety.value_masking``), which also name a mark's kind
from it (``secret_kind``), and by bundle masking; imports nothing of inspector/.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# A name holds a secret when its LAST words say so, with words split at ``_ - . :`` and spaces and at
# camelCase humps (``dbPassword``, ``openaiApiKey``, ``githubToken``, ``DB_PASS``, ``x-api-key``), or when a
# name written run-together ends with a long secret word (``PGPASSWORD``, ``apikey``). Names that merely
# contain one stay readable: ``max_tokens``, ``token_usage``, ``passage``, ``compass``, ``bypass``,
# ``passport``, ``password_policy_url``, ``tokenizer``, ``monkey``.
_LAST_WORDS = frozenset({
    "password", "passwd", "passphrase", "pass", "pwd", "secret", "token", "authorization", "credential",
    "credentials", "cookie", "dsn", "apikey", "accesskey", "secretkey", "privatekey",
})
# ``key`` after one of these (``api_key``, ``secretKey``, ``AWS_SECRET_ACCESS_KEY``), and ``key id`` after ``access``
_KEY_QUALIFIERS = frozenset({"api", "secret", "private", "access", "signing", "encryption", "master", "client"})
# a run-together name's ending (``pass`` and ``key`` alone are too short: ``compass``, ``monkey``)
_RUN_TOGETHER = ("password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "accesskey", "secretkey",
                 "privatekey", "accesskeyid", "credentials", "credential", "authorization", "connectionstring")
# exact names that look like secret names but name something else (the shell's working directory)
_NOT_SECRET = frozenset({"PWD", "OLDPWD"})
NAME_TAIL = 100  # characters of a name read for its last words
_NAME_PARTS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(name: str) -> list[str]:
    """``name`` split into lower-case words at separators and camelCase humps (``"dbPassword"`` -> db, password)."""
    return [w.lower() for w in _NAME_PARTS.findall(name)]


def is_secret_key(name: Any) -> bool:
    """True for a mapping key whose value is a secret by its name (``bytes`` names are read as UTF-8)."""
    if isinstance(name, (bytes, bytearray)):
        try:
            name = bytes(name).decode("utf-8")
        except UnicodeDecodeError:
            return False
    # the last words decide, so a long name is read by its end (``setting_…_db_password``, of any length)
    return isinstance(name, str) and _secret_name(name[-NAME_TAIL:] if len(name) > NAME_TAIL else name)


@lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    name = name.strip()
    if name in _NOT_SECRET:
        return False
    words = name_words(name)
    if not words:
        return False
    last = words[-1]
    if last in _LAST_WORDS:
        return True
    before = words[-2] if len(words) > 1 else ""
    if last == "key" and before in _KEY_QUALIFIERS:
        return True
    if last == "id" and before == "key" and len(words) > 2 and words[-3] in _KEY_QUALIFIERS:
        return True
    if last == "string" and before == "connection":
        return True
    return last.endswith(_RUN_TOGETHER)


def secret_kind(key: str | bytes) -> str:
    """The kind a mark names for a secret held under ``key`` (``password``, ``api-key``, ...; ``secret`` else),
    read from its end as ``is_secret_key`` reads it."""
    if isinstance(key, (bytes, bytearray)):
        key = bytes(key).decode("utf-8", "replace")
    return _kind(key[-NAME_TAIL:] if len(key) > NAME_TAIL else key)


@lru_cache(maxsize=4096)
def _kind(key: str) -> str:
    lowered = key.lower()
    if name_words(key)[-1:] == ["pass"]:
        return "password"
    for word, kind in (("password", "password"), ("passwd", "password"), ("pwd", "password"),
                       ("passphrase", "password"), ("authorization", "authorization"), ("key", "api-key"),
                       ("token", "token"), ("cookie", "cookie"), ("dsn", "connection-string"),
                       ("connection", "connection-string")):
        if word in lowered:
            return kind
    return "secret"
