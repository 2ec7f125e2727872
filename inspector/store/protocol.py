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
    ThreadHeads,
    ThreadSummary,
    WriteKey,
    WriteRecord,
)

if TYPE_CHECKING:
    from .delta import DeltaHistory
    from .measure import Inspect
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
    Sizes: ``field_sizes``; ``newest_state_sizes`` for a metrics scrape. Operating the store (growth,
    retention keys, orphaned rows, file facts, export) is ``store_ops``, over the same backends.

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
                sort: str = "newest", only: Sequence[str] | None = None) -> list[ThreadSummary]:
        """One page of threads matching ``search`` (thread id or metadata, a plain substring). The thread
        list asks with a search of at most ``history.thread_list.SEARCH_LONGEST`` characters: SQLite refuses
        a LIKE pattern longer than 50,000 bytes (a ``StoreError``).

        Args:
            sort: ``newest`` (last update first), ``stored`` (stored bytes, largest first) or
                ``checkpoints`` (most first); the order is over every matching thread, computed
                by the database from keys and lengths, never from blob contents.
            only: Those threads only (at most 10,000 of them; None: every thread).
        Returns:
            At most ``limit`` summaries starting at ``offset`` in that order.
        """
        ...

    def count_threads(self, search: str | None = None, only: Sequence[str] | None = None) -> int: ...

    def thread_heads(self, since: str | None = None) -> ThreadHeads:
        """Where the threads stand (see ``ThreadHeads``), for the search index the analysis cache keeps.

        Args:
            since: Only the threads holding a checkpoint id greater than this (None: every thread).
        Returns:
            ``ThreadHeads`` read from keys alone, in one statement (one view of the store).
        """
        ...

    def newest_write_keys(self, thread_ids: Sequence[str] | None = None) -> dict[str, tuple[str, list[WriteKey]]]:
        """Each thread's newest root checkpoint id and the writes stored against it, by keys only (what its
        tasks wrote since: a step under way, an interrupt, an error), for the threads' status.

        Args:
            thread_ids: Those threads (each listed, with no writes where it has none); None: every thread whose
                newest root checkpoint has writes, in one statement.
        Returns:
            ``thread_id -> (newest root checkpoint id, its write keys in task order)``.
        """
        ...

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

    def id_threads(self, search: str) -> set[str]:
        """The threads whose id, or one of whose checkpoint ids, contains ``search`` (a plain substring, any
        case); read from the keys alone."""
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

    def newest_state_sizes(self, threshold: int) -> "NewestStateSizes":
        """How many threads' newest root state passes ``threshold`` stored bytes, and the largest one.

        One aggregate over lengths (see ``state_sizes``): cheap enough for a metrics scrape.

        Raises:
            StoreError: The store cannot list its rows (a saver read through its API).
        """
        ...

    def close(self) -> None: ...

    def __enter__(self) -> "Store": ...

    def __exit__(self, *exc: object) -> None: ...

