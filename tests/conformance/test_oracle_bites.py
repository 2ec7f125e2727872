"""The oracles bite: a store with a planted read bug fails LangGraph's conformance suite or the delta checks.

Each bug is planted on the store's public surface (its ``state``, ``history`` and
``delta_history`` answers are altered on the instance the adapter reads from), and the
run must fail in the tests that check what the bug breaks.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from contextlib import contextmanager

import pytest

from conformance import delta_spec
from conformance.read_adapter import StoreReadSaver
from conformance.suites import run_read_suite


def planted(store_pair, method: str, bug: Callable) -> Callable:
    """``store_pair`` whose stores answer ``method`` with ``bug(honest_method, *args, **kwargs)``."""

    @contextmanager
    def pair():
        with store_pair() as (writer, store):
            honest = getattr(store, method)
            setattr(store, method, lambda *args, **kwargs: bug(honest, *args, **kwargs))
            yield writer, store

    return pair


def drop_parent(state, *args, **kwargs):
    return dataclasses.replace(state(*args, **kwargs), parent_checkpoint_id=None)


def trim_metadata(state, *args, **kwargs):
    found = state(*args, **kwargs)
    return dataclasses.replace(found, metadata={k: v for k, v in found.metadata.items() if k in ("source", "step")})


def lose_versions_seen(state, *args, **kwargs):
    found = state(*args, **kwargs)
    return dataclasses.replace(found, header={**found.header, "versions_seen": {}})


def ignore_before(history, *args, before=None, **kwargs):
    return history(*args, **kwargs)


READ_BUGS = {
    "parent-id-dropped": ("state", drop_parent, {"test_put_parent_config", "test_get_tuple_parent_config"}),
    "metadata-trimmed": ("state", trim_metadata, {"test_put_preserves_metadata", "test_put_preserves_run_id"}),
    "versions-seen-lost": ("state", lose_versions_seen, {"test_put_preserves_versions_seen"}),
    "before-ignored": ("history", ignore_before, {"test_list_before"}),
}


@pytest.mark.parametrize("bug", list(READ_BUGS))
def test_langgraph_conformance_fails_on_a_planted_read_bug(store_pair, bug):
    method, alter, expected = READ_BUGS[bug]
    report = run_read_suite(planted(store_pair, method, alter), ["put", "get_tuple", "list"])
    failed = {failure.split(":")[0] for result in report.results.values() for failure in result.failures}
    assert expected <= failed, f"{bug}: the suite failed {sorted(failed)}"


def skip_seed_writes(delta_history, *args, **kwargs):
    return {ch: dataclasses.replace(h, writes=tuple(w for w in h.writes if w.checkpoint_id != h.seed_checkpoint_id))
            for ch, h in delta_history(*args, **kwargs).items()}


def order_by_task_id(delta_history, *args, **kwargs):
    return {ch: dataclasses.replace(h, writes=tuple(sorted(h.writes, key=lambda w: (w.checkpoint_id, w.task_id))))
            for ch, h in delta_history(*args, **kwargs).items()}


DELTA_BUGS = {
    "seed-writes-skipped": (skip_seed_writes, delta_spec.check_the_seeds_own_writes_are_history),
    "writes-in-task-id-order": (order_by_task_id, delta_spec.check_a_steps_writes_follow_task_path_then_task_id),
}


@pytest.mark.parametrize("bug", list(DELTA_BUGS))
def test_delta_checks_fail_on_a_planted_history_bug(store_pair, bug):
    alter, check = DELTA_BUGS[bug]
    with store_pair() as (writer, store):
        assert asyncio.run(delta_spec.run_delta_checks(StoreReadSaver(writer, store), [check])) == []
    with planted(store_pair, "delta_history", alter)() as (writer, store):
        failures = asyncio.run(delta_spec.run_delta_checks(StoreReadSaver(writer, store), [check]))
    assert [failure.split(":")[0] for failure in failures] == [check.__name__]
