"""Running LangGraph's conformance suite (``checkpointer_test`` + ``validate``) over the read adapter."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager

from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.report import CapabilityReport
from langgraph.checkpoint.conformance.spec.test_get_tuple import ALL_GET_TUPLE_TESTS
from langgraph.checkpoint.conformance.spec.test_list import ALL_LIST_TESTS
from langgraph.checkpoint.conformance.spec.test_put import ALL_PUT_TESTS
from langgraph.checkpoint.conformance.spec.test_put_writes import ALL_PUT_WRITES_TESTS

from conformance.read_adapter import StoreReadSaver

# The capabilities whose tests read back what was written. Deleting, pruning and copying
# threads are writes: the inspector never does them.
READ_CAPABILITIES: dict[str, list] = {
    "put": ALL_PUT_TESTS,
    "put_writes": ALL_PUT_WRITES_TESTS,
    "get_tuple": ALL_GET_TUPLE_TESTS,
    "list": ALL_LIST_TESTS,
}


def run_read_suite(store_pair: Callable[[], AbstractContextManager], capabilities: Iterable[str]) -> CapabilityReport:
    """``validate()`` the read adapter over fresh stores from ``store_pair`` (one per capability)."""

    async def factory():
        with store_pair() as (writer, store):
            yield StoreReadSaver(writer, store)

    registered = checkpointer_test(name=f"inspector-store-{uuid.uuid4().hex[:8]}")(factory)
    return asyncio.run(validate(registered, capabilities=set(capabilities)))
