"""The one place a bundle's contents are masked: the redaction rules every view uses.

Every value that goes into a bundle (channel values, writes, metadata, checkpoint
headers, text files, the manifest) passes through ``Masker``, which applies
``inspector.safety.redaction`` to the decoded value before it is written back in
LangGraph's format. A channel's name counts as the key it is stored under (a
channel called ``api_key`` is masked whole, as the views mask it). Raw bytes
inside a value (msgpack ``bin``) are masked too, read as Latin-1 text, so a key
stored as bytes is caught like one stored as text; a numpy array whose bytes hold
a secret shape is dropped. ``reveal=True`` masks nothing and needs the
operator's ``allow_reveal``, like every other reveal.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..safety.redaction import Redactor, is_secret_key, redactor_for
from .rewrite import Dropped, Ext, make_ext


class _Counting(Redactor):
    """The settings' redactor, counting the marks it makes by kind."""

    def __init__(self, base: Redactor) -> None:
        self.__dict__.update(base.__dict__)
        self.kinds: Counter[str] = Counter()

    def mark(self, kind: str, secret: str) -> str:
        self.kinds[kind] += 1
        return super().mark(kind, secret)


class Masker:
    """Masks secrets in decoded values and in text, and counts where it did and what kinds it found.

    Raises ``PermissionError`` for ``reveal=True`` where the settings do not set ``allow_reveal``.
    """

    def __init__(self, settings: Any, reveal: bool = False) -> None:
        self._rules = redactor_for(settings, reveal=reveal)
        self._redactor = _Counting(self._rules)
        self.enabled = self._redactor.enabled
        self.masked: Counter[str] = Counter()
        self.operator_patterns = len(self._redactor.rules)

    @property
    def kinds(self) -> dict[str, int]:
        """Marks made so far, by kind (``api-key``, ``password``, ``pattern``...)."""
        return dict(self._redactor.kinds)

    def value(self, value: Any, where: str, keys: bool = True) -> Any:
        """``value`` (a decoded tree) with secrets masked; ``where`` names it in the manifest's counts.

        ``keys=False`` applies the text shapes only (for checkpoint headers, whose keys are channel names).
        """
        if not self.enabled:
            return value
        masked = _masked_bytes(self._redactor(value, keys=keys, keep_bytes=True), self._redactor)
        if masked is not value:
            self.masked[where] += 1
        return masked

    def channel(self, name: str, value: Any) -> Any:
        """A channel's (or a write's) value, masked as the value stored under the key ``name``."""
        if not self.enabled:
            return value
        if is_secret_key(name):
            return self.value({name: value}, name)[name]
        return self.value(value, name)

    @staticmethod
    def masks_whole(name: str) -> bool:
        """True when a channel called ``name`` is a secret by its name, so its whole value is masked."""
        return is_secret_key(name)

    def holds_secret(self, data: bytes) -> bool:
        """True when ``data``, read as Latin-1 text, holds a secret's shape (nothing when masking is off)."""
        if not self.enabled:
            return False
        text = data.decode("latin-1")
        return self._rules.text(text) != text

    def name(self, text: str) -> str:
        """A name from the data (a namespace, a task path, a file's name) with its secret shapes masked as a name
        (``Redactor.name``: ``get_token:<task id>`` stays as it is)."""
        return self._redactor.name(text) if self.enabled and isinstance(text, str) else text

    def channel_name(self, name: Any) -> Any:
        """A channel's name as a checkpoint's header masks its keys (``branch:to:NODE`` names a node)."""
        return self._redactor.text(name) if self.enabled and isinstance(name, str) else name

    def text(self, text: str, where: str) -> str:
        if not self.enabled:
            return text
        masked = self._redactor.text(text)
        if masked != text:
            self.masked[where] += 1
        return masked


def _masked_bytes(tree: Any, redactor: Redactor) -> Any:
    """``tree`` with every ``bytes`` value masked as Latin-1 text (same object when nothing changed)."""
    if isinstance(tree, (bytes, bytearray)):
        text = bytes(tree).decode("latin-1")
        masked = redactor.text(text)
        return tree if masked is text or masked == text else masked.encode("latin-1", "replace")
    if isinstance(tree, dict):
        items = {k: _masked_bytes(v, redactor) for k, v in tree.items()}
        return tree if all(items[k] is v for k, v in tree.items()) else items
    if isinstance(tree, list):
        masked_items = [_masked_bytes(v, redactor) for v in tree]
        return tree if all(a is b for a, b in zip(masked_items, tree)) else masked_items
    if isinstance(tree, Ext):
        raw = tree.__dict__.get("_raw")
        if raw is not None:  # a numpy array kept as stored: dropped when its bytes hold a secret shape
            text = raw.decode("latin-1")
            return tree if redactor.text(text) == text else Dropped(tree.code)
        data = _masked_bytes(tree.data, redactor)
        return tree if data is tree.data else make_ext(tree.code, data, tree.__dict__["_head"], tree.__dict__["_tail"])
    return tree
