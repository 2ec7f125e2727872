"""Per-channel stored sizes of a SQLite thread's checkpoints, measured from the blobs without decoding."""

from __future__ import annotations

from typing import Any, Collection, Iterator

from ..measure import Inspect, MeasuredCheckpoint, measure_checkpoint_blob
from ..model import CheckpointSizes, Key
from ..records import batches, step_and_source, thread_not_found
from .queries import by_namespace, metadata


class SqliteSizes:
    """``field_sizes`` and its stream (a mixin of ``SqliteStore``: needs ``_query``, ``_blob_rows``,
    ``_writes_by_channel`` and ``_has_thread``)."""

    def field_sizes(self, thread_id: str, ns: str | None = "") -> list[CheckpointSizes]:
        """Per-channel stored sizes of every checkpoint, oldest first; values are never decoded.

        Each checkpoint blob holds its own copy of every channel, so sizes add up
        per checkpoint (``size_accounting = "per-checkpoint-copy"``).
        """
        return list(self.iter_field_sizes(thread_id, ns))

    def iter_field_sizes(self, thread_id: str, ns: str | None = None, keys: Collection[Key] | None = None,
                         inspect: Inspect | None = None) -> Iterator[CheckpointSizes]:
        ns_clause, params = ("", [thread_id]) if ns is None else ("AND checkpoint_ns = ?", [thread_id, ns])
        listed = self._query(
            f"""SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, length(checkpoint) FROM checkpoints
                WHERE thread_id = ? {ns_clause}""",
            params,
        )
        if not listed and not self._has_thread(thread_id):
            raise thread_not_found(thread_id)
        wanted = None if keys is None else set(keys)
        order = sorted((r for r in listed if wanted is None or (r[0], r[1]) in wanted), key=lambda r: (r[1], r[0]))
        return self._stream_sizes(thread_id, ns_clause, params, order, inspect)

    def _stream_sizes(self, thread_id: str, ns_clause: str, params: list[Any], order: list[tuple],
                      inspect: Inspect | None) -> Iterator[CheckpointSizes]:
        written = self._writes_by_channel(thread_id, ns_clause, params[1:])
        writes = {key: sum(channels.values()) for key, channels in written.items()}
        measured: dict[Key, MeasuredCheckpoint] = {}  # the newest measurement per namespace, for its children
        for batch in batches(order, lambda r: r[3] or 0):
            fetched: dict[Key, tuple] = {}
            for ns, ids in by_namespace((r[0], r[1]) for r in batch).items():
                for cid, row in self._blob_rows(thread_id, ns, ids, "type, checkpoint, metadata").items():
                    fetched[(ns, cid)] = row
            for ns, cid, parent, _ in batch:
                if (ns, cid) not in fetched:  # deleted while streaming
                    continue
                type_tag, blob, raw_meta = fetched.pop((ns, cid))
                previous = measured.get((ns, parent)) if parent else None
                current = measure_checkpoint_blob(type_tag, blob, previous, inspect)
                measured = {(ns, cid): current, **{k: v for k, v in measured.items() if k[0] != ns}}
                step, source = step_and_source(metadata(raw_meta))
                yield CheckpointSizes(thread_id, ns, cid, parent, step, source, len(blob or b"") + len(raw_meta or b""),
                                      writes.get((ns, cid), 0), current.channels, tuple(current.problems),
                                      written=written.get((ns, cid), {}))
