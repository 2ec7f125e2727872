"""The bounds cases of the hostile corpus (``corpus/hostile_bounds.py``): a ``thread_data`` naming another data
directory is never read, and the refusal is said (CLI, page, bundle); a thread of 3,000 distinct node names draws
a bounded graph that says what it left out, on the page and from the CLI, and keeps every transition counted."""

from __future__ import annotations

import json
import time
import zipfile
from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus.hostile_bounds import (
    BOUNDS_CASES,
    ELSEWHERE,
    ELSEWHERE_OWN,
    ELSEWHERE_SECRET,
    MANY_NODES,
    OWN_NOTES,
    STEPS,
    TASKS,
)
from ui_app import all_text, open_page

from inspector.cli import main
from inspector.history.flow_graph import MAX_NODES, infer_graph
from inspector.history.lineage import build_history
from inspector.store import open_store

pytestmark = pytest.mark.timeout(300)
REFUSED = "thread_data names the user-data folder"
NODES = STEPS * TASKS + 1  # every task a node of its own, and __end__ after the last step
TRANSITIONS = TASKS * TASKS * (STEPS - 1) + TASKS  # each step's tasks to every task of the next; the last to the end


@pytest.fixture(scope="module")
def bounds_db(tmp_path_factory) -> Path:
    return corpus.write_corpus(tmp_path_factory.mktemp("bounds"), cases=BOUNDS_CASES)


def run(capsys, *args: str) -> tuple[int, str]:
    code = main([*args, "--quiet"])
    captured = capsys.readouterr()
    out = captured.out + captured.err
    assert "Traceback" not in out and ELSEWHERE_SECRET not in out
    return code, out


# -- a thread_data naming another data directory -----------------------------------------------------


@pytest.mark.parametrize("command", ["artifacts", "images", "uploads"])
def test_files_in_the_folder_thread_data_names_elsewhere_are_refused_and_said(bounds_db, capsys, command):
    for thread in (ELSEWHERE, ELSEWHERE_OWN):
        code, out = run(capsys, command, "--db", str(bounds_db), thread, "--data-dir", str(bounds_db.parent), "--json")
        assert code == 0, out
        report = json.loads(out)
        assert any(REFUSED in p and "nothing in it is read" in p for p in report["problems"]), report["problems"]
        rows = [*report.get("artifacts", []), *report.get("uploads", []), *report.get("images", [])]
        assert rows
        for row in rows:
            assert f"{bounds_db.parent.name}-elsewhere" not in str(row.get("physical_path") or ""), row


def test_the_threads_own_folder_in_the_data_directory_is_what_is_read(bounds_db, capsys):
    code, out = run(capsys, "artifacts", "--db", str(bounds_db), ELSEWHERE_OWN, "--data-dir", str(bounds_db.parent),
                    "--json")
    notes = next(a for a in json.loads(out)["artifacts"] if a["path"] == "/mnt/user-data/outputs/notes.md")
    own = bounds_db.parent / "threads" / ELSEWHERE_OWN / "user-data" / "outputs" / "notes.md"
    assert notes["exists"] and notes["physical_path"] == str(own.resolve())
    code, out = run(capsys, "artifacts", "--db", str(bounds_db), ELSEWHERE, "--data-dir", str(bounds_db.parent), "--json")
    assert not any(a["exists"] for a in json.loads(out)["artifacts"])


def test_a_bundle_holds_no_file_of_the_other_data_directory_and_says_why(bounds_db, capsys, tmp_path):
    for thread in (ELSEWHERE, ELSEWHERE_OWN):
        out_zip = tmp_path / f"{thread}.zip"
        code, out = run(capsys, "bundle", "--db", str(bounds_db), thread, "--out", str(out_zip), "--data-dir",
                        str(bounds_db.parent), "--profile", "deerflow")
        assert code == 0, out
        with zipfile.ZipFile(out_zip) as bundle:
            texts = {name: bundle.read(name).decode("latin-1") for name in bundle.namelist()}
        assert all(ELSEWHERE_SECRET not in text for text in texts.values())
        manifest = json.loads(texts["manifest.json"])
        assert any(REFUSED in item["reason"] for item in manifest["left_out"]), manifest["left_out"]
        notes = [text for name, text in texts.items() if name.endswith("outputs/notes.md")]
        assert notes == ([f"# {OWN_NOTES}\n"] if thread == ELSEWHERE_OWN else [])


def test_the_thread_page_says_why_the_folder_thread_data_names_is_not_read(bounds_db, app_on_store):
    app_on_store(str(bounds_db))
    for thread in (ELSEWHERE, ELSEWHERE_OWN):
        at = open_page("thread", thread=thread)
        assert not at.exception, [e.value for e in at.exception]
        text = all_text(at) + "".join(df.value.to_csv() for df in at.dataframe)
        assert REFUSED in text and ELSEWHERE_SECRET not in text


# -- 3,000 distinct node names ---------------------------------------------------------------------------


def _graph(db: Path, max_nodes: int | None):
    with open_store(str(db)) as store:
        history = build_history(store.timeline_keys(MANY_NODES))
        writes = store.write_keys(MANY_NODES, list(history.nodes))
    started = time.perf_counter()
    graph = infer_graph(history, writes, max_nodes)
    return graph, time.perf_counter() - started


def test_the_graph_of_3000_node_names_draws_the_busiest_and_counts_every_transition(bounds_db):
    graph, _ = _graph(bounds_db, MAX_NODES)
    assert len(graph.nodes) == MAX_NODES and graph.total_nodes == NODES and graph.left_out == NODES - MAX_NODES + 1
    assert graph.other in graph.nodes and graph.nodes[graph.other].name == f"{graph.left_out:,} other nodes"
    assert sum(e.count for e in graph.edges.values()) + graph.hidden == TRANSITIONS
    assert {e.kind for e in graph.edges.values()} <= {"sequence", "trigger"}
    whole, _ = _graph(bounds_db, None)  # every node: the same transitions, one edge per pair of tasks
    assert len(whole.nodes) == NODES and whole.left_out == 0 and whole.hidden == 0
    assert sum(e.count for e in whole.edges.values()) == TRANSITIONS
    kept = set(graph.nodes) - {graph.other}
    for (source, target, kind), edge in graph.edges.items():
        if source in kept and target in kept:
            assert whole.edges[(source, target, kind)].count == edge.count


def test_cli_graph_is_bounded_and_says_how_many_it_left_out(bounds_db, capsys):
    code, dot = run(capsys, "graph", "--db", str(bounds_db), MANY_NODES)
    assert code == 0
    drawn = [line for line in dot.splitlines() if line.startswith("  \"") and "[label=" in line and " -> " not in line]
    assert len(drawn) == MAX_NODES
    assert f"the {MAX_NODES - 1} busiest of {NODES:,} nodes drawn; the other {NODES - MAX_NODES + 1:,}" in dot
    code, out = run(capsys, "graph", "--db", str(bounds_db), MANY_NODES, "--json", "--max-nodes", "10")
    payload = json.loads(out)
    assert len(payload["nodes"]) == 10 and payload["left_out"]["nodes"] == NODES - 9 and payload["left_out"]["of"] == NODES
    assert sum(e["count"] for e in payload["edges"]) + payload["left_out"]["transitions_not_drawn"] == TRANSITIONS
    code, out = run(capsys, "graph", "--db", str(bounds_db), MANY_NODES, "--max-nodes", "-1")
    assert code == 2 and out.startswith("error: ") and out.count("\n") == 1


def test_the_graph_panel_draws_at_most_the_bound_and_says_what_it_left_out(bounds_db, app_on_store):
    app_on_store(str(bounds_db))
    at = open_page("thread", thread=MANY_NODES, panel="graph")
    assert not at.exception, [e.value for e in at.exception]
    [dot] = [el.proto.spec for el in at.get("graphviz_chart")]
    drawn = [line for line in dot.splitlines() if line.startswith("  \"") and "[label=" in line and " -> " not in line]
    assert len(drawn) == MAX_NODES
    assert any(f"A graph of {NODES:,} nodes: the {MAX_NODES - 1} busiest" in i.value for i in at.info)
    assert any(c.value.startswith(f"{NODES:,} node(s)") for c in at.caption)
