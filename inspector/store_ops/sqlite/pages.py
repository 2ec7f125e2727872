"""How many bytes of a SQLite file a row occupies, from its column lengths alone.

SQLite stores a row as one record (a header of varint serial types, then the
column contents) in a cell of a b-tree leaf page; when the record is bigger than
a page allows, the tail goes to a chain of overflow pages, each holding
``usable - 4`` bytes. An index entry is a record of the key columns plus the
rowid. The formulas are the ones in SQLite's file-format documentation
("B-tree Pages", "Record Format"), so a row's footprint is known exactly
without reading its contents; only how full VACUUM packs the leaf pages is an
estimate (``PageModel.leaf_density``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

LEAF_HEADER = 8  # bytes of a leaf page's header
CELL_POINTER = 2  # bytes of a cell's entry in the page's pointer array


def varint_len(value: int) -> int:
    """Bytes SQLite's varint encoding takes for ``value`` (1 to 9)."""
    if value < 0:
        return 9
    for size in range(1, 9):
        if value < 1 << (7 * size):
            return size
    return 9


def integer_len(value: int) -> int:
    """Content bytes of an integer column (serial types 8/9 store 0 and 1 in the header alone)."""
    if value in (0, 1):
        return 0
    for size, limit in ((1, 1 << 7), (2, 1 << 15), (3, 1 << 23), (4, 1 << 31), (6, 1 << 47)):
        if -limit <= value < limit:
            return size
    return 8


def record_len(kinds: str, values: Sequence[int | None]) -> int:
    """Bytes of the record holding a row: header (with its own length) plus contents.

    ``kinds`` gives each column's kind, ``t``(ext), ``b``(lob) or ``i``(nteger); ``values`` holds each
    text or blob column's length in bytes, each integer column's value, and None for NULL.
    """
    types = body = 0
    for kind, value in zip(kinds, values):
        if value is None:
            types += 1
        elif kind == "i":
            types += 1
            body += integer_len(value)
        else:
            serial = 2 * value + (13 if kind == "t" else 12)
            types += 1 if serial < 128 else 2 if serial < 16384 else varint_len(serial)
            body += value
    header = types + 1
    if header > 127:  # the header length counts itself
        header = types + varint_len(types + 2)
    return header + body


@dataclass(frozen=True)
class Footprint:
    """Where one row's bytes go: its cell on a leaf page (pointer included) and whole overflow pages."""

    cell: int
    overflow_pages: int


@dataclass(frozen=True)
class PageModel:
    """The geometry of one database file: page size and usable bytes per page."""

    page_size: int = 4096
    reserved: int = 0

    @property
    def usable(self) -> int:
        return self.page_size - self.reserved

    def _local(self, payload: int, max_local: int) -> int:
        usable = self.usable
        min_local = (usable - 12) * 32 // 255 - 23
        if payload <= max_local:
            return payload
        local = min_local + (payload - min_local) % (usable - 4)
        return local if local <= max_local else min_local

    def _footprint(self, payload: int, max_local: int, prefix: int) -> Footprint:
        local = self._local(payload, max_local)
        overflow = 0 if local == payload else -(-(payload - local) // (self.usable - 4))
        return Footprint(prefix + local + (4 if overflow else 0) + CELL_POINTER, overflow)

    def table_row(self, payload: int, rowid: int) -> Footprint:
        """A row of a rowid table whose record is ``payload`` bytes."""
        return self._footprint(payload, self.usable - 35, varint_len(payload) + varint_len(rowid))

    def index_entry(self, payload: int) -> Footprint:
        """An entry of an index b-tree whose record is ``payload`` bytes."""
        max_local = (self.usable - 12) * 64 // 255 - 23
        return self._footprint(payload, max_local, varint_len(payload))

    def leaf_density(self, mean_cell: float) -> float:
        """Cell bytes a packed leaf page holds: appending fills a page until the next cell does not fit,
        which leaves on average half a cell unused."""
        room = self.usable - LEAF_HEADER
        return max(room - mean_cell / 2, min(room, mean_cell))
