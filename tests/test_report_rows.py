"""The CLI's JSON and the pages show the same core rows: the same threads, flags, sizes and images, in the same order.

Each question is answered once in the core (``thread_list``, ``store_health`` + ``health_report``,
``media_report``, ``measure_thread``); the ``threads``, ``health``, ``sizes``, ``images`` and ``artifacts``
commands print those rows and the Threads page, the Health page and the thread page's panels show them. A page that re-sorted,
capped or filtered the rows on its own would differ from the JSON here.
"""

from __future__ import annotations

import json

import pytest
from ui_app import open_page

from inspector.cli import main

pytestmark = pytest.mark.usefixtures("app_on_demo")


def shown_in_units(sizes: list[int]) -> list:
    """Byte counts as a page's table holds them: the exact bytes, so the column sorts as sizes (each cell is
    printed in a unit of its own by ``tables.in_units``)."""
    return list(sizes)


def cli_json(capsys, *argv) -> dict:
    main([*argv, "--json", "--quiet"])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("label, sort", [("newest", "newest"), ("stored size", "stored")])
def test_threads_json_and_the_threads_page_list_the_same_threads(demo_db, capsys, label, sort):
    listed = cli_json(capsys, "threads", "--db", str(demo_db), "--sort", sort)
    at = open_page("threads")
    at.segmented_control(key="threads_sort").set_value(label).run()
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert len(listed["threads"]) >= 8
    assert list(frame["thread"]) == [t["thread_id"] for t in listed["threads"]]
    assert list(frame["checkpoints"]) == [t["checkpoints"] for t in listed["threads"]]
    assert list(frame["stored bytes"]) == shown_in_units([t["stored_bytes"] for t in listed["threads"]])
    assert f"{listed['total']} thread(s)" in " ".join(c.value for c in at.caption)


def test_health_json_and_the_health_page_rank_the_same_threads_with_the_same_flags(demo_db, capsys):
    report = cli_json(capsys, "health", "--db", str(demo_db))
    at = open_page("health")
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    rows = report["threads"]
    assert rows and any(r["flags"] for r in rows)
    assert list(frame["thread"]) == [r["thread_id"] for r in rows]
    assert list(frame["flags"]) == [", ".join(dict.fromkeys(f["code"] for f in r["flags"])) for r in rows]
    assert list(frame["stored bytes"]) == shown_in_units([r["stored_bytes"] for r in rows])
    assert list(frame["newest state"]) == shown_in_units([r["newest_state_bytes"] for r in rows])
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Flags"] == str(report["flag_count"])


def test_images_json_and_the_thread_page_show_the_same_images_and_history(demo_db, capsys):
    thread = "demo-deerflow-current"
    report = cli_json(capsys, "images", "--db", str(demo_db), thread)
    at = open_page("thread", thread=thread)
    assert not at.exception, at.exception
    [shown] = [df.value for df in at.dataframe if "stored as" in df.value.columns]
    assert len(report["images"]) == 2
    assert list(shown["path"]) == [i["path"] for i in report["images"]]
    assert list(shown["format"]) == [i["format"] for i in report["images"]]
    assert list(shown["bytes"]) == [i["byte_size"] for i in report["images"]]
    at.segmented_control(key="thread_panel").set_value("Images over time").run()
    assert not at.exception, at.exception
    [history] = [df.value for df in at.dataframe if "ended by" in df.value.columns]
    assert list(history["path"]) == [s["path"] for s in report["history"]]
    assert list(history["ended by"]) == [s["ended_by"] or "still held" for s in report["history"]]
    assert list(history["checkpoints carrying it"]) == [s["checkpoints"] for s in report["history"]]


def test_artifacts_json_and_the_thread_page_list_the_same_artifacts(demo_db, capsys):
    thread = "demo-research"
    report = cli_json(capsys, "artifacts", "--db", str(demo_db), thread)
    at = open_page("thread", thread=thread)
    assert not at.exception, at.exception
    [shown] = [df.value for df in at.dataframe if "on disk" in df.value.columns]
    assert len(report["artifacts"]) == 3
    assert list(shown["path"]) == [a["path"] for a in report["artifacts"]]
    assert list(shown["on disk"]) == [a["exists"] for a in report["artifacts"]]


def test_sizes_json_and_the_size_panel_list_the_same_fields(demo_db, capsys):
    thread = "demo-bloated"
    report = cli_json(capsys, "sizes", "--db", str(demo_db), thread)
    at = open_page("thread", thread=thread)
    at.segmented_control(key="thread_panel").set_value("Size").run()
    assert not at.exception, at.exception
    [shown] = [df.value for df in at.dataframe if "unique bytes" in df.value.columns]
    assert len(report["fields"]) >= 5
    assert list(shown["field"]) == [f["field"] for f in report["fields"]]
    assert list(shown["stored bytes"]) == shown_in_units([f["stored_bytes"] for f in report["fields"]])
    assert list(shown["repeats"]) == shown_in_units([f["repeated_bytes"] for f in report["fields"]])
