"""The store contract on PostgreSQL, read with direct SQL as the read-only role."""

from __future__ import annotations

import pytest
from store_contract import ReadContract, WriteKeysContract
from store_contract_streams import StreamContract

from inspector.store import open_store

pytestmark = pytest.mark.postgres


class TestPostgresStore(ReadContract, StreamContract, WriteKeysContract):
    KEEPS_METADATA_WRITES = False  # PostgresSaver drops it

    @pytest.fixture(scope="class")
    @classmethod
    def backend(cls, pg_demo):
        pg, pg_out = pg_demo
        store = open_store(pg.readonly_dsn)
        yield store, pg_out
        store.close()
