"""Growth rows remembered in the process while the store is unchanged (``operations.growth``): a report on a
store nothing was committed to since is the one read before; a commit that changed no growth row (an app's
own table) is caught by the fingerprint; a new turn written by LangGraph's saver, or a pruned checkpoint,
is read.
"""

from __future__ import annotations

import pytest
from test_growth_cache import NOW, Postgres, Sqlite, window

from inspector.operations.growth import _REMEMBERED, growth_report, remembered_growth_views
from inspector.store import open_store
from inspector.store_ops import operating

ASKS = [("thread", 10), ("store", 0)]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def written(request, tmp_path):
    if request.param == "sqlite":
        return Sqlite(tmp_path)
    return Postgres(request.getfixturevalue("postgres_dsn"), "inspector_growth_remembered")


def fresh(store) -> list:
    return operating(store).growth_views(86_400, window(10), ASKS)


def test_rows_are_remembered_until_something_is_committed(written):
    _REMEMBERED.clear()
    with open_store(written.url) as store:
        first = remembered_growth_views(store, 86_400, window(10), ASKS)
        assert first == fresh(store)
        # nothing committed since: the rows remembered. On PostgreSQL the token is the cluster's snapshot, which
        # a commit in another database of the cluster moves too (another test's, run beside this one): the rows
        # are then read once more with the fingerprint, and remembered from then on
        again = remembered_growth_views(store, 86_400, window(10), ASKS)
        assert again is first or (again == first and remembered_growth_views(store, 86_400, window(10), ASKS) is again)
        # commits that change no growth row (an app's own table): the token moves; the first time the rows are
        # read again with the fingerprint, from then on the fingerprint says they did not change
        written.sql("CREATE TABLE app_threads (id TEXT)")
        second = remembered_growth_views(store, 86_400, window(10), ASKS)
        assert second == first and second is not first
        written.sql("INSERT INTO app_threads VALUES ('x')")
        assert remembered_growth_views(store, 86_400, window(10), ASKS) is second
        written.write_turn("grow-b")  # a new turn, written by LangGraph's saver
        again = remembered_growth_views(store, 86_400, window(10), ASKS)
        assert again == fresh(store) != first
        assert remembered_growth_views(store, 86_400, window(10), ASKS) is again
        report = growth_report(store, "thread", "day", 10, now=NOW)
        _REMEMBERED.clear()
        assert growth_report(store, "thread", "day", 10, now=NOW) == report


def test_a_pruned_checkpoint_is_seen(written):
    _REMEMBERED.clear()
    with open_store(written.url) as store:
        first = remembered_growth_views(store, 86_400, window(10), ASKS)
        written.sql("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id = "
                    "(SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ?)", ["grow-c", "grow-c"])
        again = remembered_growth_views(store, 86_400, window(10), ASKS)
        assert again == fresh(store) != first
