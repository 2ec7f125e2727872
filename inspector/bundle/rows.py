"""A thread's stored rows turned into rows of LangGraph's SQLite schema, every value masked.

Each value is decoded (``rewrite``), masked (``Masker``) and written back in the
format it came in, so LangGraph reads the bundle as it reads any SqliteSaver
database. Rows from PostgreSQL are assembled the way SqliteSaver stores a
checkpoint: the JSONB header with every channel value inside one msgpack map.
A channel stored unchanged in many checkpoints is masked once (by its bytes);
a PostgreSQL blob row once (by its version). What cannot be decoded (pickled,
unknown types) cannot be checked for secrets and is left out, and counted.

The channels the thread's profile says name files (``Profile.file_channels``) are also
decoded as the pages decode them (``store.decode``) and handed to ``on_file_value``, once
per distinct stored value and, for a list (the messages), once per distinct item.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Callable, Collection
from typing import Any

from ..store.decode import Opaque, unpack_msgpack
from ..store.depth import MAX_DEPTH, TooDeep
from ..store.not_utf8 import named
from ..store_ops.export_rows import ExportCheckpoint, ExportWrite
from .masking import Masker
from .rewrite import (
    array_items,
    checkpoint_parts,
    dump_json,
    dump_msgpack,
    join_array,
    join_checkpoint,
    load_json,
    load_msgpack,
)

CACHE_ENTRIES = 4096  # values and list items already masked, by their bytes
NIL = dump_msgpack(None)
HEADER = "checkpoint headers"
_EMPTY = object()  # a blob row of type "empty": the channel has no value at that version


def _unreadable(exc: ValueError, default: str) -> str:
    """Why a value could not be read: too deep to walk, or ``default``."""
    return f"nested deeper than {MAX_DEPTH} levels" if isinstance(exc, TooDeep) else default


class RowConverter:
    """Converts exported rows; ``left_out`` counts what could not be kept, with the reason.

    ``file_channels``: the channels whose values name files (the thread's profile's); each of their
    values, as stored before masking, is handed to ``on_file_value(channel, value)`` once (a list's items
    one at a time, each as a list of one).
    """

    def __init__(self, masker: Masker, file_channels: Collection[str] = (),
                 on_file_value: Callable[[str, Any], None] | None = None) -> None:
        self.masker = masker
        self.file_channels = frozenset(file_channels) if on_file_value is not None else frozenset()
        self.on_file_value = on_file_value
        self.left_out: Counter[tuple[str, str]] = Counter()
        self._cache: OrderedDict[tuple[str, bytes], tuple[bytes, Any]] = OrderedDict()
        self._blobs: dict[tuple[str, str, str], Any] = {}
        self._files_read: set[tuple[str, int, int]] = set()  # the (channel, value) pairs handed over already

    def _leave_out(self, what: str, reason: str) -> None:
        self.left_out[(what, reason)] += 1

    # -- one channel value, as msgpack ------------------------------------------
    def channel(self, name: str, raw: bytes) -> tuple[bytes, Any]:
        """(masked msgpack bytes, the decoded value when ``name`` names files and is not a list) for one
        stored value.

        A list (the messages) is masked item by item, each item once by its bytes, so a history
        that re-stores the same messages at every step costs the messages, not the history.
        """
        reference = name in self.file_channels
        if not self.masker.enabled and not reference:
            return raw, None
        key = (name, raw)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        items = None if self.masker.masks_whole(name) else array_items(raw)
        if items is not None:
            if reference:
                for item in items:
                    self._read_files(name, item, item=True)
            result: tuple[bytes, Any] = (join_array([self._masked(name, item) for item in items]), None)
        else:
            masked = self._masked(name, raw, cache=False)
            result = (masked, self._read_files(name, raw) if reference else None)
        self._remember(key, result)
        return result

    def _read_files(self, name: str, raw: bytes, item: bool = False) -> Any:
        """Hand a file channel's value (or one item of its list) to ``on_file_value``, decoded as the pages
        decode it, once per distinct value; returns the decoded value (None when it cannot be read)."""
        digest = (name, len(raw), hash(raw))  # the process's keyed hash: no stored value can aim at a collision
        seen = digest in self._files_read
        if seen and item:
            return None
        decoded = unpack_msgpack(raw, name).value
        if isinstance(decoded, Opaque):
            return None
        if not seen and self.on_file_value is not None:
            self._files_read.add(digest)
            self.on_file_value(name, [decoded] if item else decoded)
        return decoded

    def _masked(self, name: str, raw: bytes, cache: bool = True) -> bytes:
        key = (name, raw)
        if cache and key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key][0]
        try:
            tree, dropped = load_msgpack(raw)
        except ValueError as exc:
            self._leave_out(f"values of channel {named(name)}", f"{_unreadable(exc, 'not decodable')}: replaced by null")
            return NIL
        for _ in dropped:
            self._leave_out(f"extension values in channel {named(name)}",
                            "of a kind the inspector cannot look inside: replaced by null")
        masked = self.masker.channel(name, tree)
        out = raw if masked is tree and not dropped else dump_msgpack(masked)
        if cache:
            self._remember(key, (out, None))
        return out

    def _remember(self, key: tuple[str, bytes], result: tuple[bytes, Any]) -> None:
        self._cache[key] = result
        while len(self._cache) > CACHE_ENTRIES:
            self._cache.popitem(last=False)

    def _typed_channel(self, name: str, type_tag: str | None, data: bytes | None) -> Any:
        """A PostgreSQL blob row as msgpack bytes for a whole-checkpoint map, or ``_EMPTY`` / None (left out)."""
        if type_tag == "empty":
            return _EMPTY
        if type_tag in (None, "null"):
            return (NIL, None)
        if type_tag == "msgpack":
            return self.channel(name, bytes(data or b""))
        if type_tag == "json":
            try:
                return self.channel(name, dump_msgpack(load_json(bytes(data or b""))))
            except ValueError:
                pass
        if type_tag in ("bytes", "bytearray"):
            return (dump_msgpack(self._bytes(bytes(data or b""), name)), None)
        self._leave_out(f"values of channel {named(name)} stored as {named(type_tag)}",
                        "cannot be decoded safely, so they could not be checked for secrets")
        return None

    def _bytes(self, data: bytes, where: str) -> bytes:
        """Raw bytes masked as text, byte for byte (latin-1), so a key written as bytes is caught too."""
        masked = self.masker.channel(where, data)
        return masked if isinstance(masked, bytes) else str(masked).encode("utf-8")

    # -- checkpoints ---------------------------------------------------------------
    def checkpoint(self, cp: ExportCheckpoint) -> tuple[str, bytes, dict[str, Any]] | None:
        """(type, bytes, plain values of the file-naming channels) for SqliteSaver's ``checkpoints`` row."""
        if cp.header is not None:
            return self._from_blobs(cp)
        if cp.type == "msgpack" and cp.checkpoint is not None:
            try:
                header, channels = checkpoint_parts(bytes(cp.checkpoint))
            except ValueError:
                self._leave_out("checkpoints", "not a readable checkpoint: left out")
                return None
            refs: dict[str, Any] = {}
            out = []
            for name, raw in channels:
                masked, tree = self.channel(str(name), raw)
                out.append((self.masker.channel_name(name), masked))
                if tree is not None:
                    refs[str(name)] = tree
            return "msgpack", join_checkpoint(self._header(header), out), refs
        if cp.type == "json" and cp.checkpoint is not None:
            try:
                tree = load_json(bytes(cp.checkpoint))
            except ValueError:
                tree = None
            if isinstance(tree, dict) and isinstance(tree.get("channel_values"), dict):
                values = tree["channel_values"]
                refs = {k: v for k, v in values.items() if k in self.file_channels}
                for name, value in refs.items():
                    self.on_file_value(name, value)  # type: ignore[misc]  # (file channels imply a reader)
                tree = {k: self.masker.value(v, HEADER, keys=False) for k, v in tree.items() if k != "channel_values"}
                tree["channel_values"] = {self.masker.channel_name(k): self.masker.channel(str(k), v)
                                          for k, v in values.items()}
                return "json", dump_json(tree), refs
        if cp.checkpoint is not None and not self.masker.enabled:
            return str(cp.type), bytes(cp.checkpoint), {}  # nothing is masked: kept as stored
        if cp.type and "+" in cp.type and cp.checkpoint is not None:
            self._leave_out(f"checkpoints stored encrypted ({cp.type})",
                            "kept as stored: unreadable without the key, which is not in the bundle")
            return cp.type, bytes(cp.checkpoint), {}
        self._leave_out(f"checkpoints stored as {named(cp.type)}",
                        "cannot be decoded safely, so they could not be checked for secrets: left out")
        return None

    def _from_blobs(self, cp: ExportCheckpoint) -> tuple[str, bytes, dict[str, Any]]:
        """As PostgresSaver loads a checkpoint: the JSONB's inline values, then its blob rows over them
        (a delta snapshot is an inline ``true`` with its value in a blob row)."""
        header = dict(cp.header or {})
        values: dict[Any, tuple[bytes, Any]] = {}
        for name, value in (header.pop("channel_values", None) or {}).items():
            values[name] = self.channel(str(name), dump_msgpack(value))
        for (channel, version), (type_tag, data) in cp.new_blobs.items():
            self._blobs[(cp.checkpoint_ns, channel, version)] = self._typed_channel(channel, type_tag, data)
        for channel, version in cp.blob_versions.items():
            entry = self._blobs.get((cp.checkpoint_ns, channel, version))
            if entry is not None and entry is not _EMPTY:
                values[channel] = entry
        refs = {str(name): tree for name, (_, tree) in values.items() if tree is not None}
        channels = [(self.masker.channel_name(name), masked) for name, (masked, _) in values.items()]
        return "msgpack", join_checkpoint(self._header([(k, dump_msgpack(v)) for k, v in header.items()]), channels), refs

    def _header(self, items: list[tuple[Any, bytes]]) -> list[tuple[Any, bytes]]:
        """A checkpoint's header values (versions, pending sends...) with the text shapes masked; its keys are
        channel names and ids, so a name alone masks nothing."""
        if not self.masker.enabled:
            return items
        out = []
        for key, raw in items:
            try:
                tree, dropped = load_msgpack(raw)
            except ValueError as exc:
                self._leave_out("checkpoint header values", f"{_unreadable(exc, 'not decodable')}: replaced by null")
                out.append((key, NIL))
                continue
            masked = self.masker.value(tree, HEADER, keys=False)
            out.append((key, raw if masked is tree and not dropped else dump_msgpack(masked)))
        return out

    # -- metadata and writes ----------------------------------------------------------
    def metadata(self, raw: Any) -> bytes:
        if isinstance(raw, (bytes, bytearray, memoryview, str)):
            try:
                raw = load_json(bytes(raw) if not isinstance(raw, str) else raw)
            except ValueError as exc:
                self._leave_out("checkpoint metadata", f"{_unreadable(exc, 'not readable JSON')}: replaced by {{}}")
                raw = {}
        return dump_json(self.masker.value(raw if raw is not None else {}, "metadata"))

    def write(self, write: ExportWrite) -> tuple[str | None, bytes | None] | None:
        """(type, value) for SqliteSaver's ``writes`` row, or None when the write is left out."""
        tag, data = write.type, write.value
        if tag == "msgpack" and write.channel in self.file_channels:
            self.channel(write.channel, bytes(data or b""))  # the files a write names (delta channels' messages)
        if tag in (None, "null", "empty") or not self.masker.enabled:
            return tag, data
        if tag == "msgpack":
            return tag, self.channel(write.channel, bytes(data or b""))[0]
        if tag == "json":
            try:
                return tag, dump_json(self.masker.channel(write.channel, load_json(bytes(data or b""))))
            except ValueError as exc:
                self._leave_out(f"writes to channel {named(write.channel)}", f"{_unreadable(exc, 'not readable JSON')}: left out")
                return None
        if tag in ("bytes", "bytearray"):
            return tag, self._bytes(bytes(data or b""), write.channel)
        if "+" in tag:
            self._leave_out(f"writes to channel {named(write.channel)} stored encrypted ({tag})",
                            "kept as stored: unreadable without the key, which is not in the bundle")
            return tag, data
        self._leave_out(f"writes to channel {named(write.channel)} stored as {named(tag)}",
                        "cannot be decoded safely, so they could not be checked for secrets: left out")
        return None

    def left_out_rows(self) -> list[dict[str, Any]]:
        return [{"what": what, "count": count, "kind": "rows", "reason": reason}
                for (what, reason), count in self.left_out.items()]
