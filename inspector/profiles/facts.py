"""What a thread shows of the app that wrote it, read from the store without decoding any value:
``ThreadFacts`` and ``thread_facts``, the evidence profiles are chosen by."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ThreadFacts:
    """What a thread shows of the app that wrote it, read without decoding any value.

    ``store_file``: the store's file name (SQLite); ``store_url``: the URL it was opened by;
    ``channels``: every channel the thread's root graph holds at its newest checkpoint or was
    ever written; ``metadata``: the metadata of its first and newest root checkpoints.
    """

    thread_id: str
    store_url: str = ""
    store_file: str = ""
    channels: frozenset[str] = frozenset()
    metadata: tuple[dict[str, Any], ...] = ()

    def metadata_key(self, key: str) -> Any:
        """The first value ``key`` has in the metadata read, or None."""
        for meta in self.metadata:
            if isinstance(meta, dict) and meta.get(key) is not None:
                return meta[key]
        return None


# The timeline keys ``thread_facts`` read for a choice, handed to the ``reading`` that asked for it (and
# through it to the analyses inside: ``keys_read``), so a look at a thread reads its keys once.
keys_read_for_choice: dict[tuple[str, str], list[Any]] = {}

CHANNELS_KIND = "channels/1"  # analysis-cache facts: the channel names a checkpoint's blob holds


def thread_facts(store: Any, thread_id: str, rows: list[Any] | None = None, cache: Any = None) -> ThreadFacts:
    """A thread's facts, read from its checkpoints' keys and written channels (``rows``, when the caller
    has read them: ``Store.timeline_keys`` or fuller rows) and the metadata of its newest and oldest root
    checkpoints (from ``rows`` where they hold it). Only a thread that stored no writes at all has its
    newest checkpoint's channel names read (no value decoded), once: they are kept in the analysis
    ``cache`` (a ``FactCache``) when one is given."""
    from pathlib import Path

    from ..store import StoreError

    url = str(getattr(store, "url", "") or "")
    path = getattr(store, "path", None)
    store_file = Path(path).name if path else ""
    try:
        if rows is not None:
            rows = list(rows)
        else:
            rows = store.timeline_keys(thread_id)
            keys_read_for_choice[(str(getattr(store, "identity", id(store))), thread_id)] = rows
    except StoreError:
        return ThreadFacts(thread_id, url, store_file)
    root = sorted((r for r in rows if r.checkpoint_ns == ""), key=lambda r: r.checkpoint_id, reverse=True)
    channels: set[str] = set()
    for row in root:
        channels.update(row.write_channels)
    if not root:
        return ThreadFacts(thread_id, url, store_file, frozenset(channels))
    ends = {(r.checkpoint_ns, r.checkpoint_id): r for r in (root[0], root[-1])}
    held = [r.metadata for r in ends.values() if not getattr(r, "keys_only", False)]
    wanted = [key for key, r in ends.items() if getattr(r, "keys_only", False)]
    try:
        if wanted:
            held += [r.metadata for r in store.checkpoint_rows(thread_id, wanted)]
        if not channels:  # no writes stored (checkpoints put straight into the saver): what the newest holds
            channels.update(_newest_channels(store, thread_id, (root[0].checkpoint_ns, root[0].checkpoint_id), cache))
    except StoreError:
        pass
    return ThreadFacts(thread_id, url, store_file, frozenset(channels), tuple(held))


def _newest_channels(store: Any, thread_id: str, newest: tuple[str, str], cache: Any) -> list[str]:
    """The channel names ``newest``'s blob holds: from ``cache`` when measured before (checkpoints never
    change), else from the store's stored sizes (no value decoded), then kept in ``cache``."""
    identity = str(store.fact_identity()) if cache is not None and hasattr(store, "fact_identity") else ""
    known: Any = ()  # what the cache held: a fact of another shape is replaced
    if cache is not None and identity:
        known = cache.get(identity, thread_id, CHANNELS_KIND, [newest]).get(newest, ())
        if isinstance(known, list) and all(isinstance(name, str) for name in known):
            return known
    names = sorted({name for sizes in store.iter_field_sizes(thread_id, "", keys=[newest]) for name in sizes.channels})
    if cache is not None and identity:
        cache.put(identity, thread_id, CHANNELS_KIND, {newest: names}, replacing=[] if known == () else [newest])
    return names

