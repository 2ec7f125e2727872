"""The test session: markers, the analysis cache folder and the schema every test starts with. The shared
fixtures live in ``tests/fixtures/`` (stores, PostgreSQL, servers) and ``tests/demo_store.py``; the
helpers tests import from here are re-exported below under their old names."""

from __future__ import annotations

import os

import pytest

pytest.register_assert_rewrite("fixtures")  # the plugins below are imported here first: rewrite them too

from fixtures import REPO_ROOT, free_port  # noqa: E402, F401  (imported by tests from conftest)
from fixtures.postgres import (  # noqa: E402, F401  (imported by tests from conftest)
    READONLY_ROLE,
    PgServer,
    fresh_database,
    grant_readonly_role,
    pg_url,
    throwaway_cluster,
    written_database,
)

pytest_plugins = [
    "demo_store",  # the demo tests' fixtures (test_demo*.py)
    "fixtures.stores",
    "fixtures.postgres",
    "fixtures.servers",
    "profile_stores",  # stores whose threads hide their app from the writes (test_profile_choice.py)
]


# --- markers -------------------------------------------------------------------

BROWSER_FIXTURE = "browser"  # the session fixture that launches Chromium; ``page`` and others build on it


def uses_browser(item: pytest.Item) -> bool:
    """Whether ``item`` starts Chromium: the browser fixture is in its closure (a parameter merely named
    ``page`` is not the fixture: pytest prunes the fixture it overrides)."""
    return BROWSER_FIXTURE in getattr(item, "fixturenames", ())


# What this session collected, before ``-m`` or ``-k`` left anything out: per test, whether ``-m browser`` keeps
# it (the marker names it carries), the fixtures it really uses and its file (read by test_markers.py).
COLLECTED = pytest.StashKey[dict]()


@pytest.hookimpl(tryfirst=True)  # before pytest's own hook deselects by ``-m`` and ``-k``
def pytest_collection_modifyitems(config, items):
    """Every test that uses the browser fixture, and only those, carries the ``browser`` marker, so
    ``-m "not browser"`` deselects exactly them."""
    seen = config.stash.setdefault(COLLECTED, {})
    for item in items:
        if uses_browser(item):
            item.add_marker(pytest.mark.browser)
        seen[item.nodeid] = {"selected": "browser" in {mark.name for mark in item.iter_markers()},
                             "fixtures": sorted(item.fixturenames), "path": str(item.path)}


# --- the analysis cache ----------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def analysis_cache_dir(tmp_path_factory):
    """Every test, and every process a test starts, keeps its analysis cache in a folder of this session."""
    folder = tmp_path_factory.mktemp("analysis-cache")
    previous = os.environ.get("INSPECTOR_CACHE_DIR")
    os.environ["INSPECTOR_CACHE_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("INSPECTOR_CACHE_DIR", None)
    else:
        os.environ["INSPECTOR_CACHE_DIR"] = previous


@pytest.fixture(autouse=True)
def default_schema():
    """Every test starts and ends with no schema and no profile named by the operator (the CLI and the
    app name them process-wide): each thread is read with the profile its data shows."""
    from inspector import profiles, schema

    schema.activate(None)
    profiles.name_profile(None)
    yield
    schema.activate(None)
    profiles.name_profile(None)


def count_state_reads(store, monkeypatch):
    """A Counter of ``store.state`` calls per checkpoint id, filled as the test runs."""
    from collections import Counter

    calls = Counter()
    real_state = store.state

    def spy(thread_id, checkpoint_id=None, ns=""):
        calls[checkpoint_id] += 1
        return real_state(thread_id, checkpoint_id, ns)

    monkeypatch.setattr(store, "state", spy)
    return calls
