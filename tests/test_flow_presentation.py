"""How the flow is drawn: one colour per node on every surface, the step timeline's lanes (parallel tasks side by
side, milliseconds, failed tasks), the graph expanded into its steps, a DOT whose layout does not depend on the
step, and a Play frame's words escaped; on real graphs' stores (a Send fan-out and a subgraph; a failing task)."""

from __future__ import annotations

import re

import altair as alt
import pytest
from failing_graph import CANCELLED_THREAD, FAILING_THREAD, write_cancelled
from failing_graph import write_store as write_failing_store
from flow_graph import FLOW_THREAD

from inspector.history.attribution import attribute_keys, next_nodes
from inspector.history.durations import step_times
from inspector.history.flow_dot import graph_classes, lit_style, steps_dot, to_dot
from inspector.history.flow_graph import MAX_NODES, infer_graph
from inspector.history.flow_grid import flow_grid, grid_chart
from inspector.history.node_colours import ENDS, FAILED, NO_NODE, PALETTE, node_colours, thread_colours
from inspector.history.step_graph import STEPS_PER_PAGE, TASKS_PER_STEP, step_graph
from inspector.history.step_lanes import CANCELLED_OPACITY, lane_chart, lane_rows, run_ends, stop_keys, stopped_failures
from inspector.history.thread_history import ThreadHistory
from inspector.history.tree_chart import tree_data
from inspector.store import open_store


@pytest.fixture(scope="module")
def flow(flow_db):
    with open_store(f"sqlite:///{flow_db}") as store:
        thread = ThreadHistory(store, FLOW_THREAD)
        history = thread.history
        writes = store.write_keys(FLOW_THREAD, list(history.nodes))
        yield store, thread, attribute_keys(store, history, history.ordered), writes


def dot_fills(dot: str) -> dict[str, str]:
    """A node's name -> its DOT fill colour (without the tint's alpha)."""
    fills = {}
    for line in dot.splitlines():
        found = re.match(r'\s*"([^"]+)" \[label="([^"\\]+).*fillcolor="(#[0-9a-f]{6})', line)
        if found:
            fills[found.group(2)] = found.group(3)
    return fills


def test_one_colour_per_node_on_every_surface(flow):
    store, thread, made, writes = flow
    history = thread.history
    colours = thread.node_colours()
    names = ["plan", "search", "research", "review", "write", "gather", "summarise"]
    assert len({colours(n) for n in names}) == len(names), "the thread's nodes never share a colour"
    assert all(colours(n) in PALETTE for n in names) and colours("__start__") == ENDS
    head = history.head
    path = history.path_through(head)
    # the flow grid, in a window holding every node and in one holding only the fan-out: the same colours
    for window in (path, path[2:4]):
        grid = flow_grid(history, window, made)
        for cell in grid_chart(grid, head, colours=colours)["data"]["values"]:
            if cell.get("node"):
                assert cell["colour"] == colours(cell["node"]), cell
    legend = grid_chart(flow_grid(history, path, made), head, colours=colours)["encoding"]["color"]["scale"]
    assert dict(zip(legend["domain"], legend["range"])) == {n: colours(n) for n in legend["domain"]}
    # the step timeline
    for row in lane_rows(step_times(history, made), made, colours):
        if row["node"] in names:
            assert row["colour"] in (colours(row["node"]), FAILED), row
    # the history tree: a dot made by one node is that node's colour, grey where none ran
    for point in tree_data(history, history.ordered, head, made, colours=colours).points:
        nodes = made[(point["ns"], point["checkpoint"])].nodes
        assert point["colour"] == (colours(nodes[0]) if len(nodes) == 1 else NO_NODE if not nodes else point["colour"])
    # the graph
    fills = dot_fills(to_dot(infer_graph(history, writes), colours=colours))
    assert {n: fills[n] for n in names} == {n: colours(n) for n in names}
    # the thread's colours come from its keys alone (``branch:to:`` channels), as the CLI's graph reads them
    assert thread_colours(store.timeline_keys(FLOW_THREAD)).of(names) == colours.of(names)


def test_colours_never_red_or_grey_and_names_from_the_data_cost_what_plain_ones_cost():
    assert FAILED not in PALETTE and NO_NODE not in PALETTE and ENDS not in PALETTE
    names = [f"node-{i}" for i in range(3_000)] + ["bad-\udcff", "bidi-\u202e"]
    many = node_colours(names)
    assert {many(n) for n in sorted(names)[:len(PALETTE)]} == set(PALETTE)  # in name order: every colour once
    assert many("bad-\udcff") in PALETTE and many("never named") in PALETTE
    few = node_colours(["agent", "tools"])
    assert few("agent") != few("tools") and few("started by Send only") not in (few("agent"), few("tools"))


def test_the_step_timeline_gives_each_parallel_task_a_lane_and_milliseconds(flow):
    _, thread, made, _ = flow
    history = thread.history
    root = {k: a for k, a in made.items() if k[0] == ""}
    rows = lane_rows(step_times(history, root), root, thread.node_colours(), history.head)
    fan = [r for r in rows if r["node"] == "search"]
    assert [r["lane"] for r in fan] == ["search", "search #2"]  # Send's two tasks, side by side
    assert fan[0]["start"] == fan[1]["start"] and fan[0]["end"] == fan[1]["end"] and fan[0]["step"] == 2
    assert fan[0]["took"].endswith(" ms") and fan[0]["ms"] == pytest.approx((fan[0]["end"] - fan[0]["start"]) * 1000, abs=0.01)
    assert not any(r["failed"] for r in rows)
    spec = lane_chart(rows)
    alt.Chart.from_dict(spec)  # a valid Vega-Lite spec
    assert spec["layer"][0]["encoding"]["y"]["sort"][:3] == ["__start__", "plan", "search"]
    assert {"field": "took", "type": "nominal"} in spec["layer"][0]["encoding"]["tooltip"]


def test_a_failed_task_has_its_own_colour_and_a_run_stopped_at_one_has_no_end(tmp_path):
    path = write_failing_store(tmp_path / "failing.db")
    with open_store(f"sqlite:///{path}") as store:
        thread = ThreadHistory(store, FAILING_THREAD)
        history = thread.history
        made = attribute_keys(store, history, history.ordered)
        stopped = stopped_failures(history, "", store.write_keys(FAILING_THREAD, stop_keys(history, "")))
    colours = thread.node_colours()
    rows = lane_rows(step_times(history, made), made, colours, None, stopped)
    fetched = [r for r in rows if r["node"] == "fetch" and not r["open"]]
    assert [r["lane"] for r in fetched] == ["fetch", "fetch #2", "fetch #3"]
    assert [r["failed"] for r in fetched] == [False, True, False]  # the second task wrote an error, then its result
    assert [r["colour"] for r in fetched] == [colours("fetch"), FAILED, colours("fetch")]
    assert "failed" in fetched[1]["outcome"] and colours("fetch") != FAILED
    (open_row,) = [r for r in rows if r["open"]]  # the second run stopped at the failed task: no checkpoint after
    assert open_row["failed"] and open_row["colour"] == FAILED and open_row["ms"] is None
    assert open_row["node"] == "fetch"  # named by its parent's Send, as the bars are
    assert open_row["checkpoint"] == history.head[1] and open_row["start"] >= max(r["end"] for r in fetched)
    alt.Chart.from_dict(lane_chart(rows))


def error_classes(store) -> list[str | None]:
    history = ThreadHistory(store, CANCELLED_THREAD).history
    keys = store.write_keys(CANCELLED_THREAD, run_ends(history, ""))
    return sorted(str(w.error) for ws in keys.values() for w in ws if w.channel == "__error__")


def test_a_task_cancelled_for_a_failed_sibling_is_told_from_the_failure(cancelled_db):
    with open_store(f"sqlite:///{cancelled_db}") as store:
        assert error_classes(store) == ["CancelledError", "RuntimeError"]  # the errors' classes, read with the keys
        thread = ThreadHistory(store, CANCELLED_THREAD)
        history = thread.history
        ends = store.write_keys(CANCELLED_THREAD, stop_keys(history, ""))
        stopped = stopped_failures(history, "", ends)
        every = store.write_keys(CANCELLED_THREAD, list(history.nodes))
        graph = infer_graph(history, every)
        due = next_nodes(history, history.head, every)
    ((_, _, tasks),) = stopped
    assert sorted((t.node, t.failed, t.cancelled) for t in tasks) == [("fetch", False, True), ("fetch", True, False)]
    colours = thread.node_colours()
    rows = [r for r in lane_rows([], {}, colours, None, stopped) if r["open"]]
    failed = next(r for r in rows if r["failed"])
    cancelled = next(r for r in rows if r["cancelled"])
    assert failed["colour"] == FAILED and "failed" in failed["label"]
    assert cancelled["colour"] == colours("fetch") != FAILED and "cancelled" in cancelled["outcome"]
    assert "cancelled" in cancelled["label"] and not cancelled["failed"]
    spec = lane_chart(rows)
    alt.Chart.from_dict(spec)
    assert spec["layer"][1]["encoding"]["opacity"]["condition"] == {"test": "datum.cancelled", "value": CANCELLED_OPACITY}
    fetch = graph.nodes["fetch"]
    assert (fetch.failed, fetch.cancelled) == (1, 1)  # not "failed ×2"
    assert "failed ×1" in to_dot(graph) and "cancelled ×1" in to_dot(graph)
    assert due == ("fetch",)  # a failed or cancelled task is still due


def test_the_thread_list_says_the_error_and_counts_the_cancelled_tasks(cancelled_db):
    from inspector.threads.thread_status import statuses

    with open_store(f"sqlite:///{cancelled_db}") as store:
        status = statuses(store, store.newest_write_keys([CANCELLED_THREAD]))[CANCELLED_THREAD]
    assert status.state == "error"
    assert status.error.splitlines() == ["RuntimeError('the source is down')",
                                         "1 task(s) cancelled (CancelledError) when another failed"]


def test_a_play_frame_says_failed_or_cancelled_beside_the_step():
    from inspector.ui.frame_html import Ran, heading

    failed = heading(Ran("3", [("fetch", "#4e79a7")], ["found"], failed=True, cancelled=True), 2, 5)
    cancelled = heading(Ran("3", [("fetch", "#4e79a7")], ["found"], cancelled=True), 2, 5)
    ran = heading(Ran("3", [("<b>fetch</b>", "#4e79a7")], ["found"]), 2, 5)
    assert 'class="si-failed">failed<' in failed and 'class="si-cancelled">cancelled<' in failed
    assert "si-failed" not in cancelled and 'class="si-cancelled">cancelled<' in cancelled
    assert "si-failed" not in ran and "si-cancelled" not in ran and "<b>" not in ran


def test_a_graph_of_a_few_nodes_is_not_blown_up_to_the_panels_width():
    from inspector.ui.graph_figure import REM_PER_NODE, SCOPE, Figure

    small = Figure("digraph {}", ("n0",), "", [], 3).style
    assert f"div.{SCOPE} svg {{max-height: min(80vh, {3 * REM_PER_NODE}rem);}}" in small
    assert "g.node.n0" in small  # the lit node's rules stay
    assert "max-height" not in Figure("digraph {}", (), "").style  # nothing known of its nodes: the page's own bound


def test_the_saver_adapter_reads_the_same_error_classes(cancelled_db):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from inspector.store.saver import SaverStore

    conn = sqlite3.connect(f"file:{cancelled_db}?mode=ro", uri=True, check_same_thread=False)
    store = SaverStore(SqliteSaver(conn), "sqlite-saver")
    try:
        assert error_classes(store) == ["CancelledError", "RuntimeError"]
    finally:
        store.close()
        conn.close()


@pytest.mark.postgres
def test_postgres_reads_the_same_error_classes(postgres_dsn):
    from fixtures.postgres import written_database
    from langgraph.checkpoint.postgres import PostgresSaver

    def fill(url: str) -> None:
        with PostgresSaver.from_conn_string(url) as saver:
            saver.setup()
            write_cancelled(saver)

    _, readonly = written_database(postgres_dsn, "inspector_cancelled", fill)
    with open_store(readonly) as store:
        assert error_classes(store) == ["CancelledError", "RuntimeError"]


def test_an_error_too_long_to_read_is_a_failure_and_a_non_exception_names_none(tmp_path):
    import contextlib
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, StateGraph

    from inspector.history.attribution import name_tasks
    from inspector.store import WriteKey
    from inspector.store.model import ERROR_READ_BYTES
    from inspector.store.records import error_class

    def fail(state: dict) -> dict:
        raise RuntimeError("x" * ERROR_READ_BYTES)  # a value too long to read

    graph = StateGraph(dict)
    graph.add_node("fail", fail)
    graph.add_edge(START, "fail")
    conn = sqlite3.connect(tmp_path / "long-error.db", check_same_thread=False)
    with contextlib.closing(conn), contextlib.suppress(RuntimeError):
        graph.compile(checkpointer=SqliteSaver(conn)).invoke({"x": 1}, {"configurable": {"thread_id": "t"}})
    with open_store(f"sqlite:///{tmp_path / 'long-error.db'}") as store:
        history = ThreadHistory(store, "t").history
        (errors,) = [[w for w in ws if w.channel == "__error__"] for ws in store.write_keys("t", list(history.nodes))
                     .values() if any(w.channel == "__error__" for w in ws)]
    assert [(w.error, w.size > ERROR_READ_BYTES) for w in errors] == [(None, True)]  # stored, its value not read
    assert name_tasks(errors)[0].failed and not name_tasks(errors)[0].cancelled  # a failure, as every unread error

    assert error_class("CancelledError()") == "CancelledError"
    assert error_class("RuntimeError('the source is down')") == "RuntimeError"
    assert error_class({"not": "an exception"}) is None and error_class("no class here") is None
    unread = name_tasks([WriteKey("t1", "~__pregel_pull, fetch", 0, "__error__", 90_000)])  # value not read
    cancelled = name_tasks([WriteKey("t2", "~__pregel_pull, fetch", 0, "__error__", 20, error="CancelledError")])
    assert unread[0].failed and not unread[0].cancelled
    assert cancelled[0].cancelled and not cancelled[0].failed and cancelled[0].errored


def test_the_expanded_graph_draws_a_page_of_steps_in_the_order_they_ran(demo_db, flow):
    store, thread, _, _ = flow
    history = thread.history
    thread.complete(store, list(history.nodes))  # full rows: a fork is named by its source, as the page reads it
    graph = step_graph(history, history.head, thread.attributions(store, list(history.nodes)))
    labels = [node.lines[0] for node in graph.nodes]
    assert labels == ["-1 · input", "0 · __start__", "1 · plan", "2 · search", "2 · search", "3 · update_state",
                      "4 · research"]
    assert {("s2t0", "s3t0"), ("s2t0", "s3t1"), ("s3t0", "s4"), ("s3t1", "s4")} <= set(graph.edges)  # side by side
    with open_store(f"sqlite:///{demo_db}") as store:
        long = ThreadHistory(store, "demo-long")
        path = long.history.path_through(long.history.head)
        middle = path[len(path) // 2]
        page_keys = path[(len(path) // 2) // STEPS_PER_PAGE * STEPS_PER_PAGE:][:STEPS_PER_PAGE]
        long.complete(store, page_keys)
        made_long = long.attributions(store, page_keys)
    drawn = step_graph(long.history, middle, made_long)
    assert len(drawn.nodes) <= STEPS_PER_PAGE * TASKS_PER_STEP + 2 <= MAX_NODES
    assert drawn.keys == page_keys and drawn.pages == -(-len(path) // STEPS_PER_PAGE)
    assert drawn.nodes[0].fold and drawn.nodes[-1].fold and "earlier step(s)" in drawn.nodes[0].lines[0]
    steps = [int(n.lines[0].split(" · ")[0]) for n in drawn.nodes if not n.fold]
    assert steps == sorted(steps)
    # every step of the page draws the same DOT: only the class lit changes
    other = page_keys[0] if page_keys[0] != middle else page_keys[-1]
    colours = long.node_colours()
    assert steps_dot(step_graph(long.history, other, made_long), colours) == steps_dot(drawn, colours)
    assert f'class="k{drawn.step_of(middle)}"' in steps_dot(drawn, colours)


def test_the_aggregated_dot_names_its_nodes_by_class_and_a_style_lights_them(flow):
    _, thread, _, writes = flow
    graph = infer_graph(thread.history, writes)
    classes = graph_classes(graph)
    dot = to_dot(graph, colours=thread.node_colours(), direction="TB")
    assert "rankdir=TB" in dot and "__wrote__" not in dot
    for cls in classes.values():
        assert re.fullmatch(r"n\d+", cls) and f'class="{cls}"' in dot
    assert f'class="from-{classes["plan"]} to-{classes["search"]}"' in dot
    style = lit_style("st-key-flow-graph", [classes["search"]])
    assert "g.node.n" in style and "search" not in style and "<" not in style
    assert to_dot(graph, ["search"], colours=thread.node_colours()).count("penwidth=3") == 1  # the CLI lights in DOT
