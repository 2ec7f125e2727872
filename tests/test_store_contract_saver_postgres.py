"""The store contract on the saver adapter over LangGraph's PostgresSaver, connected as the read-only role."""

from __future__ import annotations

import psycopg
import pytest
from langgraph.checkpoint.postgres import PostgresSaver
from psycopg.rows import dict_row
from store_contract import ReadContract, WriteKeysContract
from store_contract_streams import StreamContract

from inspector.store.saver import SaverStore

pytestmark = pytest.mark.postgres


class TestPostgresSaverStore(ReadContract, StreamContract, WriteKeysContract):
    KEEPS_TASK_PATHS = False  # the saver API hands back pending writes without them
    KEEPS_METADATA_WRITES = False  # PostgresSaver drops it

    @pytest.fixture(scope="class")
    @classmethod
    def backend(cls, pg_demo):
        pg, pg_out = pg_demo
        with psycopg.connect(pg.readonly_dsn, autocommit=True, row_factory=dict_row, prepare_threshold=0) as conn:
            store = SaverStore(PostgresSaver(conn), "postgres-saver")
            yield store, pg_out
            store.close()
