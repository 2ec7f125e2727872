"""The flow views' core: the graph inferred from the stored writes, its DOT, the flow grid's window and the
step durations, on a real graph's store (subgraph, Send, interrupt, update, fork) and the demo threads."""

from __future__ import annotations

import json

import pytest
from flow_graph import FLOW_THREAD

from inspector.history.attribution import attribute_keys
from inspector.history.durations import node_totals, slowest_steps, step_times, summary, total_seconds
from inspector.history.flow_dot import to_dot
from inspector.history.flow_graph import graph_json, infer_graph
from inspector.history.flow_grid import flow_grid, flow_window, grid_chart
from inspector.history.lineage import build_history
from inspector.store import WriteKey, open_store


@pytest.fixture(scope="module")
def flow(flow_db):
    with open_store(f"sqlite:///{flow_db}") as store:
        history = build_history(store.timeline_keys(FLOW_THREAD))
        yield store, history, store.write_keys(FLOW_THREAD, list(history.nodes))


def edges(graph) -> dict[tuple[str, str], tuple[int, str]]:
    return {(e["from"], e["to"]): (e["count"], e["kind"]) for e in graph_json(graph)["edges"]}


def test_the_graph_has_the_nodes_that_ran_and_the_edges_taken_with_counts(flow):
    _, history, writes = flow
    graph = infer_graph(history, writes)
    assert edges(graph) == {
        ("__start__", "plan"): (1, "trigger"), ("plan", "search"): (2, "send"), ("search", "research"): (2, "trigger"),
        ("research", "review"): (1, "trigger"), ("review", "write"): (1, "trigger"), ("write", "__end__"): (1, "trigger"),
        ("research/__start__", "research/gather"): (2, "trigger"),
        ("research/gather", "research/summarise"): (2, "trigger"),
        ("research/summarise", "research/__end__"): (2, "trigger")}
    nodes = {n["id"]: n for n in graph_json(graph)["nodes"]}
    assert nodes["search"]["runs"] == 2 and nodes["research"]["runs"] == 2  # once per line of history
    assert nodes["review"]["interrupted"] == 1 and nodes["review"]["next"]
    assert "update_state" not in nodes  # an update is not a step of the graph
    assert graph_json(graph)["subgraphs"] == [{"subgraph": "research", "run_by": "research"}]


@pytest.mark.parametrize("thread_id", ["demo-research", "demo-subgraph", "demo-interrupt", "demo-time-travel"])
def test_the_demo_graphs_edges_follow_their_steps(demo_db, thread_id):
    with open_store(f"sqlite:///{demo_db}") as store:
        history = build_history(store.timeline_keys(thread_id))
        graph = infer_graph(history, store.write_keys(thread_id, list(history.nodes)))
    taken = edges(graph)
    assert taken[("__start__", "thread_data")][0] >= 1 and ("thread_data", "sandbox") in taken
    if thread_id == "demo-interrupt":
        assert ("agent", "tools") in taken and graph.nodes["tools"].interrupted == 1 and graph.nodes["tools"].due_next
    if thread_id == "demo-subgraph":
        assert {"tools", "tools/search"} <= set(graph.clusters)
    assert sum(n.runs for n in graph.nodes.values()) >= graph.steps


def test_dot_quotes_every_name_so_text_from_the_data_stays_text():
    hostile = 'x"];\n evil [label="pwn'
    history = build_history([])
    graph = infer_graph(history, {})
    from inspector.history.flow_graph import GraphNode

    graph.nodes[hostile] = GraphNode(hostile, "", runs=1)
    dot = to_dot(graph, [hostile], ['f"\\'], title='t"')
    assert '"x\\"];  evil [label=\\"pwn"' in dot
    assert "\n evil" not in dot and 'label="wrote: f\\"\\\\"' in dot


def test_dot_of_a_thirty_node_graph_keeps_one_line_per_node_and_edge():
    from inspector.history.flow_graph import FlowGraph, GraphEdge, GraphNode

    graph = FlowGraph({f"n{i}": GraphNode(f"n{i}", "", runs=i) for i in range(32)},
                      {(f"n{i}", f"n{i + 1}", "trigger"): GraphEdge(f"n{i}", f"n{i + 1}", i) for i in range(31)}, {})
    dot = to_dot(graph)
    assert dot.count(" -> ") == 31 and sum(line.strip().startswith('"n') and "[label" in line
                                           for line in dot.splitlines()) == 32 + 31
    assert "rankdir=TB" in dot  # a long chain laid out left to right would shrink to fit the page


def test_the_flow_grid_window_reads_the_write_keys_of_its_steps_only(flow):
    store, history, _ = flow
    head = history.head
    window = flow_window(history, head, width=3)
    assert window.pages == 2 and window.keys == history.path_through(head)[3:6] and window.page == 1
    asked = []

    class Counting:  # the real store, asked through: which keys the grid reads
        def write_keys(self, thread_id, keys):
            asked.extend(keys)
            return store.write_keys(thread_id, keys)

    made = attribute_keys(Counting(), history, window.keys)
    assert set(asked) <= set(window.keys) | {history.node(k).parent for k in window.keys} | \
        {history.node(history.node(k).parent).parent for k in window.keys if history.node(k).parent}
    grid = flow_grid(history, window.keys, made)
    assert {(c["step"], c["field"], c["node"]) for c in grid.cells} == {(2, "found", "search"),
                                                                         (4, "found", "research"),
                                                                         (4, "summary", "research")}
    spec = grid_chart(grid, head)
    import altair as alt

    alt.Chart.from_dict(spec)  # a valid Vega-Lite spec
    assert json.dumps(spec).count('"cell"') == 1


def test_step_durations_come_from_the_checkpoint_timestamps(flow):
    store, history, _ = flow
    made = attribute_keys(store, history, history.ordered)
    times = step_times(history, made)
    for time in times:
        node = history.node(time.key)
        if node.parent is not None and node.parent[0] == time.key[0]:
            expected = (node.row.created_at - history.node(node.parent).row.created_at).total_seconds()
            assert time.seconds == pytest.approx(expected)
    totals = {t.node: t for t in node_totals(times)}
    assert totals["search"].steps == 1 and totals["research"].steps == 2  # two parallel tasks: one step; a fork: twice
    assert slowest_steps(times, 1)[0].seconds == max(t.seconds for t in times if t.seconds and not t.waiting)
    assert total_seconds(times) > 0 and "step(s) in" in summary(times)
    assert all(not t.charged_to for t in times if t.waiting)


def test_a_step_dated_before_its_parent_has_no_duration(tmp_path):
    """A writer's clock set back (or ids chosen by hand) dates a child before its parent: the step has no duration,
    never a negative one (-4,070,908,799 s) that would also sink the thread's total."""
    import sqlite3

    from growth_store import build_graph, simulated_clock
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "clock-set-back.db"
    with sqlite3.connect(path, check_same_thread=False) as conn:
        graph = build_graph(SqliteSaver(conn))
        for seconds in (4_070_908_800.0, 1.0):  # 2099, then 1970
            with simulated_clock(seconds):
                graph.invoke({"messages": [HumanMessage("q")]}, {"configurable": {"thread_id": "skew"}})
    with open_store(str(path)) as store:
        history = build_history(store.timeline("skew"))
        times = step_times(history, attribute_keys(store, history, history.ordered))
    backwards = [t for t in times if t.started and t.ended and t.ended < t.started]
    assert backwards and all(t.seconds is None for t in backwards)
    assert all(t.seconds is None or t.seconds >= 0 for t in times) and total_seconds(times) >= 0


def test_a_write_key_holds_no_value():
    assert "value" not in WriteKey.__dataclass_fields__


def test_the_dot_of_a_thread_with_several_subgraphs_is_the_same_whatever_the_hash_seed(swarm_db):
    """Two agents' subgraphs: their namespaces are walked in one order, never a set's, so no edge moves."""
    import os
    import subprocess
    import sys

    from fixtures import REPO_ROOT

    outputs = {subprocess.run([sys.executable, "-m", "inspector", "graph", "--db", str(swarm_db), "swarm-trip"],
                              capture_output=True, text=True, cwd=REPO_ROOT, timeout=120,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1 and "cluster_" in outputs.pop()


def test_charts_draw_names_from_the_data_escaped(tmp_path):
    """A node and a field named with U+202E (which turns the text after it around) and ESC: the flow grid, the size
    chart and the Health page's bars name them as ids are quoted (``fi\\u202eeld``); the grid's selection still
    carries the field as stored."""
    import operator
    import sqlite3
    from typing import Annotated, TypedDict

    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import END, START, StateGraph

    from inspector.sizes.accounting import measure_thread
    from inspector.sizes.chart import size_chart
    from inspector.sizes.store_charts import field_frame

    field, node = "fi\u202eeld\x1b[2J", "age\u202ent"
    state = TypedDict("State", {"title": str, field: Annotated[list, operator.add]}, total=False)
    graph = StateGraph(state)
    graph.add_node(node, lambda s: {field: [1], "title": "t"})
    graph.add_edge(START, node)
    graph.add_edge(node, END)
    conn = sqlite3.connect(tmp_path / "names.db", check_same_thread=False)
    graph.compile(checkpointer=SqliteSaver(conn)).invoke({"title": "x"}, {"configurable": {"thread_id": "t"}})
    conn.commit()
    conn.close()
    with open_store(f"sqlite:///{tmp_path / 'names.db'}") as store:
        history = build_history(store.timeline_keys("t"))
        keys = history.path_through(history.head)
        spec = grid_chart(flow_grid(history, keys, attribute_keys(store, history, keys)))
        report = measure_thread(store, "t")
    cells = [c for c in spec["data"]["values"] if c.get("field") == field]
    assert cells and {c["row"] for c in cells} == {"fi\\u202eeld\\x1b[2J"} and {c["node"] for c in cells} == {"age\\u202ent"}
    shown = json.dumps(spec, ensure_ascii=False).replace(json.dumps(field, ensure_ascii=False), "")
    assert "\u202e" not in shown
    for chart in (size_chart(report, 1_000_000).to_dict(), {"field": list(field_frame({field: 10})["field"])}):
        drawn = json.dumps(chart, ensure_ascii=False)
        assert "fi\\\\u202eeld" in drawn and "\u202e" not in drawn
