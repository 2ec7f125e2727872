"""AppTest on a store shaped like production (a long thread, many small ones): what opening a page costs,
and store-wide answers that look past the first page."""

from __future__ import annotations

from collections import Counter

import pytest
from ui_app import all_text, messages_drawn, native_control, open_page

from benchmarks.store_generator import LONG_THREAD
from inspector.store import open_store
from inspector.ui import connection, data, thread_page
from inspector.ui.timeline_view import ONLY_CHECKPOINT, PAGE_SIZE

HISTORY_WIDE = {"timeline", "iter_states", "iter_field_sizes", "field_sizes", "totals"}


class CountingStore:
    """A real store that counts the calls made to it."""

    def __init__(self, inner) -> None:
        self._inner = inner
        self.calls: Counter = Counter()

    def __getattr__(self, name):
        attr = getattr(self._inner, name)
        if not callable(attr):
            return attr

        def counted(*args, **kwargs):
            self.calls[name] += 1
            return attr(*args, **kwargs)

        return counted


@pytest.fixture
def counting(bench_db, app_on_store, monkeypatch):
    """The bench-shaped store through a counting proxy; its long thread counts as long (small histories are
    read whole on open)."""
    monkeypatch.setattr(thread_page, "SMALL_HISTORY_BYTES", 0)
    store = CountingStore(open_store(f"sqlite:///{bench_db}"))
    monkeypatch.setattr(connection, "open_store", lambda url, **options: store)
    app_on_store(f"sqlite:///{bench_db}")
    for cached in (connection._open, data._thread_history, data._state, data._raw_state):
        cached.clear()
    yield store
    connection._open.clear()
    store._inner.close()


def test_opening_a_long_thread_reads_one_page_and_decodes_one_checkpoint(counting):
    at = open_page("thread", started=counting.calls.clear, thread=LONG_THREAD)
    assert not at.exception, at.exception
    assert counting.calls["state"] == 1  # the newest checkpoint, nothing else decoded
    assert counting.calls["timeline_keys"] == 1 and counting.calls["checkpoint_rows"] == 1
    assert not HISTORY_WIDE & set(counting.calls), counting.calls
    text = all_text(at)
    assert "**`messages`**" in text and any("assistant · #" in m for m in messages_drawn(at))  # the conversation
    assert "checkpoint(s)" in text  # the history's summary, laid out from keys

    counting.calls.clear()
    at.segmented_control(key="thread_panel").set_value("Diff vs parent").run()
    assert not at.exception, at.exception
    assert counting.calls["state"] == 1  # the parent, for the diff; the selected one is cached
    assert not HISTORY_WIDE & set(counting.calls), counting.calls


def test_replay_marks_come_from_the_analysis_cache_without_replaying(counting, analysis_cache_dir):
    from inspector.cache import AnalysisCache
    from inspector.diff import replay_thread

    with AnalysisCache(analysis_cache_dir) as cache:
        replay_thread(counting._inner, LONG_THREAD, cache=cache)  # as `python -m inspector replay` would
    at = open_page("thread", started=counting.calls.clear, thread=LONG_THREAD, history="table")
    assert not at.exception, at.exception
    table = next(d.value for d in at.dataframe if "replay" in d.value.columns)
    assert len(table) == 40 and all(mark.startswith("✓") for mark in table["replay"])
    assert counting.calls["state"] == 1 and not HISTORY_WIDE & set(counting.calls), counting.calls


def test_a_page_of_an_older_part_of_the_history_reads_that_page(counting):
    at = open_page("thread", started=counting.calls.clear, thread=LONG_THREAD)
    counting.calls.clear()
    assert at.number_input[0].value == 1  # the newest checkpoint's page
    at.number_input[0].set_value(2).run()
    assert not at.exception, at.exception
    assert counting.calls["checkpoint_rows"] == 1 and counting.calls["state"] == 0
    assert not HISTORY_WIDE & set(counting.calls), counting.calls
    assert at.number_input[0].value == 2
    shown = native_control(at, "tree_keys")
    assert shown["index"] == -1 and len(shown["labels"]) == PAGE_SIZE  # another page
    assert shown["placeholder"] == "Choose a checkpoint of this page"
    at.run()  # a run of anything else keeps the page picked
    assert at.number_input[0].value == 2
    at.button(key="nav_prev").click().run()  # a step moves the page back to the selected checkpoint's
    assert not at.exception, at.exception
    assert at.number_input[0].value == 1 and native_control(at, "tree_keys")["index"] >= 0


def test_the_largest_thread_leads_the_list_sorted_by_size_though_not_on_the_first_page(bench_db, app_on_store):
    app_on_store(f"sqlite:///{bench_db}")
    at = open_page("threads")
    assert not at.exception, at.exception
    assert LONG_THREAD not in set(at.dataframe[0].value["thread"])  # the oldest: not among the newest 50
    at.segmented_control(key="threads_sort").set_value("stored").run()
    frame = at.dataframe[0].value
    assert frame["thread"].iloc[0] == LONG_THREAD
    stored = list(frame["stored bytes"])
    assert stored == sorted(stored, reverse=True)


def test_health_ranks_every_thread_and_analyses_the_largest(bench_db, app_on_store, monkeypatch):
    monkeypatch.setenv("INSPECTOR_HEALTH_TOP_THREADS", "5")
    app_on_store(f"sqlite:///{bench_db}")
    at = open_page("health")
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert frame["thread"].iloc[0] == LONG_THREAD and len(frame) == 5
    with open_store(f"sqlite:///{bench_db}") as store:
        totals = store.totals()
    assert f"All {totals.threads} thread(s) ranked by stored bytes; the largest 5 analysed in depth" in all_text(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Threads flagged"].endswith("of 5")


def test_an_unreadable_analysis_cache_is_rebuilt_and_the_page_says_so(bench_db, app_on_store, monkeypatch, tmp_path):
    from inspector.cache import FILE_NAME

    folder = tmp_path / "cache"
    folder.mkdir()
    (folder / FILE_NAME).write_bytes(b"not a database at all" * 100)
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(folder))
    app_on_store(f"sqlite:///{bench_db}")
    from streamlit.testing.v1 import AppTest
    from ui_app import APP

    at = AppTest.from_file(APP, default_timeout=60).run()  # the first page a session opens reads the cache (the
    assert not at.exception, at.exception                   # thread list's profile column): it says so, once
    assert any("could not be read" in w.value and "set aside" in w.value for w in at.warning)
    assert any(".corrupt-" in p.name for p in folder.iterdir())
    at = open_page("thread", thread=LONG_THREAD)
    assert not at.exception, at.exception


def heavy_elements(at) -> dict[str, int]:
    """The elements whose script is megabytes in the browser: charts, data grids, code blocks, JSON trees."""
    return {"charts": len(at.get("vega_lite_chart")), "grids": len(at.dataframe), "code": len(at.code),
            "json": len(at.json)}


def test_a_one_checkpoint_thread_opens_without_a_chart_grid_code_block_or_json(bench_db, app_on_store):
    from benchmarks.store_generator import SMALL_PREFIX

    app_on_store(f"sqlite:///{bench_db}")
    small = f"{SMALL_PREFIX}00001"
    with open_store(f"sqlite:///{bench_db}") as store:
        (row,) = store.timeline(small)
    at = open_page("thread", thread=small)
    assert not at.exception, at.exception
    assert heavy_elements(at) == {"charts": 0, "grids": 0, "code": 0, "json": 0}
    # nothing to step through, play or replay: the caption says so instead of controls that do nothing
    assert not [b for b in at.button if b.key in ("nav_play", "nav_prev", "nav_next")]
    assert native_control(at, "nav_slider") is None
    assert not [t for t in at.toggle if (t.key or "").startswith("replay_marks_")]
    assert any(c.value == ONLY_CHECKPOINT for c in at.caption)
    history = next(m.value for m in at.markdown if m.value.startswith("| checkpoint |"))
    assert f"| step | {row.step} |" in history and f"| id | …{row.checkpoint_id[-12:]} |" in history
    thread_data = next(m.value for m in at.markdown if m.value.startswith("| area | virtual | physical |"))
    assert "/mnt/user-data/outputs" in thread_data.replace("\\", "")
    at.toggle(key="show_metadata").set_value(True).run()  # what the page offers, one click away
    assert len(at.json) == 1 and at.json[0].value and "update" in at.json[0].value


def test_the_history_is_a_tree_or_a_table_one_drawn_and_kept_in_the_url(bench_db, app_on_store):
    app_on_store(f"sqlite:///{bench_db}")
    at = open_page("thread", thread=LONG_THREAD)
    assert not at.exception, at.exception
    tables = [d for d in at.dataframe if "replay" in d.value.columns]
    assert native_control(at, "tree") is not None and not tables and "history" not in at.query_params
    at.segmented_control(key="history_view").set_value("Table").run()
    assert native_control(at, "tree") is None and [d for d in at.dataframe if "replay" in d.value.columns]
    assert at.query_params["history"] == "table"
    at.button(key="nav_prev").click().run()  # another checkpoint: the table stays
    assert at.query_params["history"] == "table" and [d for d in at.dataframe if "replay" in d.value.columns]
    bad = open_page("thread", thread=LONG_THREAD, history="grid")
    assert any("history='grid'" in w.value for w in bad.warning) and native_control(bad, "tree") is not None
