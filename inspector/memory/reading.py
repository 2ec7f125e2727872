"""The reading of a memory store written once: each backend (``sqlite``, ``postgres``) supplies its connection and
its words for the SQL written here once (``Dialect``: placeholder, size and day functions); this turns the rows
into records.

Cost follows the screen: the namespace aggregate and the vector aggregate are one ``GROUP BY`` each over lengths
(no value is parsed); a list of items reads keys, lengths and times of one page of one namespace; one item's value
is read when that item is shown; growth is two aggregates, run when asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable

from .model import GrowthDay, Item, ItemRow, NamespaceRow, VectorRow
from .times import stored_time, time_problem
from .values import parse_value, threads_named

ITEM_SORTS = ("key", "updated", "bytes")
LONGEST_PAGE = 1_000  # items one list reads at most


_COLUMNS = "s.key, {bytes}, s.created_at, s.updated_at, {{expires}}, {{ttl}}, {{vectors}}"
# what stands in for the TTL columns in a store migrated before them (nothing bound)
NO_TTL = {"expires": "NULL", "ttl": "NULL", "with_ttl": "0", "expired": "0"}


@dataclass(frozen=True)
class Dialect:
    """One backend's words for the SQL written here once: ``mark``, its parameter placeholder; ``size``, its
    function giving a value's stored bytes (an embedding's; a value's too unless ``value_bytes`` says otherwise);
    ``day``, a time column's UTC day (``{}``: the column); ``expired``, the count of a namespace's expired items
    (bound: now); ``differs``, a null-safe "not equal"; ``newest_first``, an ``ORDER BY`` putting the newest
    update first and a missing one last; ``float32_dims``, an embedding's bytes are float32 values (sqlite-vec's
    format). ``{ttl}``-style holes are filled by ``MemoryReader`` with the columns the table has."""

    mark: str
    size: str
    day: str
    expired: str
    value_bytes: str = ""
    differs: str = "IS DISTINCT FROM"
    newest_first: str = "DESC NULLS LAST"
    float32_dims: bool = False

    @property
    def stored_bytes(self) -> str:
        return self.value_bytes or f"{self.size}(s.value)"

    @property
    def namespaces(self) -> str:  # prefix, items, bytes, with TTL, expired, newest update
        return f"SELECT s.prefix, count(*), sum({self.stored_bytes}), {{with_ttl}}, {{expired}}, max(s.updated_at) " \
               "FROM store s GROUP BY s.prefix"

    @property
    def vectors_by_namespace(self) -> str:  # prefix, rows, bytes
        return f"SELECT prefix, count(*), sum({self.size}(embedding)) FROM store_vectors GROUP BY prefix"

    @property
    def items(self) -> str:  # key, bytes, created, updated, expires, ttl, vector rows; bound: prefix, limit, offset
        columns, m = _COLUMNS.format(bytes=self.stored_bytes), self.mark
        return f"SELECT {columns} FROM store s WHERE s.prefix = {m} ORDER BY {{order}} LIMIT {m} OFFSET {m}"

    @property
    def item(self) -> str:  # the same columns and the value; bound: prefix, key
        columns = _COLUMNS.format(bytes=self.stored_bytes)
        return f"SELECT {columns}, s.value FROM store s WHERE s.prefix = {self.mark} AND s.key = {self.mark}"

    @property
    def item_vectors(self) -> str:  # field_name, bytes, created, updated; bound: prefix, key
        return f"SELECT field_name, {self.size}(embedding), created_at, updated_at FROM store_vectors " \
               f"WHERE prefix = {self.mark} AND key = {self.mark} ORDER BY field_name"

    @property
    def growth_created(self) -> str:  # day, items, bytes
        return f"SELECT {self.day.format('s.created_at')}, count(*), sum({self.stored_bytes}) FROM store s GROUP BY 1"

    @property
    def growth_updated(self) -> str:  # day, items
        updated, created = self.day.format("updated_at"), self.day.format("created_at")
        return f"SELECT {updated}, count(*) FROM store WHERE {updated} {self.differs} {created} GROUP BY 1"

    count = "SELECT count(*) FROM store"  # every item

    @property
    def orders(self) -> dict[str, str]:  # ITEM_SORTS -> ORDER BY clause
        return {"key": "s.key", "updated": f"s.updated_at {self.newest_first}, s.key",
                "bytes": f"{self.stored_bytes} DESC, s.key"}

    @property
    def ttl(self) -> dict[str, str]:  # the holes {expires}, {ttl}, {with_ttl}, {expired} over the TTL columns
        return {"expires": "s.expires_at", "ttl": "s.ttl_minutes", "with_ttl": "count(s.expires_at)",
                "expired": self.expired}


class MemoryReader:
    """A LangGraph memory store's tables, read-only. Subclasses set ``kind``, ``where``, ``tables``, ``columns``,
    ``migration`` and ``dialect``, and implement ``_query`` and ``close``."""

    kind = ""
    where = ""
    url = ""
    tables: frozenset[str] = frozenset()
    columns: frozenset[str] = frozenset()  # the store table's
    migration: int | None = None  # store_migrations' newest level
    vector_migration: int | None = None
    dialect: Dialect

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[tuple]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> "MemoryReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the store holds -------------------------------------------------------------------------

    @property
    def present(self) -> bool:
        """Whether LangGraph's memory table (``store``) is here."""
        return "store" in self.tables

    @property
    def has_ttl(self) -> bool:
        return {"expires_at", "ttl_minutes"} <= self.columns

    @property
    def has_vectors(self) -> bool:
        return "store_vectors" in self.tables

    def _sql(self, template: str, order: str = "") -> str:
        holes = dict(self.dialect.ttl if self.has_ttl else NO_TTL)
        holes["vectors"] = ("(SELECT count(*) FROM store_vectors v WHERE v.prefix = s.prefix AND v.key = s.key)"
                            if self.has_vectors else "0")
        holes["order"] = order
        return template.format(**holes)

    def count(self) -> int:
        """Every item: the plain count the namespace tree is measured against."""
        return int(self._query(self.dialect.count)[0][0]) if self.present else 0

    def namespaces(self, now: datetime | None = None) -> list[NamespaceRow]:
        """Every stored namespace with its items, bytes, TTLs and vector rows: two aggregates, no value read."""
        if not self.present:
            return []
        now = now or datetime.now(timezone.utc)
        vectors: dict[str, tuple[int, int]] = {}
        if self.has_vectors:
            vectors = {prefix: (int(n), int(b or 0)) for prefix, n, b in self._query(self.dialect.vectors_by_namespace)}
        rows = []
        params = [self._now_param(now)] if self.has_ttl else []
        for prefix, items, size, with_ttl, expired, newest in self._query(self._sql(self.dialect.namespaces), params):
            n_vectors, vector_bytes = vectors.pop(prefix, (0, 0))
            rows.append(NamespaceRow(prefix, int(items), int(size or 0), int(with_ttl or 0), int(expired or 0),
                                     stored_time(newest), n_vectors, vector_bytes))
        # vector rows whose item is gone (a foreign key SQLite does not enforce unless asked): their own namespace
        rows += [NamespaceRow(prefix, 0, 0, vector_rows=n, vector_bytes=b) for prefix, (n, b) in vectors.items()]
        return rows

    def items(self, prefix: str, limit: int = 100, offset: int = 0, sort: str = "key") -> list[ItemRow]:
        """One page of the items stored directly in namespace ``prefix`` (keys, lengths, times; no value)."""
        if not self.present:
            return []
        if sort not in ITEM_SORTS:
            raise ValueError(f"sort must be one of {', '.join(ITEM_SORTS)}")
        limit = max(0, min(int(limit), LONGEST_PAGE))
        sql = self._sql(self.dialect.items, self.dialect.orders[sort])
        return [self._row(prefix, *r) for r in self._query(sql, [prefix, limit, max(0, int(offset))])]

    def item(self, prefix: str, key: str) -> Item | None:
        """One item whole (its value parsed under the depth guard, its vector rows, the threads it names), or None."""
        if not self.present:
            return None
        found = self._query(self._sql(self.dialect.item), [prefix, key])
        if not found:
            return None
        *columns, stored = found[0]
        row = self._row(prefix, *columns)
        value, chars, problems = parse_value(stored)
        vectors = self._vectors(prefix, key) if row.vector_rows else []
        return Item(row, value, chars, vectors, threads_named(value), [*row.problems, *problems])

    def growth(self) -> list[GrowthDay]:
        """Items per UTC day of creation (with their bytes) and of a later update, oldest day first."""
        if not self.present:
            return []
        updated = {str(day): int(n) for day, n in self._query(self.dialect.growth_updated)}
        days = {str(day): GrowthDay(str(day), int(n), int(b or 0), updated.pop(str(day), 0))
                for day, n, b in self._query(self.dialect.growth_created)}
        days.update({day: GrowthDay(day, 0, 0, n) for day, n in updated.items()})
        return [days[d] for d in sorted(days)]

    # --- rows ---------------------------------------------------------------------------------------------

    def _now_param(self, now: datetime) -> Any:
        return now

    def _row(self, prefix: str, key: str, size: Any, created: Any, updated: Any, expires: Any, ttl: Any,
             vectors: Any) -> ItemRow:
        problems = tuple(p for p in (time_problem("created_at", created), time_problem("updated_at", updated),
                                     time_problem("expires_at", expires)) if p)
        ttl_minutes = None
        if ttl is not None:
            try:
                ttl_minutes = float(ttl)
            except (TypeError, ValueError):
                from ..store.not_utf8 import named

                problems += (f"ttl_minutes holds {named(ttl)}, which is no number",)
        return ItemRow(prefix, key, int(size or 0), stored_time(created), stored_time(updated), stored_time(expires),
                       ttl_minutes, int(vectors or 0), problems)

    def _vectors(self, prefix: str, key: str) -> list[VectorRow]:
        if not self.has_vectors:
            return []
        out = []
        for name, size, created, updated in self._query(self.dialect.item_vectors, [prefix, key]):
            size = int(size or 0)
            dims = size // 4 if self.dialect.float32_dims and size % 4 == 0 else None
            out.append(VectorRow(str(name), size, dims, stored_time(created), stored_time(updated)))
        return out
