"""The one place a bundle's contents are masked: the redaction rules every view uses.

Every value that goes into a bundle (channel values, writes, metadata, text
files, the manifest) passes through ``Masker``, which applies
``inspector.redaction`` to the decoded value before it is written back in
LangGraph's format. Bundles are redacted by default; without the redaction
rules no bundle is written unless the caller asks for one with every value as
stored (``enabled=False``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any


class RedactionUnavailable(RuntimeError):
    """The redaction rules are not available, so a redacted bundle cannot be written."""


def _redactor(settings: Any) -> Any:
    try:
        from .. import redaction
    except ImportError:
        raise RedactionUnavailable(
            "secret masking (inspector.redaction) is not available in this installation; bundles are redacted "
            "by default, so none was written (--no-redact writes one with every value as stored)") from None
    return redaction.redactor_for(settings)


class Masker:
    """Masks secrets in decoded values and in text, and counts where it did."""

    def __init__(self, enabled: bool = True, settings: Any = None) -> None:
        self.enabled = enabled
        self._redactor = _redactor(settings) if enabled else None
        self.masked: Counter[str] = Counter()
        self._whole: dict[str, bool] = {}

    def value(self, value: Any, where: str) -> Any:
        """``value`` (a decoded tree) with secrets masked; ``where`` names it in the manifest's counts."""
        if self._redactor is None:
            return value
        masked = self._redactor(value)
        if masked is not value:
            self.masked[where] += 1
        return masked

    def masks_whole(self, name: str) -> bool:
        """True when a field called ``name`` is a secret by its name, so its whole value is masked."""
        if self._redactor is None:
            return False
        if name not in self._whole:
            self._whole[name] = self._redactor({name: "x"})[name] != "x"
        return self._whole[name]

    def text(self, text: str, where: str) -> str:
        if self._redactor is None:
            return text
        masked = self._redactor.text(text)
        if masked != text:
            self.masked[where] += 1
        return masked
