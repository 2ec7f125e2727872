"""What a PostgreSQL checkpoint holds (``Store.checkpoint_shapes``): the checkpoint JSONB names every channel
(primitives inline, the rest by version in ``checkpoint_blobs``), and each blob's shape is read from a
bounded prefix of it (``substring``), so a large blob costs its first bytes."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..model import is_internal_channel
from ..shape_walk import BytesReader, value_shape
from ..shapes import CheckpointShapes, Shape, shape_of_value

ThreadKey = tuple[str, str, str]  # (thread id, namespace, checkpoint id)
PREFIX_BYTES = 16_384  # bytes of a blob read to judge its shape

_CHECKPOINTS = """
    SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.checkpoint -> 'channel_values',
           c.checkpoint -> 'channel_versions', c.metadata
    FROM unnest(%s::text[], %s::text[], %s::text[]) AS k(t, n, i)
    JOIN checkpoints c ON c.thread_id = k.t AND c.checkpoint_ns = k.n AND c.checkpoint_id = k.i
"""
_BLOBS = """
    SELECT b.thread_id, b.checkpoint_ns, b.channel, b.version, b.type, octet_length(b.blob),
           substring(b.blob from 1 for %s)
    FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[]) AS v(t, n, ch, ver)
    JOIN checkpoint_blobs b ON b.thread_id = v.t AND b.checkpoint_ns = v.n AND b.channel = v.ch AND b.version = v.ver
"""


def _blob_shape(type_tag: str | None, size: int, prefix: Any) -> Shape:
    if type_tag == "msgpack":
        return value_shape(BytesReader(bytes(prefix or b""), size))
    if type_tag in ("null", None):
        return Shape("none")
    if type_tag in ("bytes", "bytearray"):
        return Shape("bytes", size)
    return Shape("opaque", size, str(type_tag))


class PgShapes:
    """``checkpoint_shapes`` (a mixin of ``PostgresStore``: needs ``_query``)."""

    def checkpoint_shapes(self, keys: Collection[ThreadKey]) -> dict[ThreadKey, CheckpointShapes]:
        keys = list(dict.fromkeys(keys))
        if not keys:
            return {}
        rows = self._query(_CHECKPOINTS, [[k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys]])
        wanted: list[tuple[str, str, str, str]] = []
        for thread_id, ns, _, inline, versions, _ in rows:
            inline = inline if isinstance(inline, dict) else {}
            for channel, version in (versions if isinstance(versions, dict) else {}).items():
                if channel not in inline and not is_internal_channel(str(channel)):
                    wanted.append((thread_id, ns, str(channel), str(version)))
        blobs: dict[tuple[str, str, str, str], Shape | None] = {}
        if wanted:
            for thread_id, ns, channel, version, type_tag, size, prefix in self._query(
                    _BLOBS, [PREFIX_BYTES, *([w[i] for w in wanted] for i in range(4))]):
                blobs[(thread_id, ns, channel, version)] = (None if type_tag == "empty"
                                                            else _blob_shape(type_tag, int(size or 0), prefix))
        found: dict[ThreadKey, CheckpointShapes] = {}
        for thread_id, ns, cid, inline, versions, meta in rows:
            inline = inline if isinstance(inline, dict) else {}
            versions = versions if isinstance(versions, dict) else {}
            shapes = {str(k): shape_of_value(v) for k, v in inline.items() if not is_internal_channel(str(k))}
            held = [str(k) for k in inline]
            for channel, version in versions.items():
                shape = blobs.get((thread_id, ns, str(channel), str(version)))
                if shape is not None:
                    held.append(str(channel))
                    shapes[str(channel)] = shape
            found[(thread_id, ns, cid)] = CheckpointShapes(
                tuple(dict.fromkeys(held)), tuple(map(str, versions)), shapes,
                meta if isinstance(meta, dict) else {"value": meta})
        return found
