"""One replay line for a thread: the thread page, the Diff page and ``replay`` say the same words and numbers, and
say what they cover (the root graph, or the root graph and its subgraph namespaces)."""

from __future__ import annotations

import pytest
from ui_app import open_page, shown

from inspector.cli import main

pytestmark = pytest.mark.usefixtures("app_on_demo")


def replay_line(at) -> str:
    """The replay box's line, without the outcome's word (``**Replay matches** · ``)."""
    boxes = [shown(b.value) for kind in ("success", "info", "error") for b in getattr(at, kind)]
    (line,) = [b.split(" · ", 1)[1] for b in boxes if "step(s) replayed in " in b]
    return line


@pytest.mark.parametrize("thread, covers", [
    ("demo-research", "in the root graph: "),
    ("demo-subgraph", "in the root graph and 2 subgraph namespace(s): "),
])
def test_the_thread_page_the_diff_page_and_replay_say_one_line(demo_db, capsys, thread, covers):
    assert main(["replay", "--db", str(demo_db), thread, "--quiet"]) == 0
    said = capsys.readouterr().out.strip().splitlines()[-1]
    assert covers in said and said.endswith("(schema DeerFlow ThreadState)")
    page = open_page("thread", thread=thread)
    next(t for t in page.toggle if t.label == "Check every step's replay").set_value(True).run()
    assert not page.exception, page.exception
    diff = open_page("diff", thread=thread, replay="1")
    assert not diff.exception, diff.exception
    assert replay_line(page) == said and replay_line(diff) == said
    namespaces = 3 if thread == "demo-subgraph" else 1
    steps = diff.dataframe[-1].value  # every step of every namespace, the namespace named when there are several
    assert ("namespace" in steps.columns) == (namespaces > 1)
    assert len(set(steps["namespace"])) == namespaces if namespaces > 1 else True


def test_replay_of_one_namespace_says_so(demo_db, capsys):
    assert main(["replay", "--db", str(demo_db), "demo-subgraph", "--ns", "", "--json", "--quiet"]) == 0
    import json

    root = json.loads(capsys.readouterr().out)
    assert root["namespaces"] == [""] and " step(s) replayed in the root graph: " in root["summary"]
    assert {s["checkpoint_ns"] for s in root["steps"]} == {""}
    assert main(["replay", "--db", str(demo_db), "demo-subgraph", "--json", "--quiet"]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert len(whole["namespaces"]) == 3 and whole["verdict"]["steps"] > root["verdict"]["steps"]
    assert whole["summary"].startswith(f"{whole['verdict']['steps']} step(s) replayed in the root graph and 2 subgraph")
