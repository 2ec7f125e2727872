"""The ``Store`` protocol: read-only access to one checkpoint store, which every backend implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection, Iterable, Iterator, Protocol, Sequence, runtime_checkable

from .model import (
    BranchThread,
    CheckpointRow,
    CheckpointSizes,
    CheckpointState,
    Key,
    StoreTotals,
    ThreadSummary,
    WriteKey,
    WriteRecord,
)

if TYPE_CHECKING:
    from .delta import DeltaHistory
    from .export_rows import ExportCheckpoint
    from .file_facts import FileFacts
    from .growth_rows import GrowthRows, ThreadGrowth
    from .measure import Inspect
    from .orphan_rows import OrphanRows
    from .retention_keys import RetentionReader
    from .shapes import CheckpointShapes
    from .state_sizes import NewestStateSizes


@runtime_checkable
class Store(Protocol):
    """Read-only access to one checkpoint store.

    Threads: ``threads`` (ordered over every thread by the database), ``count_threads``,
    ``totals``. One thread's checkpoints: ``timeline`` (all of them), ``timeline_keys`` (all of
    them, keys and lengths only), ``checkpoint_rows`` (a page, in full), ``history`` (filtered
    and paged, as LangGraph's ``BaseCheckpointSaver.list``). One checkpoint: ``state``
    (decoded, delta channels rebuilt), ``delta_history`` (what a delta channel was rebuilt
    from). What tasks wrote on top of checkpoints, by keys only: ``write_keys``. Streams over a history
    in bounded batches: ``iter_states``, ``iter_writes``, ``iter_field_sizes``.
    Sizes: ``field_sizes``. Operating the store: ``retention_reader`` (keys and lengths for a
    retention preview), ``growth_rows`` (stored bytes per
    time bucket) and ``growth_thread_rows`` (per thread, for the cache), ``export_thread`` (rows as stored, for a support bundle).

    ``identity`` names the store without secrets (a file path, a server and database);
    ``fact_identity()`` adds which store is there now, so facts about its checkpoints can be kept
    in the analysis cache and a store replaced at the same place is never read from another's facts.
    """

    url: str
    kind: str
    read_only: bool
    size_accounting: str
    identity: str

    def fact_identity(self) -> str:
        """``identity`` and what the store itself holds that changes when another store takes its place: for
        SQLite the file's device, inode and birth time; for PostgreSQL the cluster's system identifier, the
        database's OID and the checkpoint tables' OIDs and file nodes. Stable while the store is only written
        to (new checkpoints, SQLite's WAL checkpoints, PostgreSQL's plain VACUUM)."""
        ...

    def threads(self, search: str | None = None, limit: int = 50, offset: int = 0,
                sort: str = "newest") -> list[ThreadSummary]:
        """One page of threads matching ``search`` (thread id or metadata, a plain substring). The thread
        list asks with a search of at most ``history.thread_list.SEARCH_LONGEST`` characters: SQLite refuses
        a LIKE pattern longer than 50,000 bytes (a ``StoreError``).

        Args:
            sort: ``newest`` (last update first), ``stored`` (stored bytes, largest first) or
                ``checkpoints`` (most first); the order is over every matching thread, computed
                by the database from keys and lengths, never from blob contents.
        Returns:
            At most ``limit`` summaries starting at ``offset`` in that order.
        """
        ...

    def count_threads(self, search: str | None = None) -> int: ...

    def search_metadata(self, search: str, thread_ids: Sequence[str] | None = None,
                        newest_only: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """The decoded metadata of the checkpoints ``threads(search=...)`` matches on: those whose thread id
        or stored metadata holds ``search``. For checking a search against what the views show.

        Args:
            thread_ids: Those threads only (None: every thread).
            newest_only: Each thread's newest such checkpoint only, so one row per matching thread.
        Returns:
            ``(thread_id, metadata)`` pairs, in no particular order.
        """
        ...

    def checkpoint_id_threads(self, search: str) -> set[str]:
        """The threads holding a checkpoint whose id contains ``search`` (a plain substring, any case);
        read from the keys alone."""
        ...

    def thread_titles(self) -> dict[str, str]:
        """``thread_id -> title``: the newest ``title`` each thread's tasks wrote (the title the thread list
        shows), for every thread that has one; read from those small writes, never a state blob."""
        ...

    def timeline(self, thread_id: str) -> list[CheckpointRow]:
        """Every checkpoint of the thread, every namespace, newest first; ``NotFound`` for an unknown thread."""
        ...

    def totals(self) -> StoreTotals:
        """Threads, checkpoints and stored bytes (checkpoints, blobs and writes) of the whole store,
        computed by the database from lengths."""
        ...

    def timeline_keys(self, thread_id: str, after: str | None = None) -> list[CheckpointRow]:
        """Every checkpoint's keys, parent, stored lengths and written channels, newest first: enough
        to lay out a history, read without metadata where the backend stores it behind the state.

        SQLite's rows are marked ``keys_only``: ``step`` comes from the checkpoint id, ``source`` is
        None and ``metadata`` holds only ``parents`` (a subgraph's first checkpoint needs it); other
        backends read metadata at no extra cost and return full rows. ``after`` keeps only
        checkpoints whose id is greater (following a running thread). Raises ``NotFound`` for an
        unknown thread.
        """
        ...

    def checkpoint_rows(self, thread_id: str, keys: Iterable[Key]) -> list[CheckpointRow]:
        """Full timeline rows (metadata included) for the ``(ns, checkpoint id)`` keys given, newest
        first; keys not in the store are left out. Reads only those rows: a page of a history."""
        ...

    def branch_threads(self, thread_id: str) -> list[BranchThread]:
        """The threads branched from ``thread_id``, as DeerFlow's "branch" records them.

        Found with one query over checkpoint keys and metadata (no state decoded): each
        thread's first root checkpoint whose ``branch_parent_thread_id`` names ``thread_id``.

        Args:
            thread_id: The thread the branches were taken from.

        Returns:
            ``BranchThread`` records (the branch, the parent checkpoint and message it came
            from, when it was made), oldest first; an empty list when there is none.
        """
        ...

    def history(
        self,
        thread_id: str,
        ns: str | None = "",
        *,
        before: str | None = None,
        limit: int | None = None,
        filter: dict[str, Any] | None = None,
    ) -> list[CheckpointRow]:
        """A thread's checkpoints that match, newest first, read without decoding any state.

        Args:
            thread_id: The thread to read.
            ns: Only checkpoints of this namespace (``""``: the root graph); ``None``: every namespace.
            before: Only checkpoints whose id sorts before this checkpoint id (a page cursor).
            limit: At most this many checkpoints, the newest that match; ``None``: all of them.
            filter: Only checkpoints whose metadata holds each of these top-level keys with
                an equal JSON value.

        Returns:
            ``CheckpointRow``s ordered by checkpoint id, newest first (then by namespace);
            an empty list when nothing matches, an unknown thread included.
        """
        ...

    def state(self, thread_id: str, checkpoint_id: str | None = None, ns: str = "") -> CheckpointState:
        """The decoded state at ``checkpoint_id`` (``None``: the newest of ``ns``); ``NotFound`` if absent."""
        ...

    def delta_history(
        self, thread_id: str, checkpoint_id: str, channels: Sequence[str], ns: str = ""
    ) -> dict[str, DeltaHistory]:
        """What delta channels (LangGraph's ``DeltaChannel``) at a checkpoint are rebuilt from.

        Walks the parent chain up from the checkpoint's parent (only on-path ancestors
        count in a forked thread), per channel up to the nearest ancestor that stores a
        value for it, as LangGraph's ``get_delta_channel_history`` does.

        Args:
            thread_id: The checkpoint's thread.
            checkpoint_id: The checkpoint whose channels are asked about.
            channels: Channel names; an empty sequence gives an empty mapping.
            ns: The checkpoint's namespace.

        Returns:
            For every name in ``channels``, a ``DeltaHistory``: the seed value (if any
            ancestor stores one) and the ordered writes since, the checkpoint's own
            pending writes excluded. Backends that read through a saver's API cannot
            tell which checkpoint or task path a write came from and leave those empty.

        Raises:
            NotFound: The checkpoint is not in the store.
        """
        ...

    def iter_states(self, thread_id: str, ns: str = "", checkpoint_ids: Collection[str] | None = None,
                    channels: Collection[str] | None = None) -> Iterator[CheckpointState]:
        """Decoded states of one namespace (or only ``checkpoint_ids``), oldest first, read in bounded
        batches so a history is never held in memory.

        Args:
            channels: decode only these channels (others are left out of ``values``); None: all.
        Returns:
            The states ``state()`` would return, each decoded once; a checkpoint whose parent was
            yielded just before rebuilds its delta channels from it instead of walking the history.
        """
        ...

    def iter_writes(self, thread_id: str, ns: str = "",
                    checkpoint_ids: Collection[str] | None = None) -> Iterator[tuple[str, list[WriteRecord]]]:
        """``(checkpoint id, its decoded writes in task order)`` for the checkpoints of one namespace (or
        ``checkpoint_ids``) that have writes, oldest first, in bounded batches; no state is read."""
        ...

    def write_keys(self, thread_id: str, keys: Iterable[Key]) -> dict[Key, list[WriteKey]]:
        """The writes stored against each of ``keys``, by their keys only: what a step's tasks wrote.

        Reads task ids, task paths, indexes, channels and lengths, never a value, but the ``Send``
        packets of ``__pregel_tasks`` writes, whose target node names a pushed task (``send_to``).
        Cost follows the keys asked for: a page of a history reads that page's writes.

        Args:
            thread_id: The thread the checkpoints belong to.
            keys: ``(ns, checkpoint id)`` pairs; unknown ones are left out.

        Returns:
            ``(ns, checkpoint id) -> WriteKey``s in task order (task path, task id, index), for the
            keys that have writes.
        """
        ...

    def checkpoint_shapes(self, keys: Collection[tuple[str, str, str]]) -> dict[tuple[str, str, str], "CheckpointShapes"]:
        """What each checkpoint named by ``(thread id, namespace, checkpoint id)`` holds, for choosing the app
        that wrote it: its channels, the shapes of their values and its metadata (``shapes.CheckpointShapes``).

        No value is decoded: a value's shape is read from its stored bytes by their headers, with a bound
        (SQLite's blob read through incremental I/O, only the pages the walk touches; PostgreSQL's blobs by a
        bounded prefix). Cost follows the keys asked for: the thread list asks for a page's newest checkpoints.

        Args:
            keys: ``(thread id, ns, checkpoint id)`` triples, of any threads; unknown ones are left out.

        Returns:
            ``key -> CheckpointShapes`` for the keys found; a checkpoint read only in part says why in ``problem``.
        """
        ...

    def iter_field_sizes(self, thread_id: str, ns: str | None = None, keys: Collection[Key] | None = None,
                         inspect: "Inspect | None" = None) -> Iterator[CheckpointSizes]:
        """``field_sizes`` as a stream in bounded batches (ordered by checkpoint id, then namespace);
        ``keys`` restricts it to those ``(ns, checkpoint id)`` pairs. ``inspect`` is called with each small
        value the backend reads while measuring (``measure.INSPECT_MAX_BYTES``): ``(digest, bytes, format)``,
        format ``msgpack`` or ``json``, or ``unread`` (and no bytes) for a small value whose contents the
        backend leaves on the server. Raises ``NotFound`` for an unknown thread."""
        ...

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Every checkpoint of ``ns`` (``None``: all namespaces), oldest first, each blob read once.

        The store's ``size_accounting`` attribute says how the bytes add up:
        ``PER_CHECKPOINT_COPY`` (every checkpoint stores every channel again) or
        ``SHARED_BLOBS`` (channels carry ``blob_key``; a key is stored once).
        """
        ...

    def retention_reader(self) -> "RetentionReader":
        """A reader of keys, parent ids and stored lengths, for retention planning (see ``retention_keys``).

        Returns:
            A ``RetentionReader`` (a context manager) over one consistent view of the store; it
            streams threads without decoding any value.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def growth_rows(self, bucket_seconds: int = 86_400, since: int | None = None, by: str | None = None,
                    top: int = 0, now: float | None = None) -> "GrowthRows":
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
                     now: float | None = None) -> list["GrowthRows"]:
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
                           now: float | None = None) -> "ThreadGrowth":
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

    def file_facts(self, per_table: bool = True) -> "FileFacts":
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

    def newest_state_sizes(self, threshold: int) -> "NewestStateSizes":
        """How many threads' newest root state passes ``threshold`` stored bytes, and the largest one.

        One aggregate over lengths (see ``state_sizes``): cheap enough for a metrics scrape.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def orphan_rows(self, limit: int = 50) -> "OrphanRows":
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

    def export_thread(self, thread_id: str) -> Iterator["ExportCheckpoint"]:
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

    def close(self) -> None: ...

    def __enter__(self) -> "Store": ...

    def __exit__(self, *exc: object) -> None: ...

