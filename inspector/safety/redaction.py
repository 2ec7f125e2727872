"""Secrets masked before a value leaves the core: one set of rules for pages, downloads, the CLI and caches.

A ``Redactor`` replaces what looks like a secret with a marker that keeps its
kind, its length class and a short keyed hash, ``[redacted api-key · ~50 chars ·
#a1b2c3]``, so two redacted values can still be compared while the rest of the
text stays readable. What it masks:

- key shapes anywhere in text: OpenAI ``sk-``/``sk-proj-``, Anthropic ``sk-ant-``,
  AWS ``AKIA…``, GitHub ``ghp_``/``github_pat_``/``gho_``…, Slack ``xox?-``, Google
  ``AIza…``, Stripe ``sk_live_``…, Hugging Face ``hf_``, JWTs, ``Bearer``/``Basic``
  credentials, PEM private keys, the password in ``scheme://user:password@host``;
- values named like secrets: under a key such as ``api_key``, ``authorization``,
  ``password``, ``secret``, ``token``, ``access_token``, ``client_secret`` in data,
  and ``NAME=value`` / ``"name": "value"`` in text (``max_tokens`` or
  ``token_usage`` are not such names);
- the operator's own patterns (setting ``redact_patterns``; a pattern with a
  group masks only its first group).

Identifiers (thread, checkpoint and task ids, namespaces) are left alone so
what is shown stays navigable. ``redact`` keeps types (dataclasses, dicts,
lists, tuples) and returns the very same object when nothing in it changed, so
a redacted copy of a large state shares every untouched part with the original.
Computations (diffs, replay) run on raw values; only their results are redacted.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

MARK_PREFIX = "[redacted "

# Record members that name things rather than hold values: never masked.
IDENTIFIER_FIELDS = frozenset({
    "thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "before_id", "after_id",
    "newest_checkpoint_id", "task_id", "task_path", "ns", "before_thread_id",
})
# Members of a record that names a field or channel (``field``/``channel``): labels, not the value.
LABEL_FIELDS = IDENTIFIER_FIELDS | {
    "field", "channel", "reducer", "status", "kind", "node", "written", "internal", "type", "size", "idx",
    "step", "source", "changed",
}

_SECRET_WORDS = (
    r"api[_-]?key|apikey|x[_-]api[_-]key|access[_-]?key(?:[_-]?id)?|secret[_-]?access[_-]?key|secret[_-]?key|"
    r"private[_-]?key|client[_-]?secret|password|passwd|passphrase|secret|token|access[_-]?token|"
    r"refresh[_-]?token|id[_-]?token|auth[_-]?token|session[_-]?token|authorization|proxy[_-]?authorization|"
    r"credentials?|cookie|set[_-]cookie|dsn|connection[_-]?string"
)
# A key is secret when it *ends* with one of the words (``OPENAI_API_KEY``, ``db.password``), not when it
# merely contains one (``max_tokens``, ``token_usage``, ``secretary``).
_SECRET_KEY = re.compile(rf"(?:.*[^a-z0-9])?(?:{_SECRET_WORDS})", re.IGNORECASE)


def is_secret_key(name: Any) -> bool:
    """True for a mapping key whose value is a secret by its name."""
    return isinstance(name, str) and len(name) <= 100 and _secret_name(name)


@lru_cache(maxsize=4096)
def _secret_name(name: str) -> bool:
    return _SECRET_KEY.fullmatch(name.strip()) is not None


@dataclass(frozen=True)
class Rule:
    """A text shape to mask: ``kind`` names it in the marker; ``group`` is the part masked (0: all).

    ``triggers``: substrings (compared ignoring case) one of which every match contains, so a text
    holding none of them is not scanned for this shape at all.
    """

    kind: str
    pattern: re.Pattern[str]
    group: int = 0
    triggers: tuple[str, ...] = ()


_B = r"(?<![A-Za-z0-9_-])"  # not inside a longer token
_E = r"(?![A-Za-z0-9_-])"
BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("private-key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.DOTALL),
        triggers=("private key-----",)),
    Rule("url-password", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@?#]{0,200}:([^\s@/?#]{1,200})@"), 1,
         triggers=("://",)),
    # a bearer credential: 16+ token characters, at least one of them not a letter (not an English word)
    Rule("bearer-token", re.compile(
        r"\b(?:[Bb]earer|BEARER)\s+((?=[A-Za-z._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{16,})"), 1,
        triggers=("bearer",)),
    Rule("jwt", re.compile(_B + r"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"), triggers=("eyj",)),
    Rule("api-key", re.compile(
        _B + r"(?:sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"
        r"|(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}"
        r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"
        r"|xox[baprse]-[A-Za-z0-9-]{10,}"
        r"|AIza[0-9A-Za-z_-]{35}"
        r"|[sr]k_(?:live|test)_[0-9A-Za-z]{16,}"
        r"|hf_[A-Za-z0-9]{30,})" + _E),
        triggers=("sk-", "akia", "asia", "abia", "acca", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox",
                  "aiza", "k_live_", "k_test_", "hf_")),
    # NAME=value, NAME: value, "name": "value" (the value only; the name stays readable)
    Rule("secret", re.compile(
        rf"(?<![A-Za-z0-9])(?P<name>{_SECRET_WORDS})(?![A-Za-z0-9])[\"']?\s*[:=]\s*"
        r"(?:\"(?P<dq>[^\"\n]{1,500})\"|'(?P<sq>[^'\n]{1,500})'"
        r"|(?!(?:(?:Bearer|Basic|Token)\s+)?\[redacted )(?P<bare>(?:(?:Bearer|Basic|Token)\s+)?[^\s\"',;&}<>)\]]{1,500}))",
        re.IGNORECASE),
        triggers=("key", "secret", "pass", "token", "auth", "credential", "cookie", "dsn", "connection")),
)
_TRIGGERS: tuple[tuple[str, int], ...] = tuple((t, i) for i, r in enumerate(BUILTIN_RULES) for t in r.triggers)
# Every built-in shape is at least 16 characters long or holds one of these: shorter texts without them
# (keys, ids, labels, most values in a state) are not scanned.
_SHORT = 16
_NEEDS = re.compile(r"[:=\s]")

# Strings longer than this that hold nothing but base64 (an image payload) are data, not credentials:
# they are not scanned (every key shape above is far shorter, and a JWT has dots).
_BLOB_MIN = 4096
_BLOB = re.compile(r"[A-Za-z0-9+/=\r\n]*")


def length_class(n: int) -> str:
    """``~40 chars``: the length rounded, so a marker does not give the exact length away."""
    if n < 10:
        return "<10 chars"
    if n < 100:
        return f"~{round(n, -1)} chars"
    digits = len(str(n)) - 2
    return f"~{round(n, -digits):,} chars"


class Redactor:
    """Masks secrets in text and in decoded values. ``enabled=False`` passes everything through (reveal)."""

    def __init__(self, patterns: Iterable[str] = (), hash_key: bytes | str | None = None, enabled: bool = True):
        self.enabled = enabled
        self.rules: tuple[Rule, ...] = tuple(operator_rules(patterns))  # the operator's, after the built-in ones
        key = hash_key.encode() if isinstance(hash_key, str) else hash_key
        self._key = key or _PROCESS_KEY

    # -- text ------------------------------------------------------------------
    def mark(self, kind: str, secret: str) -> str:
        digest = hmac.new(self._key, secret.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:6]
        return f"[redacted {kind} · {length_class(len(secret))} · #{digest}]"

    def text(self, text: str) -> str:
        """``text`` with every secret shape masked; the rest unchanged."""
        if not self.enabled or not text:
            return text
        if len(text) >= _BLOB_MIN:
            if _BLOB.fullmatch(text):
                return text
            if text.startswith("data:") and ";base64," in text[:200]:  # a data URL: only its header is text
                head, _, payload = text.partition(",")
                if _BLOB.fullmatch(payload):
                    masked = self._scan(head)
                    return text if masked is head else masked + "," + payload
        return self._scan(text)

    def _scan(self, text: str) -> str:
        if len(text) >= _SHORT or _NEEDS.search(text):
            lowered = text.lower()
            # in their order: an earlier shape's mark is not scanned again
            for index in sorted({i for trigger, i in _TRIGGERS if trigger in lowered}):
                rule = BUILTIN_RULES[index]
                text = rule.pattern.sub(lambda m, r=rule: self._replace(r, m), text)
        for rule in self.rules:
            text = rule.pattern.sub(lambda m, r=rule: self._replace(r, m), text)
        return text

    def _replace(self, rule: Rule, match: re.Match[str]) -> str:
        group: int | str = rule.group
        kind = rule.kind
        if "name" in match.re.groupindex:  # NAME=value: the value is masked, as what its name says it is
            group = next(g for g in ("dq", "sq", "bare") if match.group(g) is not None)
            kind = _kind_for(match.group("name"))
        secret = match.group(group)
        if not secret or secret.startswith(MARK_PREFIX):
            return match.group(0)
        start, end = match.span(group)
        whole_start = match.start(0)
        whole = match.group(0)
        return whole[: start - whole_start] + self.mark(kind, secret) + whole[end - whole_start:]

    def file(self, data: bytes) -> bytes:
        """A file's bytes for a download: UTF-8 text masked like any text, other bytes unchanged."""
        if not self.enabled:
            return data
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return data
        masked = self.text(text)
        return data if masked is text else masked.encode("utf-8")

    def whole(self, kind: str, value: Any) -> Any:
        """A scalar held under a secret name, masked as a whole (``None``, booleans and ``""`` stay)."""
        if not self.enabled or value is None or isinstance(value, bool) or value == "":
            return value
        if isinstance(value, str) and value.startswith(MARK_PREFIX):
            return value
        if isinstance(value, (str, int, float)):
            return self.mark(kind, str(value))
        if isinstance(value, (bytes, bytearray)):
            return self.mark(kind, bytes(value).hex())
        return value

    # -- values ----------------------------------------------------------------
    def __call__(self, obj: Any, keys: bool = True) -> Any:
        """``obj`` with secrets masked, same types; the same object when nothing changed.

        ``keys=False`` applies the text shapes only (for computed reports, whose mapping
        keys are field names and whose values are byte counts).
        """
        if not self.enabled:
            return obj
        return _Walk(self, keys).value(obj, forced=None)


class _Walk:
    def __init__(self, redactor: Redactor, keys: bool) -> None:
        self.r = redactor
        self.keys = keys
        self.seen: dict[int, Any] = {}

    def value(self, obj: Any, forced: str | None) -> Any:
        if isinstance(obj, str):
            return self.r.whole(forced, obj) if forced else self.r.text(obj)
        if obj is None or isinstance(obj, (bool, int, float, bytes, bytearray)):
            return self.r.whole(forced, obj) if forced else obj
        ident = id(obj)
        if ident in self.seen:
            return self.seen[ident]
        self.seen[ident] = obj  # a cycle resolves to the original object
        result = self._container(obj, forced)
        self.seen[ident] = result
        return result

    def _container(self, obj: Any, forced: str | None) -> Any:
        if isinstance(obj, dict):
            return self._mapping(obj, forced)
        if isinstance(obj, (list, tuple, set, frozenset)):
            items = [self.value(v, forced) for v in obj]
            if all(a is b for a, b in zip(items, obj)):
                return obj
            return type(obj)(items) if not isinstance(obj, tuple) or type(obj) is tuple else type(obj)(*items)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            return self._record(obj, forced)
        if type(obj).__name__ == "DataFrame" and type(obj).__module__.startswith("pandas"):
            return obj.map(lambda v: self.value(v, forced) if isinstance(v, str) else v)
        return obj

    def _mapping(self, obj: dict, forced: str | None) -> dict:
        label = self._sensitive_label(obj.get("field"), obj.get("channel")) if not forced else None
        changed = False
        out = {}
        for key, item in obj.items():
            new_key = self.r.text(key) if isinstance(key, str) and not forced else key
            if isinstance(key, str) and key in IDENTIFIER_FIELDS:
                new = item
            elif forced:
                new = self.value(item, forced)
            elif self.keys and is_secret_key(key):
                new = self.value(item, _kind_for(key))
            elif label and key not in LABEL_FIELDS:
                new = self.value(item, label)
            else:
                new = self.value(item, None)
            changed |= new is not item or new_key is not key
            out[new_key] = new
        return out if changed else obj

    def _record(self, obj: Any, forced: str | None) -> Any:
        label = None
        if not forced:
            label = self._sensitive_label(getattr(obj, "field", None), getattr(obj, "channel", None))
        changes = {}
        for f in dataclasses.fields(obj):
            if f.name in IDENTIFIER_FIELDS:
                continue
            item = getattr(obj, f.name)
            kind = forced or (label if label and f.name not in LABEL_FIELDS else None)
            new = self.value(item, kind)
            if new is not item:
                changes[f.name] = new
        if not changes:
            return obj
        clone = copy.copy(obj)
        for name, new in changes.items():
            object.__setattr__(clone, name, new)
        return clone

    def _sensitive_label(self, *names: Any) -> str | None:
        """A record that names a secret field or channel holds that secret's value."""
        if not self.keys:
            return None
        return next((_kind_for(n) for n in names if is_secret_key(n)), None)


def _kind_for(key: str) -> str:
    lowered = key.lower()
    for word, kind in (("password", "password"), ("passwd", "password"),
                       ("passphrase", "password"), ("authorization", "authorization"), ("key", "api-key"),
                       ("token", "token"), ("cookie", "cookie"), ("dsn", "connection-string"),
                       ("connection", "connection-string")):
        if word in lowered:
            return kind
    return "secret"


def operator_rules(patterns: Iterable[str]) -> list[Rule]:
    """The operator's ``redact_patterns`` as rules; a bad regex raises ``ValueError`` naming it."""
    rules = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"setting redact_patterns: {pattern!r} is not a valid regular expression ({exc})") from None
        rules.append(Rule("pattern", compiled, 1 if compiled.groups else 0))
    return rules


# Without a configured ``redact_hash_key`` the marks' hashes are keyed per process: equal values still
# compare equal on one screen or in one output, and a short hash of a weak password cannot be looked up.
_PROCESS_KEY = os.urandom(32)


@lru_cache(maxsize=8)
def _cached(patterns: tuple[str, ...], hash_key: str | None, enabled: bool) -> Redactor:
    return Redactor(patterns, hash_key, enabled)


def redactor_for(settings: Any | None = None, reveal: bool = False) -> Redactor:
    """The redactor the settings ask for; ``reveal`` turns it off only where ``allow_reveal`` is set."""
    if settings is None:
        from ..settings import load_settings

        settings = load_settings()
    if reveal and not getattr(settings, "allow_reveal", False):
        raise PermissionError("revealing secrets is turned off (set allow_reveal to allow it)")
    return _cached(tuple(getattr(settings, "redact_patterns", ()) or ()), getattr(settings, "redact_hash_key", None),
                   not reveal)


def redact(obj: Any, settings: Any | None = None, keys: bool = True) -> Any:
    """``obj`` with secrets masked by the settings' rules (see ``Redactor``)."""
    return redactor_for(settings)(obj, keys=keys)


def redact_text(text: str, settings: Any | None = None) -> str:
    """One string with secrets masked (for anything stored or logged as text, e.g. an analysis cache)."""
    return redactor_for(settings).text(text)
