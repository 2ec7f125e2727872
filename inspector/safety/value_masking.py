"""The walk that masks a decoded value: every string, bytes value and mapping key in dicts, lists, tuples, sets,
dataclasses and DataFrames goes through a ``Redactor``'s text rules; a scalar under a key named like a secret
(``api_key``, ``dbPassword``) is masked whole, and so is the value of a record that names a secret field or
channel, and the text after a secret's name in a two-item pair (``["Authorization", "Basic …"]``, as headers are
often kept). Identifiers (``IDENTIFIER_FIELDS``) are left alone, labels (``LABEL_FIELDS``) too, but for the names
among them (``NAME_FIELDS``: task paths and ids, and with ``names=True`` namespaces), whose secret shapes are
masked as ``Redactor.name`` masks a name. Types are kept, and the very same object comes back where nothing in it
changed (a cycle resolves to the original); each string up to ``MEMO_LONGEST`` characters is masked once per
walk. The inspector's own numbers per name (``COUNT_FIELDS``: a channel's bytes) are never masked, whatever
the name. ``Redactor.__call__`` runs it.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any, Protocol

from .secret_names import is_secret_key, secret_kind


class Redactor(Protocol):
    """What a walk asks of the redactor that runs it (``redaction.Redactor``)."""

    def text(self, text: str) -> str: ...
    def name(self, text: str) -> str: ...
    def whole(self, kind: str, value: Any) -> Any: ...
    def binary(self, data: bytes | bytearray, keep_bytes: bool = False) -> Any: ...

# Record members that name things rather than hold values: never masked.
IDENTIFIER_FIELDS = frozenset({
    "thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "before_id", "after_id",
    "newest_checkpoint_id", "task_id", "task_path", "ns", "before_thread_id",
})
# Members of a record that names a field or channel (``field``/``channel``): labels, not the value.
LABEL_FIELDS = IDENTIFIER_FIELDS | {
    "field", "channel", "reducer", "status", "kind", "node", "written", "internal", "type", "size", "idx",
    "step", "source", "changed", "bytes", "stored_bytes", "writes_bytes",
}
# Identifiers that are names from the data (a node's name is in each): masked as names, so a key-shaped node name is
# never shown. A namespace is also the key a view looks its checkpoints up by: it is masked only in output
# (``names=True``: the CLI's, a bundle's), the pages mask it where they show it.
NAME_FIELDS = frozenset({"task_path", "task_id"})
NAMESPACE_FIELDS = frozenset({"checkpoint_ns", "ns"})
PARENTS = "parents"  # LangGraph's metadata: outer namespace -> its checkpoint id, keys masked as names
# Record members that map names (fields, channels) to the inspector's own numbers (bytes, counts): the names are
# masked as text, the numbers never (``channel_bytes["api_key"]`` is a size, not the key's value).
COUNT_FIELDS = frozenset({"channel_bytes", "written", "fields", "thresholds", "table_bytes", "written_bytes", "parts"})
MEMO_LONGEST = 512  # strings up to this length are masked once per value walked


class _MaskedOnce(dict):
    """Strings masked by ``mask``, each once: a string is masked when first looked up, and remembered (None where
    nothing changed) when it is no longer than ``MEMO_LONGEST``."""

    def __init__(self, mask: Callable[[str], str]) -> None:
        super().__init__()
        self.mask = mask

    def __missing__(self, item: str) -> str | None:
        masked = self.mask(item)
        if len(item) <= MEMO_LONGEST:
            self[item] = None if masked is item else masked
        return masked


class MaskingWalk:
    """One walk over one value with one redactor (``keys=False``: the text shapes only; ``keep_bytes``: masked
    UTF-8 bytes stay bytes; ``names``: namespaces masked as names too); ``value(obj, forced=None)`` gives the
    masked value."""

    def __init__(self, redactor: Redactor, keys: bool, keep_bytes: bool = False, names: bool = False) -> None:
        self.r = redactor
        self.keys = keys
        self.keep_bytes = keep_bytes
        self.names = NAME_FIELDS | NAMESPACE_FIELDS if names else NAME_FIELDS
        self.seen: dict[int, Any] = {}
        # a value's strings repeat (keys, statuses, node names): each is masked once as text, once as a name
        self.texts = _MaskedOnce(redactor.text)
        self.names_masked = _MaskedOnce(redactor.name)
        self.kinds: dict[str, str] = {}

    def text(self, text: str) -> str:
        masked = self.texts[text]
        return text if masked is None else masked  # the caller's own object when nothing changed

    def name(self, field: str, item: Any) -> Any:
        """An identifier's value: masked as a name where ``field`` holds one (``NAME_FIELDS``), else as it is."""
        if field not in self.names or not isinstance(item, str) or not item:
            return item
        return self.as_name(item)

    def as_name(self, item: str) -> str:
        """``item`` masked as a name (``Redactor.name``), once per walk."""
        masked = self.names_masked[item]
        return item if masked is None else masked

    def secret_kind(self, name: Any) -> str:
        """The kind of secret a key named ``name`` holds ("": none), decided once per name."""
        if not isinstance(name, str):
            return secret_kind(name) if is_secret_key(name) else ""
        kind = self.kinds.get(name)
        if kind is None:
            kind = self.kinds[name] = secret_kind(name) if is_secret_key(name) else ""
        return kind

    def value(self, obj: Any, forced: str | None) -> Any:
        if isinstance(obj, str):
            return self.r.whole(forced, obj) if forced else self.text(obj)
        if isinstance(obj, (bytes, bytearray)):
            return self.r.whole(forced, obj) if forced else self.r.binary(obj, self.keep_bytes)
        if obj is None or isinstance(obj, (bool, int, float)):
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
        if isinstance(obj, (list, tuple)) and (kind := self._pair(obj, forced)):
            items = [self.value(obj[0], None), self.value(obj[1], kind)]
            if all(a is b for a, b in zip(items, obj)):
                return obj
            return type(obj)(items) if not isinstance(obj, tuple) or type(obj) is tuple else type(obj)(*items)
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
            new_key = key
            if isinstance(key, str) and not forced:
                new_key = self.text(key)
            elif isinstance(key, (bytes, bytearray)) and not forced:
                new_key = self.r.binary(key, self.keep_bytes)
            if isinstance(key, str) and key in IDENTIFIER_FIELDS:
                new = self.name(key, item)
            elif key == PARENTS and isinstance(item, dict) and not forced:
                new = self._parents(item)
            elif forced:
                new = self.value(item, forced)
            elif self.keys and (kind := self.secret_kind(key)):
                new = self.value(item, kind)
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
            item = getattr(obj, f.name)
            if f.name in IDENTIFIER_FIELDS:
                if f.name in self.names and (new := self.name(f.name, item)) is not item:
                    changes[f.name] = new
                continue
            if f.name in COUNT_FIELDS and isinstance(item, dict):
                new = self._counts(item)
            else:
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

    def _parents(self, parents: dict) -> dict:
        """LangGraph's ``metadata["parents"]``: each outer namespace's checkpoint, its keys masked as names."""
        out = {self.as_name(k) if isinstance(k, str) else k: self.value(v, None) for k, v in parents.items()}
        return parents if len(out) == len(parents) and all(out.get(k, out) is v for k, v in parents.items()) else out

    def _pair(self, obj: list | tuple, forced: str | None) -> str:
        """The kind of secret a two-item pair holds (``["Authorization", "Basic …"]``, ``(b"x-api-key", b"…")``):
        a text after a secret's name ("": no pair, or a number after it, such as a size)."""
        if forced or not self.keys or len(obj) != 2:
            return ""
        name, value = obj
        if not isinstance(name, (str, bytes, bytearray)) or not isinstance(value, (str, bytes, bytearray)):
            return ""
        return self.secret_kind(name)

    def _counts(self, obj: dict) -> dict:
        """A ``COUNT_FIELDS`` member: its names masked as text, its numbers kept (anything else walked as a value)."""
        out, changed = {}, False
        for key, item in obj.items():
            new_key = self.text(key) if isinstance(key, str) else key
            new = item if isinstance(item, (int, float)) or item is None else self.value(item, None)
            changed |= new is not item or new_key is not key
            out[new_key] = new
        return out if changed else obj

    def _sensitive_label(self, *names: Any) -> str | None:
        """A record that names a secret field or channel holds that secret's value."""
        if not self.keys:
            return None
        return next((kind for n in names if n is not None and (kind := self.secret_kind(n))), None)
