"""AppTest: size and flag columns in the thread list, the size panel on the thread page, the Health page."""

from __future__ import annotations

import pytest
from ui_app import all_text, cells, native_control, open_page

from inspector.demo import DEMO_THREADS
from inspector.formatting import human_bytes

pytestmark = pytest.mark.usefixtures("app_on_demo")


def test_thread_list_has_size_and_flag_columns_and_sorts_by_size():
    at = open_page("threads")
    assert not at.exception
    frame = at.dataframe[0].value.set_index("thread")
    assert "oversized-state" in frame.loc["demo-bloated", "flags"]
    assert frame.loc["demo-research", "flags"] == ""
    assert frame["state size"].idxmax() == "demo-bloated"
    assert at.segmented_control(key="threads_sort").options == ["newest", "stored size", "checkpoints"]
    at.segmented_control(key="threads_sort").set_value("stored").run()
    stored = list(at.dataframe[0].value["stored bytes"])
    assert stored == sorted(stored, reverse=True)
    assert "3 flagged:" in all_text(at)
    flagged = {link.proto.label: link.proto.query_string for link in at.get("page_link") if "(" in link.proto.label}
    assert set(flagged) == {f"{t} ({codes})" for t, codes in frame["flags"].items() if codes}  # each name a link
    assert flagged[next(label for label in flagged if label.startswith("demo-bloated (oversized-state"))] == \
        "thread=demo-bloated&panel=size"


def open_panel(at, title: str):
    at.segmented_control(key="thread_panel").set_value(title).run()
    return at


def test_size_panel_on_the_bloated_thread():
    at = open_panel(open_page("thread", thread="demo-bloated"), "Size")
    assert not at.exception
    assert any("passes the 1.00 MB limit at step 13" in w.value for w in at.warning)
    assert {"Stored", "Newest state", "Spent on repeats", "Flags"} <= {m.label for m in at.metric}
    assert len(at.get("vega_lite_chart")) == 1  # the size chart (the history tree beside it is drawn as SVG)
    assert native_control(at, "tree") is not None


def test_size_panel_on_a_small_thread_has_no_warning():
    at = open_panel(open_page("thread", thread="demo-research"), "Size")
    assert not at.exception and not at.main.warning
    assert any(m.label == "Flags" and m.value == "0" for m in at.metric)


def test_health_page():
    at = open_page("health")
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    flagged = [t for t, codes in at.dataframe[0].value.set_index("thread")["flags"].items() if codes]
    assert metrics["Threads flagged"] == f"{len(flagged)} of {len(DEMO_THREADS)}" and "demo-bloated" in flagged
    ranked = list(at.dataframe[0].value["stored bytes"])
    assert ranked == sorted(ranked, reverse=True)
    labels = " ".join(e.label for e in at.expander)
    assert "oversized-state" in labels and "uncleared-images" in labels and "base64-in-state" in labels
    # growth and the store's files: each cell in its own unit (the values stay bytes), the exact byte count beside
    frames = [d.value for d in at.dataframe]
    growth = next(f for f in frames if "stored bytes, exact" in f.columns and "checkpoints" in f.columns)
    assert (growth["stored bytes, exact"] > 0).all() and growth["stored bytes, exact"].dtype.kind in "if"
    assert list(growth["stored bytes, exact"]) == list(growth["stored bytes"])
    largest = at.dataframe[0]
    shown = dict(zip(largest.value["thread"], cells(largest, "stored bytes")))
    sized = dict(zip(largest.value["thread"], largest.value["stored bytes"]))
    assert shown == {thread: human_bytes(int(size)) for thread, size in sized.items()}
    assert any(text.endswith(" MB") for text in shown.values()) and any(text.endswith(" KB") for text in shown.values())
    files = next(f for f in frames if "bytes, exact" in f.columns and "payload" in f.columns)
    assert list(files.columns).index("bytes, exact") == list(files.columns).index("bytes") + 1
    assert {m.label for m in at.metric} >= {"Stored", "On disk", "A day, on average"}
