"""Delta channel history (``Store.delta_history``) against LangGraph's savers and ``get_state_history``."""

from __future__ import annotations

import asyncio

import pytest

from conformance.delta_spec import DELTA_CHECKS
from conformance.read_adapter import StoreReadSaver


@pytest.fixture(scope="module")
def read_saver(store_pair):
    with store_pair() as (writer, store):
        yield StoreReadSaver(writer, store)


@pytest.mark.parametrize("check", DELTA_CHECKS, ids=lambda check: check.__name__.removeprefix("check_"))
def test_delta_history_matches_langgraph(read_saver, check):
    asyncio.run(check(read_saver))
