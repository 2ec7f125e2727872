"""A checkpoint's sizes as an analysis cache fact: encoded, checked and read back (``cached.sizes_stream``).

A fact holds numbers, labels (list positions, map keys such as image paths), problem texts the inspector wrote,
and content fingerprints (``fact_fingerprints.Fingerprint``, sealed by the cache). Items a checkpoint shares with
its parent (an append-only conversation) are stored as a count, so a fact is a few hundred bytes however long
the conversation. It also holds the checkpoint's stored length as the timeline keys gave it: a fact whose
checkpoint now has another length is a miss.

No fingerprint is kept for a value the mask touches (``MaskedValues``): a channel named like a secret
(``db_password``), a map entry under such a name, or a small value (``measure.INSPECT_MAX_BYTES``) whose masked
rendering differs from it. Such a value's fingerprint is read back as a mark of its place (``~ns/id/field``),
carried to the checkpoints that share it, and, for a field, "the same as the parent's" where it was: the
repeats of a secret field are still counted, and nothing about its content is kept.

``valid`` checks a fact's whole shape before it is used: a fact of another shape is a miss, never an error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..fact_fingerprints import Fingerprint
from ..safety.secret_names import is_secret_key
from ..store import CheckpointSizes, Problem
from ..store.decode import unpack_msgpack
from ..store.measure import ChannelSize, ItemSize
from ..store.model import Key

SAME_AS_PARENT = True  # a field's fingerprint not kept, equal to its parent's


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


def _item_touched(name_secret: bool, item: ItemSize, touched: set[str]) -> bool:
    return name_secret or item.digest in touched or (not item.label.isdigit() and is_secret_key(item.label))


def _hidden(name_secret: bool, channel: ChannelSize, touched: set[str]) -> bool:
    """Whether the field's fingerprint must not be kept: its name, its value or one of its items is masked."""
    if name_secret or channel.digest in touched:
        return True
    if touched and any(item.digest in touched for item in channel.items):
        return True
    return any(not item.label.isdigit() and is_secret_key(item.label) for item in channel.items)


def encode(row: CheckpointSizes, parent: CheckpointSizes | None, key_bytes: int, touched: set[str]) -> list[Any]:
    """A checkpoint's sizes as plain data; items shared with ``parent``'s are stored as their count, and no
    fingerprint of a value in ``touched`` (or under a secret name)."""
    channels = {}
    for name, channel in row.channels.items():
        before = parent.channels.get(name) if parent is not None else None
        shared = _shared(channel.items, before.items) if before is not None else 0
        secret = is_secret_key(name)
        items = [[None if item.label == str(shared + i) else item.label, item.bytes,
                  None if _item_touched(secret, item, touched) else Fingerprint(item.digest), item.base64_bytes]
                 for i, item in enumerate(channel.items[shared:])]
        if not _hidden(secret, channel, touched):
            digest: Any = Fingerprint(channel.digest)
        else:
            digest = SAME_AS_PARENT if before is not None and before.digest == channel.digest else None
        channels[name] = [channel.bytes, digest, channel.blob_key, shared, items, channel.holds_base64]
    problems = [[p.message, p.field, p.kind] for p in row.problems]
    return [row.parent_checkpoint_id, row.step, row.source, row.stored_bytes, row.writes_bytes, channels, problems,
            row.written, key_bytes]


def storable(row: CheckpointSizes, redactor: Any) -> bool:
    """True when no label of the row (map keys such as image paths) holds text the redaction rules would mask."""
    return all(item.label.isdigit() or redactor.text(item.label) == item.label
               for channel in row.channels.values() for item in channel.items)


def needs_parent(fact: list[Any]) -> bool:
    return any(channel[3] or channel[1] is SAME_AS_PARENT for channel in fact[5].values())


def _place(key: Key, *parts: Any) -> str:
    return "~" + "\x1f".join(str(p) for p in (*key, *parts))


def decode(thread_id: str, key: Key, fact: list[Any], parent: CheckpointSizes | None) -> CheckpointSizes:
    """The row ``fact`` encodes (``parent``: the parent's row, when the fact needs it). Raises ``KeyError``,
    ``IndexError`` or ``ValueError`` when the fact does not fit the parent it names."""
    parent_id, step, source, stored, writes, channels, problems, written, _ = fact
    out = {}
    for name, (size, digest, blob_key, shared, items, holds_base64) in channels.items():
        before = parent.channels[name].items[:shared] if shared else ()  # type: ignore[union-attr]
        if len(before) != shared:
            raise ValueError("a fact sharing more items than its parent holds")
        new = tuple(ItemSize(str(shared + i) if label is None else label, n,
                             _place(key, name, shared + i) if d is None else d, b64)
                    for i, (label, n, d, b64) in enumerate(items))
        if digest is SAME_AS_PARENT:
            digest = parent.channels[name].digest  # type: ignore[union-attr]
        elif digest is None:
            digest = _place(key, name)
        out[name] = ChannelSize(size, digest, before + new, blob_key, holds_base64)
    return CheckpointSizes(
        thread_id=thread_id, checkpoint_ns=key[0], checkpoint_id=key[1], parent_checkpoint_id=parent_id,
        step=step, source=source, stored_bytes=stored, writes_bytes=writes, channels=out,
        problems=tuple(Problem(*p) for p in problems), written=dict(written),
    )


# -- the shape a fact must have -----------------------------------------------------------------------------------

def _int(value: Any) -> bool:
    return type(value) is int


def _text_or_none(value: Any) -> bool:
    return value is None or type(value) is str


def _item(item: Any) -> bool:
    return (type(item) is list and len(item) == 4 and _text_or_none(item[0]) and _int(item[1])
            and _text_or_none(item[2]) and _int(item[3]))


def _channel(name: Any, channel: Any) -> bool:
    return (type(name) is str and type(channel) is list and len(channel) == 6 and _int(channel[0])
            and (channel[1] is SAME_AS_PARENT or _text_or_none(channel[1])) and _text_or_none(channel[2])
            and _int(channel[3]) and channel[3] >= 0 and type(channel[4]) is list and all(_item(i) for i in channel[4])
            and type(channel[5]) is bool)


def valid(fact: Any) -> bool:
    """Whether ``fact`` has the shape ``encode`` writes, every part of it."""
    if type(fact) is not list or len(fact) != 9:
        return False
    parent_id, step, source, stored, writes, channels, problems, written, key_bytes = fact
    return (_text_or_none(parent_id) and (step is None or isinstance(step, int)) and _text_or_none(source)
            and _int(stored) and _int(writes) and _int(key_bytes)
            and type(channels) is dict and all(_channel(n, c) for n, c in channels.items())
            and type(problems) is list and all(type(p) is list and len(p) == 3 and type(p[0]) is str
                                                and _text_or_none(p[1]) and type(p[2]) is str for p in problems)
            and type(written) is dict and all(type(n) is str and _int(b) for n, b in written.items()))
