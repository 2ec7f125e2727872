"""Any ``BaseCheckpointSaver`` (Redis, MongoDB, InMemorySaver, ...) behind the ``Store`` protocol.

``module.path:attribute`` or ``path/to/file.py:attribute`` names a saver instance or
a function returning one (a context manager is entered), like the ``checkpointer``
entry of ``langgraph.json``. The store reads only through the saver's public read
API (``list``, ``get_tuple``, ``get_delta_channel_history``); async-only savers are
driven from a private event loop. Values the saver hands back as Python objects are
serialized with LangGraph's own serializer and read back through the same safe
decoder as the SQL stores, so every backend shows the same plain data.

This path is slower than direct SQL (the saver loads whole checkpoints) and cannot
be read-only by construction: the inspector calls no write method, but the saver
is the user's code.
"""

from __future__ import annotations

import contextlib
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from ..delta import SchemaSource
from ..model import PER_CHECKPOINT_COPY, StoreError, not_supported
from ..sql_reading import Closing
from .calls import Loop, SaverCalls, is_async_only
from .loading import load_saver
from .states import SaverStates
from .threads import SaverThreads
from .timeline import SaverTimeline

SAVER_WARNING = (
    "Read through the saver's public API: slower than direct SQL, and not read-only by construction "
    "(the inspector calls only read methods, but the saver is your code)."
)


class SaverStore(SaverThreads, SaverTimeline, SaverStates, SaverCalls, Closing):
    """Reads a ``BaseCheckpointSaver`` through its public API."""

    kind = "saver"
    read_only = False
    size_accounting = PER_CHECKPOINT_COPY
    warning = SAVER_WARNING

    def __init__(self, saver: BaseCheckpointSaver, url: str = "", stack: contextlib.ExitStack | None = None,
                 loop: Loop | None = None, schema: SchemaSource | None = None) -> None:
        if not isinstance(saver, BaseCheckpointSaver):
            raise StoreError(f"{url or 'the object'} is not a LangGraph BaseCheckpointSaver")
        self.saver = saver
        self.schema = schema
        self.url = url or f"saver:{type(saver).__name__}"
        self.identity = f"saver:{self.url}" if url else f"saver:{type(saver).__name__}@{id(saver):x}"
        self._stack = stack or contextlib.ExitStack()
        self._is_async = is_async_only(saver)
        self._loop = loop or (Loop() if self._is_async else None)
        self.saver_name = f"{type(saver).__module__}.{type(saver).__name__}"

    def fact_identity(self) -> str:
        """``identity``: a saver's API says nothing of the storage behind it."""
        return self.identity

    @classmethod
    def from_spec(cls, spec: str, schema: SchemaSource | None = None) -> "SaverStore":
        """Load the saver ``spec`` names; factories and context managers are entered on a private loop."""
        loop = Loop()
        stack = contextlib.ExitStack()
        try:
            saver = load_saver(spec, stack, loop.run)
            return cls(saver, spec, stack, loop, schema)
        except BaseException:
            stack.close()
            loop.close()
            raise

    def close(self) -> None:
        try:
            self._stack.close()
        finally:
            if self._loop is not None:
                self._loop.close()

    def newest_state_sizes(self, threshold: int) -> Any:
        """Not supported: a saver's API returns deserialized checkpoints, not their stored lengths."""
        not_supported("Sizing every thread's newest state")


