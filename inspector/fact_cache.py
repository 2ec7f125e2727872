"""What every analysis cache backend offers (``FactCache``), and what they share: the error they raise and
how facts are encoded. Backends: the embedded SQLite file (``analysis_cache``, the default) and a
PostgreSQL database several processes share (``analysis_cache_postgres``, setting ``cache_url``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol, runtime_checkable

import msgpack

from .store.model import Key
from .store.not_utf8 import from_token, token


class CacheError(Exception):
    """The cache cannot be used at all (its folder cannot be created, or it would be the store)."""


def pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def unpack(raw: bytes) -> Any:
    return msgpack.unpackb(raw, raw=False, strict_map_key=False, use_list=True)


def stored_keys(thread: str, keys: Iterable[Key]) -> tuple[str, dict[str, list[str]]]:
    """The thread and checkpoint keys as a cache stores them, by namespace: ids that are not UTF-8 (a
    hostile SQLite store's) as their ``not_utf8.token``, which every cache backend can hold as text."""
    by_ns: dict[str, list[str]] = {}
    for ns, cid in keys:
        by_ns.setdefault(token(ns), []).append(token(cid))
    return token(thread), by_ns


def stored_facts(thread: str, facts: dict[Key, Any]) -> tuple[str, list[tuple[str, str, bytes]]]:
    """``facts`` as rows (namespace, checkpoint id, packed value) with ids as ``stored_keys`` writes them."""
    return token(thread), [(token(ns), token(cid), pack(value)) for (ns, cid), value in facts.items()]


def read_key(ns: str, cid: str) -> Key:
    """A key as a cache stored it, back as the store's ids."""
    return from_token(ns), from_token(cid)


@runtime_checkable
class FactCache(Protocol):
    """Per-checkpoint facts keyed by (store identity, thread, kind, namespace, checkpoint id).

    Checkpoints never change, so a fact is never stale; a backend bounds itself by evicting whole
    threads, least recently used first. ``notice`` is a message for the person when the cache had
    to be rebuilt (None otherwise).
    """

    notice: str | None

    def get(self, store: str, thread: str, kind: str, keys: Iterable[Key]) -> dict[Key, Any]:
        """The facts of ``kind`` stored for ``keys`` (missing keys left out); the thread is marked used."""
        ...

    def put(self, store: str, thread: str, kind: str, facts: dict[Key, Any]) -> None:
        """Store facts; a fact already there is kept (it came from the same immutable checkpoint)."""
        ...

    def stats(self) -> dict[str, int]:
        """``facts``, ``threads`` and ``bytes`` held."""
        ...

    def close(self) -> None: ...
