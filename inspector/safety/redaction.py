"""Secrets masked before a value leaves the core: one set of rules for pages, downloads, the CLI and caches.

A ``Redactor`` replaces what looks like a secret with a marker that keeps its
kind, its length class and a short keyed hash, ``[redacted api-key · ~50 chars ·
#a1b2c3]``, so two redacted values can still be compared while the rest of the
text stays readable. What it masks:

- key shapes anywhere in text: OpenAI ``sk-``/``sk-proj-``, Anthropic ``sk-ant-`` (also right after a hyphen
  or an underscore, ``user-sk-proj-…``, when the key's random part holds a capital and a digit),
  AWS ``AKIA…``, GitHub ``ghp_``/``github_pat_``/``gho_``…, Slack ``xox?-``, Google
  ``AIza…``, Stripe ``sk_live_``…, Hugging Face ``hf_``, JWTs, ``Bearer``/``Basic``
  credentials, PEM private keys, the password in ``scheme://user:password@host`` (user and password of any
  length); a key right after a URL-encoded character (``q=%20sk-proj-…``), and a key with an invisible character
  inside (a zero-width space or joiner, a soft hyphen, a BOM, or its ``\\u200b`` escape: ``safety.invisible``);
- values named like secrets: under a key whose last words say so (``api_key``,
  ``authorization``, ``password``, ``secret``, ``token``, ``client_secret``, and as people
  write them: ``dbPassword``, ``openaiApiKey``, ``githubToken``, ``PGPASSWORD``,
  ``DB_PASS``, ``pwd``, ``pass``) in data, and ``NAME=value`` / ``"name": "value"`` in
  text, a name of any length read by its last words; names that only contain such a word are not
  (``max_tokens``, ``token_usage``, ``passage``, ``compass``, ``bypass``, ``passport``,
  ``password_policy_url``, ``PWD``); a bare value goes on past ``;`` or ``,`` up to the next ``name=``;
  the value of a ``["Authorization", "…"]`` pair, as data or as text;
- ``bytes`` values and keys: UTF-8 text is masked as text (and shown as text), other
  bytes that hold a secret's shape become one mark;
- the operator's own patterns (setting ``redact_patterns``; a pattern with a
  group masks only its first group).

Every rule runs in time linear in the text's length, however long the text (base64
runs and data URLs are scanned too): the shapes are patterns without nested or
overlapping repetition, and ``NAME=value`` is found from the secret word before a
separator, then the whole name around it is checked.

Thread and checkpoint ids are left alone so what is shown stays navigable. Names
from the data (a node's name, a namespace ``node:task_id``, a task path, a file's
name) are masked by ``Redactor.name``: their key shapes, never a ``:`` taken for
``NAME: value`` (``get_token:<task id>`` stays). Task paths and ids are masked so in
every value walked; namespaces only where asked (``names=True``), since the views look
checkpoints up by them and mask them where they show them. ``redact`` keeps types (dataclasses, dicts,
lists, tuples) and returns the very same object when nothing in it changed, so
a redacted copy of a large state shares every untouched part with the original;
that walk over a decoded value lives in ``value_masking``, and this module holds
the text rules and the marks.
Computations (diffs, replay) run on raw values; only their results are redacted.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from ..store.not_utf8 import named
from .invisible import Edit, Marks, fold, holds_invisible, spliced
from .secret_names import is_secret_key, secret_kind
from .value_masking import MaskingWalk

MARK_PREFIX = "[redacted "

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


# not inside a longer token; right after a URL-encoded character (``q=%20sk-proj-…``) too
_B = r"(?:(?<![A-Za-z0-9_-])|(?<=%[0-9A-Fa-f]{2}))"
# A secret word right before a separator (lower case: searched in the lower-cased text, several times faster
# than ignoring case; the rule's own pattern ignores case, for a text whose lower case changes its length); or
# the first item of a ``["Authorization", "..."]`` pair (``pair``: the quote and comma after the word).
_SECRET_WORD = (r"(?P<word>pass(?:w(?:or)?d|phrase)?|pwd|secret|token|key(?:[_-]?id)?|authorization|credentials?"
                r"|cookie|dsn|string)(?![a-z0-9])")
_NAMED_HIT = _SECRET_WORD + r"(?:[\"']?\s{0,40}[:=]|(?P<pair>[\"']\s{0,40},(?=\s{0,40}b?[\"'])))"
_NAMED_HIT_LOWER = re.compile(_NAMED_HIT)
# In a name (a node's, a namespace ``node:task_id``, a task path) only ``=`` separates: ``get_token:<task id>``
# names a task, it holds no token.
_NAME_HIT = _SECRET_WORD + r"[\"']?\s{0,40}="
_NAME_HIT_LOWER, _NAME_HIT_ANY_CASE = re.compile(_NAME_HIT), re.compile(_NAME_HIT, re.IGNORECASE)
_E = r"(?![A-Za-z0-9_-])"
BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("private-key", re.compile(
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)", re.DOTALL),
        triggers=("private key-----",)),
    # (a password already shown as ``***``, as ``store.display_url`` writes a URL, is no secret: not masked again)
    # (a user and a password of any length: each run stops at the first character it cannot hold, and the next
    # ``://`` ends both, so each character is read a bounded number of times)
    Rule("url-password", re.compile(
        r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@?#]*:(?!\*\*\*@)([^\s@/?#]+)@"), 1,
         triggers=("://",)),
    # a bearer credential: 16+ token characters, at least one of them not a letter (not an English word)
    Rule("bearer-token", re.compile(
        r"\b(?:[Bb]earer|BEARER)(?:\s+|%20)((?=[A-Za-z._~+/=-]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{16,})"), 1,
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
    # an OpenAI or Anthropic key right after a hyphen or an underscore (``user-sk-proj-…``, ``user_sk-…``: the
    # shape above holds only outside a token): its random part must show a capital and a digit within 40
    # characters, which kebab-case and snake_case words (``task-skeleton``, ``locale-sk-slovak-language-pack``,
    # ``my_sk-learn-pipeline``) do not. Each look ahead stops at the next ``sk-``,
    # where the next try starts, so a text of ``-sk-`` repeated is read about once, not 40 times.
    Rule("api-key", re.compile(
        r"(?<=[-_])sk-(?:ant-|proj-|svcacct-|admin-)?"
        r"(?=(?:[a-rt-z0-9_-]|s(?!k-)){0,40}[A-Z])(?=(?:[A-Za-rt-z_-]|s(?!k-)){0,40}[0-9])"
        r"[A-Za-z0-9_-]{20,}" + _E), triggers=("-sk-", "_sk-")),
    # NAME=value, NAME: value, "name": "value" (the value only; the name stays readable); found by
    # ``Redactor._named``: a secret word right before a separator, then the whole name around it is checked
    Rule("secret", re.compile(
        _NAMED_HIT, re.IGNORECASE),
        triggers=("key", "secret", "pass", "pwd", "token", "auth", "credential", "cookie", "dsn", "string")),
)
# The value after ``NAME=``: quoted (up to 500 characters on one line) or bare; never a mark already made. A bare
# value goes on past a ``;`` or ``,`` with more of it right after (``passwd=abc;def``), unless what follows is the
# next ``name=`` (``Password=abc;Database=app``).
_BARE = r"[^\s\"',;&}<>)\]]"
_NAMED_VALUE = re.compile(
    r"\s{0,40}(?:b?\"(?P<dq>[^\"\n]{1,500})\"|b?'(?P<sq>[^'\n]{1,500})'"
    r"|(?!(?:(?:Bearer|Basic|Token)\s+)?\[redacted )(?P<bare>(?:(?:Bearer|Basic|Token)\s+)?" + _BARE
    + r"{1,500}(?:[;,](?![A-Za-z_][A-Za-z0-9_.-]{0,60}\s?=)" + _BARE + r"{1,100}){0,5}))",
    re.IGNORECASE)
# after the value of a ``["name", "value"]`` pair: its closing bracket
_PAIR_END = re.compile(r"\s{0,40}[\])]")
_NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"
_TRIGGERS: tuple[tuple[str, int], ...] = tuple((t, i) for i, r in enumerate(BUILTIN_RULES) for t in r.triggers)
# Every built-in shape is at least 16 characters long or holds one of these: shorter texts without them
# (keys, ids, labels, most values in a state) are not scanned.
_SHORT = 16
_NEEDS = re.compile(r"[:=\s,]")

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
        self._key = key or None  # None: the marks key in force when a mark is made (``use_marks_key``)

    # -- text ------------------------------------------------------------------
    def mark(self, kind: str, secret: str) -> str:
        digest = hmac.new(self._key or _MARKS_KEY[0], secret.encode("utf-8", "surrogatepass"),
                          hashlib.sha256).hexdigest()[:6]
        return f"[redacted {kind} · {length_class(len(secret))} · #{digest}]"

    def text(self, text: str) -> str:
        """``text`` with every secret shape masked; the rest unchanged."""
        if not self.enabled or not text:
            return text
        if holds_invisible(text):
            return self._folded(text, names=False)
        return self._scan(text)

    def name(self, text: str) -> str:
        """A name from the data (a node's, a namespace ``node:task_id|…``, a task path, a file name) with the secret
        shapes in it masked, as ``text`` masks them, but for ``:``: in a name it separates a node from its task
        (``get_token:<task id>`` stays as it is), and only ``NAME=value`` names a secret's value."""
        if not self.enabled or not text:
            return text
        if holds_invisible(text):
            return self._folded(text, names=True)
        return self._scan(text, names=True)

    def _folded(self, text: str, names: bool) -> str:
        """``text`` read without its invisible characters (a key with a zero-width space inside is still a key);
        the marks made there put back in ``text`` as written, the rest of it kept (``safety.invisible``)."""
        marks = Marks()
        self._scan(fold(text), names, marks)
        return marks.unfold(text) if marks.marks else text

    def _scan(self, text: str, names: bool = False, marks: Marks | None = None) -> str:
        apply = spliced if marks is None else marks.apply
        if len(text) >= _SHORT or _NEEDS.search(text):
            original, lowered = text, text.lower()
            # in their order: an earlier shape's mark is not scanned again
            for index in sorted({i for trigger, i in _TRIGGERS if trigger in lowered}):
                rule = BUILTIN_RULES[index]
                if rule.kind == "secret":
                    if text is not original:  # an earlier shape was masked
                        lowered = text.lower()
                    same = len(lowered) == len(text)
                    if names:
                        hits = _NAME_HIT_LOWER if same else _NAME_HIT_ANY_CASE
                    else:
                        hits = _NAMED_HIT_LOWER if same else rule.pattern
                    edits = self._named(hits, lowered if same else text, text)
                else:
                    edits = self._edits(rule, text)
                if edits:
                    text = apply(text, edits)
        for rule in self.rules:
            edits = self._edits(rule, text)
            if edits:
                text = apply(text, edits)
        return text

    def _named(self, hits: re.Pattern[str], searched: str, text: str) -> list[Edit]:
        """``NAME=value`` masked where NAME is a secret's name: one pass over the hits, linear in the text.

        ``searched`` is where the hits are found: ``text`` or its lower case, of the same length. A pair
        (``["Authorization", "Basic …"]``, ``('password', '…')``) counts only as a whole: a quoted name right after
        the opening bracket, a quoted value right before the closing one."""
        edits: list[Edit] = []
        pos = 0  # text before this is settled
        at = 0
        while True:
            hit = hits.search(searched, at)
            if hit is None:
                break
            word_end = hit.end("word")
            window = text[max(pos, hit.start() - 100):hit.start()]
            name_start = hit.start() - (len(window) - len(window.rstrip(_NAME_CHARS)))
            name = text[name_start:word_end]
            value = _NAMED_VALUE.match(text, hit.end())
            at = word_end
            if value is None or not is_secret_key(name):
                continue
            group = next(g for g in ("dq", "sq", "bare") if value.group(g) is not None)
            if "pair" in hit.re.groupindex and hit.group("pair") and not _pair(text, name_start, group, value.end()):
                continue
            edits.append((value.start(group), value.end(group), self.mark(secret_kind(name), value.group(group))))
            pos = at = value.end(group)
        return edits

    def _edits(self, rule: Rule, text: str) -> list[Edit]:
        """Where ``rule`` matches ``text``: each match's masked part and its mark (a mark already made is kept)."""
        edits: list[Edit] = []
        for match in rule.pattern.finditer(text):
            secret = match.group(rule.group)
            if secret and not secret.startswith(MARK_PREFIX):
                edits.append((*match.span(rule.group), self.mark(rule.kind, secret)))
        return edits

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

    def binary(self, data: bytes | bytearray, keep_bytes: bool = False) -> Any:
        """A ``bytes`` value: UTF-8 text is masked as text (returned as ``str`` when something was masked, so
        no output shows a secret's bytes as base64); other bytes holding a secret's shape (read as Latin-1)
        become one mark; the rest is returned as is. ``keep_bytes``: masked UTF-8 text is returned encoded,
        and other bytes as they are (for a bundle, which keeps the stored types and masks binary itself)."""
        if not self.enabled or not data:
            return data
        raw = bytes(data)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            if keep_bytes:
                return data
            latin = raw.decode("latin-1")
            return data if self.text(latin) == latin else self.mark("binary-secret", raw.hex())
        masked = self.text(text)
        if masked == text:
            return data
        return masked.encode("utf-8") if keep_bytes else masked

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
    def __call__(self, obj: Any, keys: bool = True, keep_bytes: bool = False, names: bool = False) -> Any:
        """``obj`` with secrets masked, same types; the same object when nothing changed.

        ``keys=False`` applies the text shapes only (for computed reports, whose mapping
        keys are field names and whose values are byte counts). ``bytes`` holding a secret
        become text (see ``binary``; ``keep_bytes`` keeps them bytes). Task paths and ids are
        masked as names (``name``); ``names=True`` masks namespaces so too (for output: a view
        that looks checkpoints up by namespace masks it where it shows it).
        """
        if not self.enabled:
            return obj
        return MaskingWalk(self, keys, keep_bytes, names).value(obj, forced=None)


def _pair(text: str, name_start: int, group: str, value_end: int) -> bool:
    """Whether a name and its value (quoted) stand as a two-item pair: ``["name", "value"]``, ``('name', 'value')``."""
    if group == "bare" or name_start < 2 or text[name_start - 1] not in "\"'":
        return False
    before = text[max(0, name_start - 42):name_start - 1].rstrip()
    return before.endswith(("[", "(")) and _PAIR_END.match(text, value_end) is not None


def operator_rules(patterns: Iterable[str]) -> list[Rule]:
    """The operator's ``redact_patterns`` as rules; a bad regex raises ``ValueError`` naming it."""
    rules = []
    for pattern in patterns:
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"setting redact_patterns: {named(pattern)} is not a valid regular expression ({exc})") from None
        rules.append(Rule("pattern", compiled, 1 if compiled.groups else 0))
    return rules


# Without a configured ``redact_hash_key`` the marks' hashes are keyed per process: equal values still
# compare equal on one screen or in one output, and a short hash of a weak password cannot be looked up. Once an
# analysis cache is open, its own key (derived, ``use_marks_key``) keys them instead: the same in every process
# that shares the cache, so a mark (a link naming a masked namespace) means the same after a restart and on
# every dashboard replica reading one ``cache_url``.
_PROCESS_KEY = os.urandom(32)
_MARKS_KEY = [_PROCESS_KEY]


def use_marks_key(key: bytes) -> None:
    """Key the marks every redactor makes from now on by ``key``, where the settings name no ``redact_hash_key``."""
    if key:
        _MARKS_KEY[0] = key


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
