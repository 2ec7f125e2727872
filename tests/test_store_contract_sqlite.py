"""The store contract on SQLite, read with direct SQL: the reference every other backend is compared with."""

from __future__ import annotations

import pytest
from store_contract import ReadContract, WriteKeysContract
from store_contract_streams import StreamContract

from inspector.store import open_store


class TestSqliteStore(ReadContract, StreamContract, WriteKeysContract):
    KEEPS_METADATA_WRITES = True

    @pytest.fixture(scope="class")
    @classmethod
    def backend(cls, demo_db, demo_dir):
        store = open_store(f"sqlite:///{demo_db}")
        yield store, demo_dir
        store.close()
