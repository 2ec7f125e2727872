"""``ThreadFacts``: what a thread shows of the app that wrote it, as profiles read it (``facts`` reads it from a
store; ``shape_rules`` and each profile's evidence judge it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..store.shapes import Shape


@dataclass(frozen=True)
class ThreadFacts:
    """What a thread shows of the app that wrote it, read without decoding any value.

    ``store_file``: the store's file name (SQLite); ``store_url``: the URL it was opened by;
    ``channels``: every channel the thread's root graph holds at its newest checkpoint, versioned there, or
    was ever written; ``metadata``: the metadata of its first and newest root checkpoints (as read, or only
    the markers profiles read when it comes from the analysis cache); ``shapes``: the shape of each channel
    the newest root checkpoint holds (LangGraph's own channels left out); ``held``: the channels it holds a
    value for; ``problem``: why the newest checkpoint was read only in part (None: read whole, or not read).
    """

    thread_id: str
    store_url: str = ""
    store_file: str = ""
    channels: frozenset[str] = frozenset()
    metadata: tuple[dict[str, Any], ...] = ()
    shapes: Mapping[str, Shape] = field(default_factory=dict)
    held: frozenset[str] = frozenset()
    problem: str | None = None
    judged: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)  # shape_rules.judge, per rules

    def metadata_key(self, key: str) -> Any:
        """The first value ``key`` has in the metadata read, or None."""
        for meta in self.metadata:
            if isinstance(meta, dict) and meta.get(key) is not None:
                return meta[key]
        return None

    def shape(self, channel: str) -> Shape | None:
        """The newest root checkpoint's value of ``channel``, by its shape; None when not held (or not read)."""
        return self.shapes.get(channel)
