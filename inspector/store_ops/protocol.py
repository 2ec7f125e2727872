"""The ``Operations`` protocol: what operating one checkpoint store reads, which every backend implements.

``store_ops.operating(store)`` hands out a store's ``Operations``: ``retention_reader`` (keys and lengths for a
retention preview), ``growth_rows`` and ``growth_views`` (stored bytes per time bucket),
``growth_thread_rows`` (per thread, for the cache), ``file_facts``, ``orphan_rows`` and ``export_thread``
(rows as stored, for a support bundle). All of it is read from keys, lengths and the database's own
statistics, on the store's read-only connections; nothing is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Protocol, runtime_checkable

if TYPE_CHECKING:
    from ..store.orphan_rows import OrphanRows
    from .export_rows import ExportCheckpoint
    from .file_facts import FileFacts
    from .growth_rows import GrowthRows, ThreadGrowth
    from .retention_keys import RetentionReader


@runtime_checkable
class Operations(Protocol):
    """Operating one store: growth, retention keys, orphaned rows, file facts and export, from lengths."""

    def retention_reader(self) -> RetentionReader:
        """A reader of keys, parent ids and stored lengths, for retention planning (see ``retention_keys``).

        Returns:
            A ``RetentionReader`` (a context manager) over one consistent view of the store; it
            streams threads without decoding any value.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None, by: str | None = None,
                    top: int = 0, now: float | None = None) -> GrowthRows:
        """Stored bytes and checkpoints per time bucket, dated by the uuid6 checkpoint ids (see ``growth_rows``),
        aggregated by the database.

        Args:
            bucket_seconds: The buckets' width (86400: days, 3600: hours), aligned on 1970-01-01 UTC.
            since: Only rows dated at or after this time (seconds since 1970); None: all.
            by: ``store``, ``channel`` or ``thread``: the key the rows keep besides bucket and part (None:
                thread and channel).
            top: How many of the window's largest threads and channels to rank (0: none).
            now: The time the rows are read for (None: the clock): in its bucket, the bytes dated after it are
                counted apart too (``ahead_bytes``), by the same statement.

        Returns:
            ``GrowthRows``: one row per bucket, part and key (checkpoint rows, blob rows, writes), from lengths
            alone; the top threads and channels; the rows that carry no time; the store's totals; the bytes
            of now's bucket dated after now.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def growth_views(self, bucket_seconds: int, since: int | None, asks: list[tuple[str, int]],
                     now: float | None = None) -> list[GrowthRows]:
        """``growth_rows`` for several groupings of one window, in one statement (one view of the store).

        Args:
            bucket_seconds: The buckets' width, as for ``growth_rows``.
            since: The window's start, as for ``growth_rows``.
            asks: ``(by, top)`` pairs, ``by`` one of ``store``, ``channel`` or ``thread``.
            now: As for ``growth_rows``.

        Returns:
            One ``GrowthRows`` per ask, each equal to ``growth_rows(bucket_seconds, since, by, top, now)``.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def growth_thread_rows(self, bucket_seconds: int = 86_400, cut: str | None = None,
                           now: float | None = None) -> ThreadGrowth:
        """Each thread's stored bytes per time bucket, channel and part (no window), in one statement, for the
        growth rows the analysis cache keeps (``operations.growth_summaries``).

        Args:
            bucket_seconds: The buckets' width, as for ``growth_rows``.
            cut: None: every thread; else only the threads holding a uuid6 id greater than ``cut`` (the
                threads written since the store's greatest id was ``cut``).
            now: As for ``growth_rows``: the rows' bytes in now's bucket dated after it are counted apart.

        Returns:
            ``ThreadGrowth``: those rows (bucket None: not dated), the store's greatest uuid6 id (when every
            thread was read) and the store's totals (checkpoint rows, their bytes, the writes' bytes, the
            blob rows' bytes), all from one view of the store; and the rows' bytes dated after now in its bucket.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def file_facts(self, per_table: bool = True) -> FileFacts:
        """What the store's files hold, as the database reports it (see ``file_facts``).

        Args:
            per_table: Bytes per table and index too (SQLite's ``dbstat`` visits every page once).

        Returns:
            ``FileFacts``: file sizes, pages and free pages (SQLite), per-table heap, TOAST, index bytes,
            dead tuples and last vacuum (PostgreSQL), and the basis of the per-table bytes.

        Raises:
            StoreError: The store has no files to report on (a saver read through its API).
        """
        ...

    def orphan_rows(self, limit: int = 50) -> OrphanRows:
        """Rows no checkpoint needs (see ``orphan_rows``), from keys and lengths.

        Args:
            limit: How many threads each kind lists (the largest by bytes); counts and bytes cover all.

        Returns:
            ``OrphanRows``: writes against missing checkpoints (threads whose checkpoints are all gone
            marked), PostgreSQL blob rows no checkpoint names, and, where an app's thread table is
            present and readable, threads only the app or only the checkpoints know.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def export_thread(self, thread_id: str) -> Iterator[ExportCheckpoint]:
        """The rows of one thread as stored, for a support bundle (see ``export_rows``).

        Args:
            thread_id: The thread to export.

        Returns:
            Every checkpoint of every namespace, ordered by namespace and id, with the writes
            stored against it, serialized values untouched.

        Raises:
            NotFound: The thread is not in the store.
            StoreError: The store cannot hand out its rows as stored (a saver read through its API).
        """
        ...

