"""A store whose rows cannot be listed (a saver read through its API): each operation says so in one line."""

from __future__ import annotations

from typing import Any

from ..store.model import not_supported


class Unsupported:
    """The operations of a store read through a saver's API: it lists checkpoints, not stored rows and lengths."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def retention_reader(self) -> Any:
        """Not supported: a saver's API lists checkpoints, not stored rows and their lengths."""
        not_supported("A retention preview")

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None, by: str | None = None,
                    top: int = 0, now: float | None = None) -> Any:
        """Not supported: a saver's API returns deserialized checkpoints, not stored rows and their lengths."""
        not_supported("Growth over time")

    def growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]],
                     now: float | None = None) -> Any:
        """Not supported, as ``growth_rows``."""
        not_supported("Growth over time")

    def growth_thread_rows(self, bucket_seconds: int = 86_400, cut: str | None = None,
                           now: float | None = None) -> Any:
        """Not supported, as ``growth_rows``."""
        not_supported("Growth over time")

    def file_facts(self, per_table: bool = True) -> Any:
        """Not supported: a saver's API does not say what its storage holds."""
        not_supported("File facts")

    def orphan_rows(self, limit: int = 50) -> Any:
        """Not supported: a saver's API lists checkpoints, not the stored rows none of them needs."""
        not_supported("Finding orphaned rows")

    def export_thread(self, thread_id: str) -> Any:
        """Not supported: a saver's API returns deserialized objects, not the rows a bundle copies."""
        not_supported("Exporting a thread")
