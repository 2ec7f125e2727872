"""Calls into a saver's public read API (``list``, ``get_tuple``, ``get_delta_channel_history``), the async
ones driven from a private event loop."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

from ..model import StoreError


class Loop:
    """A private event loop on its own thread, for savers that only implement the async API."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="inspector-saver-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


def is_async_only(saver: BaseCheckpointSaver) -> bool:
    cls = type(saver)
    return cls.list is BaseCheckpointSaver.list or cls.__name__.startswith("Async")


class SaverCalls:
    """The saver's read calls, each failure one ``StoreError`` line (a mixin of ``SaverStore``: needs
    ``saver``, ``saver_name``, ``_is_async`` and ``_loop``)."""

    def _async(self) -> bool:
        return self._is_async

    def _list(self, config: dict | None, **options: Any) -> list[CheckpointTuple]:
        try:
            if self._async():
                async def collect() -> list[CheckpointTuple]:
                    return [t async for t in self.saver.alist(config, **options)]

                return self._loop.run(collect())
            return list(self.saver.list(config, **options))
        except Exception as exc:
            raise StoreError(f"{self.saver_name}.list failed: {type(exc).__name__}: {exc}") from None

    def _get_tuple(self, config: dict) -> CheckpointTuple | None:
        try:
            if self._async():
                return self._loop.run(self.saver.aget_tuple(config))
            return self.saver.get_tuple(config)
        except Exception as exc:
            raise StoreError(f"{self.saver_name}.get_tuple failed: {type(exc).__name__}: {exc}") from None

    def _delta_history(self, config: dict, channels: list[str]) -> dict:
        if self._async():
            return self._loop.run(self.saver.aget_delta_channel_history(config=config, channels=channels))
        return self.saver.get_delta_channel_history(config=config, channels=channels)
