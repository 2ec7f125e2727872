"""Operating a checkpoint store: what its rows weigh and how they grow, what retention would free, which
rows nothing needs, what its files hold, and a thread's rows as stored.

``operating(store)`` hands out a store's ``Operations`` (``protocol``): growth over time (``growth_rows``,
``growth_views``: the rows the backends return), retention keys (``retention_keys``), file facts
(``file_facts``), orphaned rows and a thread's rows for a support bundle (``export_rows``), each backend's
SQL in ``sqlite/`` and ``postgres/``; a store read through a saver's API says it cannot (``unsupported``).
Everything is read from keys, lengths and the database's own statistics on the store's read-only
connections. It imports ``store`` (the connections, records and dialect pieces) and nothing else of the
inspector; reading checkpoints (``store``) never imports it.
"""

from __future__ import annotations

from typing import Any

from ..store.bundle import BundleStore
from ..store.sqlite import SqliteStore
from .protocol import Operations
from .unsupported import Unsupported

__all__ = ["Operations", "operating"]


def operating(store: Any) -> Operations:
    """The operations of ``store``: its backend's SQL over its connections (``Unsupported`` for a saver)."""
    if isinstance(store, BundleStore):
        from .sqlite import BundleOperations

        return BundleOperations(store)
    if isinstance(store, SqliteStore):
        from .sqlite import SqliteOperations

        return SqliteOperations(store)
    if getattr(store, "kind", None) == "postgres":
        from .postgres import PgOperations

        return PgOperations(store)
    return Unsupported(store)
