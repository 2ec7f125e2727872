"""Growth over time of a SQLite store: stored lengths per time bucket, dated by the uuid6 checkpoint ids.

The timestamp is decoded from the id's hex digits in SQL, so one aggregate over keys and lengths answers
(the same rows the thread list's ranking reads). Every channel value is inside the checkpoint's one
msgpack blob, so per channel only the writes' bytes are split by channel; a checkpoint row's bytes are
counted under ``CHECKPOINT_KEY``.
"""

from __future__ import annotations

from ..growth_rows import (
    CHECKPOINT_KEY,
    TICKS_PER_SECOND,
    UUID_EPOCH_OFFSET,
    GrowthRow,
    GrowthRows,
    check_growth_args,
    since_ticks,
)
from .queries import OWN_BYTES

_HEX = "'0123456789abcdef'"
_DIGITS = (*range(1, 9), *range(10, 14), *range(16, 19))  # the 60 bits of time in a uuid6's text form
_UUID6_HEAD = "[0-9a-f]" * 8 + "-" + "[0-9a-f]" * 4 + "-6" + "[0-9a-f]" * 3


def ticks_of(column: str) -> str:
    """SQL: the uuid6 timestamp (100-ns ticks since 1582) of the id in ``column``, NULL for another id."""
    digits = " + ".join(f"((instr({_HEX}, substr({column}, {pos}, 1)) - 1) << {4 * (len(_DIGITS) - 1 - i)})"
                        for i, pos in enumerate(_DIGITS))
    return (f"CASE WHEN length({column}) = 36 AND substr({column}, 1, 18) GLOB '{_UUID6_HEAD}' "
            f"THEN ({digits}) END")


_BUCKET = f"(t - {UUID_EPOCH_OFFSET}) / {TICKS_PER_SECOND} / ? * ?"
_KEYS = {
    "store": ("''", "''"),
    "thread": ("thread_id", "thread_id"),
    "channel": (f"'{CHECKPOINT_KEY}'", "channel"),
}
SQLITE_CHANNEL_BASIS = (
    "SQLite keeps every channel value inside one msgpack blob per checkpoint, so its bytes are not split by "
    f"channel without reading it: they are counted under {CHECKPOINT_KEY!r}; per channel are the writes' "
    "bytes (what each node wrote, stored against the checkpoint its step started from)."
)


class SqliteGrowth:
    """``growth_rows`` (a mixin of ``SqliteStore``: needs ``_query``)."""

    def growth_rows(self, by: str = "store", bucket_seconds: int = 86_400, since: int | None = None) -> GrowthRows:
        check_growth_args(by, bucket_seconds)
        start = since_ticks(since)
        checkpoint_key, write_key = _KEYS[by]
        parts = (
            ("checkpoint", f"SELECT {ticks_of('checkpoint_id')} AS t, {checkpoint_key} AS key, 1 AS c, "
                           f"{OWN_BYTES} AS n FROM checkpoints"),
            ("writes", f"SELECT {ticks_of('checkpoint_id')} AS t, {write_key} AS key, 0 AS c, "
                       f"coalesce(length(value), 0) AS n FROM writes"),
        )
        rows: list[GrowthRow] = []
        untimed_checkpoints = untimed_bytes = 0
        for part, inner in parts:
            found = self._query(
                f"""SELECT CASE WHEN t IS NULL THEN NULL ELSE {_BUCKET} END AS bucket, key, sum(c), sum(n)
                    FROM ({inner}) WHERE t IS NULL OR t >= ? GROUP BY bucket, key""",
                [bucket_seconds, bucket_seconds, start])
            for bucket, key, count, total in found:
                if bucket is None:
                    untimed_checkpoints += count or 0
                    untimed_bytes += total or 0
                else:
                    rows.append(GrowthRow(int(bucket), str(key), part, int(count or 0), int(total or 0)))
        return GrowthRows(by, bucket_seconds, since, sorted(rows, key=lambda r: (r.bucket, r.key, r.part)),
                          untimed_checkpoints, untimed_bytes, SQLITE_CHANNEL_BASIS if by == "channel" else "")
