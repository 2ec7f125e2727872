"""One attribution of writes to checkpoints, on a real graph's store (subgraph, Send, interrupt, update, fork)
and on the demo threads, checked against the writes as stored."""

from __future__ import annotations

import sqlite3

import pytest
from flow_graph import FLOW_THREAD

from inspector.demo import DEMO_THREADS
from inspector.history.attribution import (
    INPUT,
    STEP,
    UPDATE_KIND,
    attribute_keys,
    last_writes,
    newest_writing,
    next_nodes,
)
from inspector.history.lineage import build_history
from inspector.store import is_internal_channel, open_store


@pytest.fixture(scope="module")
def flow(flow_db):
    with open_store(f"sqlite:///{flow_db}") as store:
        yield store


def root_labels(store, thread_id: str, keys_only: bool = False) -> list[str]:
    history = build_history(store.timeline_keys(thread_id) if keys_only else store.timeline(thread_id))
    made = attribute_keys(store, history, history.ordered)
    return [made[k].label for k in reversed(history.ordered) if k[0] == ""]


def stored_fields(db, thread_id: str) -> dict[tuple[str, str], list[str]]:
    """``(ns, checkpoint id) -> fields written against it by graph tasks`` (update_state's left out), by SQL."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT checkpoint_ns, checkpoint_id, channel FROM writes WHERE thread_id = ? "
                            "AND task_path NOT LIKE '~__interrupt__%' ORDER BY checkpoint_id, task_path, task_id, idx",
                            [thread_id]).fetchall()
    out: dict = {}
    for ns, cid, channel in rows:
        if not is_internal_channel(channel):
            out.setdefault((ns, cid), []).append(channel)
    return {k: list(dict.fromkeys(v)) for k, v in out.items()}


def test_the_flow_threads_steps_are_named_by_the_tasks_that_produced_them(flow):
    assert root_labels(flow, FLOW_THREAD) == [
        "-1 · input", "0 · __start__ → topic", "1 · plan → queries", "2 · search ×2 → found",
        "3 · research → found, summary", "4 · review → approved (resumed)", "5 · write → report",
        "6 · update_state → summary", "3 · update_state", "4 · research → found, summary"]


def test_subgraph_tasks_are_named_by_their_node(flow):
    history = build_history(flow.timeline(FLOW_THREAD))
    made = attribute_keys(flow, history, history.ordered)
    inner = [made[k] for k in reversed(history.ordered) if k[0].startswith("research:")]
    assert [a.nodes for a in inner if a.made_by == STEP] == [("__start__",), ("gather",), ("summarise",)] * 2
    assert {a.made_by for a in inner if not a.tasks} == {INPUT}


def test_keys_only_rows_give_the_same_attribution_but_for_a_forks_later_child(flow):
    """SQLite's history layout reads no metadata; what made a checkpoint is then read from the writes."""
    full, keys = root_labels(flow, FLOW_THREAD), root_labels(flow, FLOW_THREAD, keys_only=True)
    assert [a for a, b in zip(full, keys) if a != b] == ["3 · update_state"]
    assert keys[8] == "3 · ?"


@pytest.mark.parametrize("thread_id", [*DEMO_THREADS, FLOW_THREAD])
def test_every_step_wrote_what_is_stored_against_its_parent(demo_db, flow_db, thread_id):
    db = flow_db if thread_id == FLOW_THREAD else demo_db
    with open_store(f"sqlite:///{db}") as store:
        history = build_history(store.timeline(thread_id))
        made = attribute_keys(store, history, history.ordered)
    stored = stored_fields(db, thread_id)
    steps = 0
    for key, attribution in made.items():
        parent = history.node(key).parent
        if attribution.made_by == STEP:
            steps += 1
            assert list(attribution.fields) == stored.get(parent, []), attribution.label
        elif attribution.made_by != UPDATE_KIND:
            assert not attribution.fields or attribution.made_by == "put", attribution.label
    assert steps > 3


def test_the_vision_threads_images_are_written_at_the_step_the_diff_shows(demo_db):
    with open_store(f"sqlite:///{demo_db}") as store:
        labels = root_labels(store, "demo-vision")
        research = root_labels(store, "demo-research")
    assert "7 · view_image_middleware → messages, viewed_images" in labels
    assert "3 · uploads → uploaded_files, messages" in research


def test_last_write_of_each_field_and_what_runs_next(flow):
    history = build_history(flow.timeline(FLOW_THREAD))
    head = history.head
    found = last_writes(flow, history, head, ["summary", "report", "topic", "queries", "nothing"])
    assert {f: (a.step, a.nodes) for f, a in found.items()} == {
        "summary": (4, ("research",)), "topic": (0, ("__start__",)), "queries": (1, ("plan",))}
    writes = flow.write_keys(FLOW_THREAD, list(history.nodes))
    assert next_nodes(history, head, writes) == ("review",)  # the fork ran up to review's interrupt_before
    main_end = next(k for k in history.ordered if history.node(k).row.step == 6)
    assert next_nodes(history, main_end, writes) == ()
    report = last_writes(flow, history, main_end, ["report", "summary"])
    assert (report["report"].step, report["report"].nodes) == (5, ("write",))
    assert (report["summary"].step, report["summary"].nodes) == (6, ("update_state",))


@pytest.mark.parametrize("batch", [1, 200])
def test_the_newest_step_that_wrote_is_the_newest_on_the_lineage_whose_attribution_has_fields(demo_db, batch):
    with open_store(str(demo_db)) as store:
        for thread_id in ("demo-research", "demo-bloated", "demo-subgraph"):
            history = build_history(store.timeline(thread_id))
            lineage = history.lineage(history.head)[::-1]
            every = attribute_keys(store, history, lineage)
            expected = next(k for k in lineage if every[k].fields)
            found = newest_writing(store, history, history.head, batch=batch)
            assert found.key == expected and found.fields == every[expected].fields, thread_id
        research = build_history(store.timeline("demo-research"))
        assert newest_writing(store, research, research.head).key != research.head  # its title node wrote nothing
        first = research.lineage(research.head)[0]
        assert newest_writing(store, research, first) is None  # the input checkpoint: nothing before it wrote


def test_a_pushed_task_is_named_by_its_sends_node_from_the_write_keys(flow):
    history = build_history(flow.timeline_keys(FLOW_THREAD))
    plan_step = next(k for k in history.ordered if k[0] == "" and history.node(k).row.step == 0)
    keys = flow.write_keys(FLOW_THREAD, [plan_step])[plan_step]
    assert [w.send_to for w in keys if w.channel == "__pregel_tasks"] == ["search", "search"]
    assert all(w.send_to is None for w in keys if w.channel != "__pregel_tasks")


@pytest.mark.parametrize("thread_id", [*DEMO_THREADS, FLOW_THREAD])
def test_tree_table_diff_and_cli_timeline_say_the_same(demo_db, flow_db, thread_id, capsys):
    """Every surface names a step's nodes and fields through the one attribution: tree labels, the table's
    node and wrote columns, the diff's writes and the CLI timeline (table and JSON)."""
    import json

    from inspector.cli import main
    from inspector.diff import diff_checkpoints
    from inspector.history.timeline_rows import timeline_records
    from inspector.history.tree_chart import tree_data

    db = flow_db if thread_id == FLOW_THREAD else demo_db
    with open_store(f"sqlite:///{db}") as store:
        history = build_history(store.timeline(thread_id))
        made = attribute_keys(store, history, history.ordered)
        steps = [k for k in history.ordered if made[k].made_by == STEP]
        sample = steps[:: max(1, len(steps) // 40)]  # demo-long: every 8th of its 300 steps
        diffs = {k: diff_checkpoints(store, thread_id, history.node(k).row.parent_checkpoint_id, k[1], k[0])
                 for k in sample}
    records = {(r["ns"], r["checkpoint"]): r for r in timeline_records(history, history.ordered, made=made)}
    points = {(p["ns"], p["checkpoint"]): p for p in tree_data(history, history.ordered, made=made).points}
    assert main(["timeline", thread_id, "--db", f"sqlite:///{db}", "--json"]) == 0
    cli = {(c["checkpoint_ns"], c["checkpoint_id"]): c for c in json.loads(capsys.readouterr().out)["checkpoints"]}
    for key, result in diffs.items():
        fields = list(made[key].fields)
        assert records[key]["wrote"] == ", ".join(fields) == points[key]["wrote"]
        assert points[key]["label"].startswith(f"{made[key].step} · ")
        assert cli[key]["wrote"] == fields and cli[key]["nodes"] == list(made[key].nodes)
        assert list(dict.fromkeys(w["channel"] for w in result.wrote)) == fields, made[key].label
        assert {w["node"] for w in result.wrote} <= set(made[key].nodes)


@pytest.mark.parametrize("thread_id", [*DEMO_THREADS, FLOW_THREAD])
def test_flow_grid_and_field_views_agree_with_the_stored_writes(demo_db, flow_db, thread_id):
    """The flow grid's cells and every field's "last written at step N by node X" are what the writes stored
    against each checkpoint's parent say (read here with SQL, the newest step on the line that wrote the field)."""
    from inspector.history.flow_grid import flow_grid

    db = flow_db if thread_id == FLOW_THREAD else demo_db
    stored = stored_fields(db, thread_id)
    with open_store(f"sqlite:///{db}") as store:
        history = build_history(store.timeline(thread_id))
        made = attribute_keys(store, history, history.ordered)
        head = history.head
        line = history.lineage(head)
        fields = list(store.state(thread_id, head[1]).values)
        found = last_writes(store, history, head, fields)
    steps = [k for k in line if made[k].made_by == STEP]
    # update_state's stored writes, and what a put's metadata says it wrote (``writes: {node: {field: ...}}``)
    others = [k for k in line if made[k].made_by in (UPDATE_KIND, "put")]
    grid = flow_grid(history, line, made)
    assert {(c["checkpoint"], c["field"]) for c in grid.cells} == {
        (k[1], f) for k in steps for f in stored.get(history.node(k).parent, [])} | {
        (k[1], f) for k in others for f in made[k].fields}
    for name in fields:
        writers = [k for k in steps if name in stored.get(history.node(k).parent, [])]
        updated = [k for k in others if name in made[k].fields]
        newest = max(writers + updated, key=lambda k: history.node(k).order * -1, default=None)
        assert (found[name].key if name in found else None) == newest, name
