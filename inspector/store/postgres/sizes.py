"""Per-channel stored sizes on LangGraph's PostgreSQL schema, computed by the server.

Channel values that are not primitives live in ``checkpoint_blobs``, one row per
(channel, version): a checkpoint references the versions in its
``channel_versions`` and unchanged channels share a row. Lengths and content
hashes (``md5``) are computed in SQL, so blob contents never leave the server;
each row's ``blob_key`` lets the accounting count a shared row once
(``size_accounting = "shared-blobs"``). Primitive values inline in the
checkpoint JSONB are measured as their JSON text. Blob items (single messages)
are not visible without the contents, so ``ChannelSize.items`` stays empty; whether a
blob holds base64 image data is a byte search on the server (``holds_base64``).
"""

from __future__ import annotations

import json
from typing import Any, Callable

from ..measure import INSPECT_MAX_BYTES, ChannelSize, Inspect, base64_image_bytes, digest
from ..model import CheckpointSizes, NotFound
from ..not_utf8 import quoted
from ..records import is_step

Query = Callable[[str, Any], list[tuple]]

_CHECKPOINTS = """
    SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, metadata -> 'step', metadata ->> 'source',
           pg_column_size(checkpoint) + pg_column_size(metadata), checkpoint -> 'channel_values'
    FROM checkpoints WHERE thread_id = %s {ns}
    ORDER BY checkpoint_id, checkpoint_ns
"""

_BLOB_REFS = """
    WITH b AS (
        SELECT checkpoint_ns, channel, version, octet_length(blob) AS n, md5(blob) AS h,
               position(';base64,'::bytea IN blob) > 0 OR position('iVBORw0KGgo'::bytea IN blob) > 0
               OR position('/9j/'::bytea IN blob) > 0 AS b64
        FROM checkpoint_blobs WHERE thread_id = %s AND type <> 'empty' AND blob IS NOT NULL {ns}
    )
    SELECT c.checkpoint_ns, c.checkpoint_id, b.channel, b.version, b.n, b.h, b.b64
    FROM checkpoints c
    CROSS JOIN LATERAL jsonb_each_text(c.checkpoint -> 'channel_versions') v
    JOIN b ON b.checkpoint_ns = c.checkpoint_ns AND b.channel = v.key AND b.version = v.value
    WHERE c.thread_id = %s {c_ns}
"""

_WRITES = """
    SELECT checkpoint_ns, checkpoint_id, channel, sum(octet_length(blob)) FROM checkpoint_writes
    WHERE thread_id = %s {ns} GROUP BY checkpoint_ns, checkpoint_id, channel
"""


def _inline(values: Any, inspect: Inspect | None = None) -> dict[str, ChannelSize]:
    if not isinstance(values, dict):
        return {}
    sizes = {}
    for name, value in values.items():
        text = json.dumps(value).encode()
        sizes[str(name)] = ChannelSize(len(text), digest(text), holds_base64=base64_image_bytes(text) > 0)
        if inspect is not None and len(text) <= INSPECT_MAX_BYTES:
            inspect(sizes[str(name)].digest, text, "json")
    return sizes


def pg_field_sizes(query: Query, thread_id: str, ns: str | None = "", inspect: Inspect | None = None) -> list[CheckpointSizes]:
    """``Store.field_sizes`` for the PostgreSQL schema, through ``query(sql, params)``. ``inspect``: called with
    each small value read inline (``measure``), and with each small blob as ``(md5, b"", "unread")``: blob
    contents stay on the server."""
    ns_sql, c_ns_sql = ("", "") if ns is None else ("AND checkpoint_ns = %s", "AND c.checkpoint_ns = %s")
    extra = [] if ns is None else [ns]
    rows = query(_CHECKPOINTS.format(ns=ns_sql), [thread_id, *extra])
    if not rows:
        if ns is None or not query("SELECT 1 FROM checkpoints WHERE thread_id = %s LIMIT 1", [thread_id]):
            raise NotFound(f"no thread {quoted(thread_id)} in this store")
        return []
    blobs: dict[tuple[str, str], dict[str, ChannelSize]] = {}
    for cns, cid, channel, version, size, md5, b64 in query(
        _BLOB_REFS.format(ns=ns_sql, c_ns=c_ns_sql), [thread_id, *extra, thread_id, *extra]
    ):
        blobs.setdefault((cns, cid), {})[channel] = ChannelSize(int(size), md5, (), f"{cns}\x1f{channel}\x1f{version}",
                                                                holds_base64=bool(b64))
        if inspect is not None and int(size) <= INSPECT_MAX_BYTES:
            inspect(md5, b"", "unread")
    written: dict[tuple[str, str], dict[str, int]] = {}
    for cns, cid, channel, n in query(_WRITES.format(ns=ns_sql), [thread_id, *extra]):
        written.setdefault((cns, cid), {})[str(channel)] = int(n or 0)
    writes = {key: sum(channels.values()) for key, channels in written.items()}
    return [
        CheckpointSizes(
            thread_id=thread_id,
            checkpoint_ns=cns,
            checkpoint_id=cid,
            parent_checkpoint_id=parent,
            step=step if is_step(step) else None,
            source=source,
            stored_bytes=int(own or 0),
            writes_bytes=writes.get((cns, cid), 0),
            channels={**_inline(inline, inspect), **blobs.get((cns, cid), {})},
            written=written.get((cns, cid), {}),
        )
        for cns, cid, parent, step, source, own, inline in rows
    ]
