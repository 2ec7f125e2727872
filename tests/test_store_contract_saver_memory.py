"""The store contract on the saver adapter over LangGraph's InMemorySaver (no PostgreSQL needed)."""

from __future__ import annotations

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from store_contract import ReadContract, WriteKeysContract
from store_contract_streams import StreamContract

from inspector.demo import run_demo
from inspector.store.saver import SaverStore


class TestInMemorySaverStore(ReadContract, StreamContract, WriteKeysContract):
    KEEPS_TASK_PATHS = False  # the saver API hands back pending writes without them
    KEEPS_METADATA_WRITES = True

    @pytest.fixture(scope="class")
    @classmethod
    def backend(cls, tmp_path_factory):
        saver = InMemorySaver()
        out = run_demo(saver, tmp_path_factory.mktemp("memory-demo"))
        store = SaverStore(saver, "memory")
        yield store, out
        store.close()
