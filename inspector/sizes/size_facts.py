"""A checkpoint's sizes as an analysis cache fact: encoded, checked and read back (``cached.sizes_stream``).

A fact holds numbers, labels (list positions, map keys such as image paths), problem texts the inspector wrote,
and content fingerprints (``fact_fingerprints.Fingerprint``, sealed by the cache). Items a checkpoint shares with
its parent (an append-only conversation) are stored as a count, so a fact is a few hundred bytes however long
the conversation. It also holds the checkpoint's stored length as the timeline keys gave it: a fact whose
checkpoint now has another length is a miss.

No fingerprint is kept for a value the mask touches (``MaskedValues``): a channel named like a secret
(``db_password``), a map entry under such a name, or a small value (``measure.INSPECT_MAX_BYTES``) whose masked
rendering differs from it (or whose contents the store leaves on its server: PostgreSQL's small blobs).
Wherever the cache is used, such a value's fingerprint is replaced, in the rows
measured and in those read back alike (``hide``), by a mark made of what the fact keeps anyway: the field's name,
the item's label and the stored length. Repeats of a masked value are still counted as repeats; two masked values
of one field, label and length count as one.

``valid`` checks a fact's whole shape before it is used: a fact of another shape is a miss, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..fact_fingerprints import Fingerprint
from ..safety.secret_names import is_secret_key
from ..store import CheckpointSizes, Problem
from ..store.decode import unpack_msgpack
from ..store.measure import ChannelSize, ItemSize
from ..store.model import Key


class MaskedValues:
    """``Store.iter_field_sizes``'s ``inspect``: remembers the fingerprints of the small values the mask touches."""

    def __init__(self, redactor: Callable[[], Any]) -> None:
        self._make = redactor  # called at the first value: a look read whole from the cache needs none
        self._redactor: Any = None
        self.touched: set[str] = set()
        self._seen: set[str] = set()

    @property
    def redactor(self) -> Any:
        if self._redactor is None:
            self._redactor = self._make()
        return self._redactor

    def __call__(self, digest: str, raw: bytes, form: str) -> None:
        if digest in self._seen:
            return
        self._seen.add(digest)
        try:
            if form == "unread":  # left on the server (PostgreSQL's blobs): nothing shows it is safe
                raise ValueError(form)
            value = json.loads(raw) if form == "json" else unpack_msgpack(raw).value
            changed = self.redactor(value) != value
        except Exception:  # what cannot be read cannot be shown as safe: no fingerprint
            changed = True
        if changed:
            self.touched.add(digest)


def _shared(items: tuple[ItemSize, ...], before: tuple[ItemSize, ...]) -> int:
    """How many leading items ``items`` shares with ``before``."""
    if before and items[: len(before)] == before:
        return len(before)
    count = 0
    for mine, theirs in zip(items, before):
        if mine != theirs:
            break
        count += 1
    return count


def mark(name: str, n: int, label: str | None = None) -> str:
    """The fingerprint shown for a masked value: its field, label and length (``~`` never begins a digest)."""
    return "~" + "\x1f".join([name, *([label] if label is not None else []), str(n)])


def _masked_item(name_secret: bool, item: ItemSize, touched: set[str]) -> bool:
    return name_secret or item.digest in touched or (not item.label.isdigit() and is_secret_key(item.label))


def hide(row: CheckpointSizes, touched: set[str]) -> CheckpointSizes:
    """``row`` with the fingerprints of what the mask touches replaced by their ``mark`` (the same row when none)."""
    channels = dict(row.channels)
    for name, channel in row.channels.items():
        secret = is_secret_key(name)
        items = channel.items
        if secret or (touched and (channel.digest in touched or any(item.digest in touched for item in items))) \
                or any(not item.label.isdigit() and is_secret_key(item.label) for item in items):
            hidden = tuple(replace(item, digest=mark(name, item.bytes, item.label))
                           if _masked_item(secret, item, touched) and not item.digest.startswith("~") else item
                           for item in items)
            channels[name] = replace(channel, digest=mark(name, channel.bytes), items=hidden)
    if all(channels[name] is channel for name, channel in row.channels.items()):
        return row
    return replace(row, channels=channels)


def _kept(digest: str) -> Any:
    return None if digest.startswith("~") else Fingerprint(digest)


def encode(row: CheckpointSizes, parent: CheckpointSizes | None, key_bytes: int) -> list[Any]:
    """A checkpoint's sizes (``hide`` applied) as plain data; items shared with ``parent``'s are stored as their
    count, and no fingerprint of a masked value."""
    channels = {}
    for name, channel in row.channels.items():
        before = parent.channels.get(name) if parent is not None else None
        shared = _shared(channel.items, before.items) if before is not None else 0
        items = [[None if item.label == str(shared + i) else item.label, item.bytes, _kept(item.digest), item.base64_bytes]
                 for i, item in enumerate(channel.items[shared:])]
        channels[name] = [channel.bytes, _kept(channel.digest), channel.blob_key, shared, items, channel.holds_base64]
    problems = [[p.message, p.field, p.kind] for p in row.problems]
    return [row.parent_checkpoint_id, row.step, row.source, row.stored_bytes, row.writes_bytes, channels, problems,
            row.written, key_bytes]


def storable(row: CheckpointSizes, redactor: Any) -> bool:
    """True when no label of the row (map keys such as image paths) holds text the redaction rules would mask."""
    return all(item.label.isdigit() or redactor.text(item.label) == item.label
               for channel in row.channels.values() for item in channel.items)


def needs_parent(fact: list[Any]) -> bool:
    return any(channel[3] for channel in fact[5].values())


def decode(thread_id: str, key: Key, fact: list[Any], parent: CheckpointSizes | None) -> CheckpointSizes:
    """The row ``fact`` encodes (``parent``: the parent's row, when the fact needs it). Raises ``KeyError``,
    ``IndexError`` or ``ValueError`` when the fact does not fit the parent it names."""
    parent_id, step, source, stored, writes, channels, problems, written, _ = fact
    out = {}
    for name, (size, digest, blob_key, shared, items, holds_base64) in channels.items():
        before = parent.channels[name].items[:shared] if shared else ()  # type: ignore[union-attr]
        if len(before) != shared:
            raise ValueError("a fact sharing more items than its parent holds")
        new = []
        for i, (label, n, d, b64) in enumerate(items):
            label = str(shared + i) if label is None else label
            new.append(ItemSize(label, n, mark(name, n, label) if d is None else d, b64))
        out[name] = ChannelSize(size, mark(name, size) if digest is None else digest, before + tuple(new), blob_key,
                                holds_base64)
    return CheckpointSizes(
        thread_id=thread_id, checkpoint_ns=key[0], checkpoint_id=key[1], parent_checkpoint_id=parent_id,
        step=step, source=source, stored_bytes=stored, writes_bytes=writes, channels=out,
        problems=tuple(Problem(*p) for p in problems), written=dict(written),
    )


# -- the shape a fact must have -----------------------------------------------------------------------------------

_TEXT = frozenset({str, type(None)})
_STEP = frozenset({int, bool, type(None)})


def _items(items: Any) -> bool:
    return type(items) is list and all(
        type(i) is list and len(i) == 4 and type(i[0]) in _TEXT and type(i[1]) is int and type(i[2]) in _TEXT
        and type(i[3]) is int for i in items)


def _channel(name: Any, c: Any) -> bool:
    return (type(name) is str and type(c) is list and len(c) == 6 and type(c[0]) is int and type(c[1]) in _TEXT
            and type(c[2]) in _TEXT and type(c[3]) is int and c[3] >= 0 and _items(c[4]) and type(c[5]) is bool)


def valid(fact: Any) -> bool:
    """Whether ``fact`` has the shape ``encode`` writes, every part of it."""
    if type(fact) is not list or len(fact) != 9:
        return False
    parent_id, step, source, stored, writes, channels, problems, written, key_bytes = fact
    return (type(parent_id) in _TEXT and type(step) in _STEP and type(source) in _TEXT and type(stored) is int
            and type(writes) is int and type(key_bytes) is int
            and type(channels) is dict and all(_channel(n, c) for n, c in channels.items())
            and type(problems) is list and all(type(p) is list and len(p) == 3 and type(p[0]) is str
                                                and type(p[1]) in _TEXT and type(p[2]) is str for p in problems)
            and type(written) is dict and all(type(n) is str and type(b) is int for n, b in written.items()))
