"""Secrets in names (the hostile corpus's ``secret-shaped-names`` case, ``corpus/hostile_names.py``): key-shaped node
names, a subgraph namespace and task paths naming one, key-shaped file names, and the shapes that used to slip the
mask. Each output that draws or lists names shows them masked (``graph``, ``timeline --json``, ``replay --json``,
the Graph and Step timeline panels, a bundle's database and its member names, prune statements), names that only
say "password" or "token" stay readable, and a masked namespace still opens what it names."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
import zipfile
from pathlib import Path

import hostile_corpus as corpus
import pytest
from corpus import hostile_names as names_case
from test_ui_flow import chart_data, dot_sources
from test_ui_redaction import rendered
from ui_app import all_text, html_text, native_control, open_page

from inspector.cli import main

pytestmark = pytest.mark.timeout(240)
CASE = "secret-shaped-names"
THREAD = names_case.THREAD
MARK = re.compile(r"\[redacted [a-z-]+ · [^·]+ · #[0-9a-f]{6}\]")


def leaked(text: str) -> list[str]:
    return corpus.leaked(text, [CASE])


@pytest.fixture(scope="module")
def names_db(tmp_path_factory) -> Path:
    return corpus.write_corpus(tmp_path_factory.mktemp("hostile-names"), cases=[CASE])


@pytest.fixture(scope="module")
def subgraph(names_db) -> tuple[str, str]:
    """The newest checkpoint of the subgraph's namespace (``ghp_…:<task id>``): its namespace and id, as stored."""
    with sqlite3.connect(names_db) as conn:
        return conn.execute("SELECT checkpoint_ns, checkpoint_id FROM checkpoints WHERE checkpoint_ns != '' "
                            "ORDER BY checkpoint_id DESC LIMIT 1").fetchone()


@pytest.fixture(autouse=True)
def plain_settings(monkeypatch, tmp_path):
    for name in ("INSPECTOR_ALLOW_REVEAL", "INSPECTOR_REDACT_PATTERNS", "INSPECTOR_PROFILE", "INSPECTOR_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("INSPECTOR_AUDIT_LOG", str(tmp_path / "audit.log"))


def run(capsys, *args: str) -> tuple[int, str]:
    code = main([*args, "--quiet"])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_the_case_plants_its_names(names_db, subgraph):
    with sqlite3.connect(names_db) as conn:
        paths = {row[0] for row in conn.execute("SELECT DISTINCT task_path FROM writes")}
    assert subgraph[0].startswith(names_case.NODE_SUB + ":")
    assert {f"~__pregel_pull, {n}" for n in (names_case.NODE_KEY, names_case.NODE_INNER, names_case.NODE_PLAIN)} <= paths
    outputs = names_db.parent / "threads" / THREAD / "user-data" / "outputs"
    assert (outputs / f"{names_case.FILE_KEY}.md").is_file() and (outputs / names_case.FILE_PLAIN).is_file()


def test_graph_draws_masked_node_names_and_still_highlights_a_subgraph_step(names_db, subgraph, capsys):
    base = ["--db", str(names_db), THREAD]
    code, dot = run(capsys, "graph", *base)
    assert code == 0 and leaked(dot) == [] and "digraph" in dot
    assert '"password_check"' in dot and "/token_counter" in dot and MARK.search(dot)
    assert re.search(r'label="subgraph \[redacted api-key[^"]*\(run by node \[redacted api-key', dot)
    code, out = run(capsys, "timeline", *base, "--json")
    shown_ns = next(c["checkpoint_ns"] for c in json.loads(out)["checkpoints"] if c["checkpoint_ns"])
    for ns in (subgraph[0], shown_ns):  # the namespace as stored, or as this run's output shows it
        code, out = run(capsys, "graph", *base, "--checkpoint", subgraph[1], "--ns", ns, "--json")
        assert code == 0 and leaked(out) == []
        highlight = json.loads(out)["highlight"]
        assert highlight["label"] == "2 · token_counter → title" and highlight["ns"] == shown_ns
        assert len(highlight["nodes"]) == 1 and highlight["nodes"][0].endswith("]/token_counter")
        assert MARK.fullmatch(highlight["nodes"][0].split("/")[0])


def test_timeline_and_replay_json_show_names_masked_and_plain_names_as_they_are(names_db, subgraph, capsys):
    code, out = run(capsys, "timeline", "--db", str(names_db), THREAD, "--json")
    assert code == 0 and leaked(out) == []
    checkpoints = json.loads(out)["checkpoints"]
    namespaces = {c["checkpoint_ns"] for c in checkpoints}
    task_id = subgraph[0].split(":", 1)[1]
    assert len(namespaces) == 2 and any(MARK.match(ns) and ns.endswith(f"]:{task_id}") for ns in namespaces)
    paths = {t["task_path"] for c in checkpoints for t in c.get("tasks", [])}
    assert "~__pregel_pull, password_check" in paths and "~__pregel_pull, token_counter" in paths
    assert sum(bool(MARK.search(p)) for p in paths) == 3  # the three key-shaped nodes
    nodes = {n for c in checkpoints for n in c.get("nodes", [])}
    assert {"password_check", "token_counter", "__start__"} <= nodes and sum(bool(MARK.fullmatch(n)) for n in nodes) == 3
    code, table = run(capsys, "timeline", "--db", str(names_db), THREAD)
    assert code == 0 and leaked(table) == [] and "password_check" in table
    code, out = run(capsys, "replay", "--db", str(names_db), THREAD, "--json")
    assert code in (0, 1) and leaked(out) == [] and "password_check" in out and json.loads(out)


def test_the_shapes_that_slipped_are_masked_and_the_words_around_them_kept(names_db, capsys):
    code, out = run(capsys, "state", "--db", str(names_db), THREAD, "--json")
    assert code == 0 and leaked(out) == []
    state = json.loads(out)
    text = "\n".join(m["content"] for m in state["values"]["messages"] if isinstance(m.get("content"), str))
    for kept in ("hello%20world%21 stays", names_case.EMOJI, "https://alice@example.com/docs", "db.internal/app",
                 "passwd is the file that lists accounts", '["Content-Type", "application/json"]'):
        assert kept in text, kept
    assert text.count("[redacted ") == 6  # one mark per shape
    assert state["values"]["config"][names_case.LONG_NAME].startswith("[redacted password")
    assert state["values"]["config"]["max_tokens"] == 512
    headers = state["values"]["notes"]["headers"]
    assert headers[0][1].startswith("[redacted authorization") and headers[1] == ["Content-Type", "application/json"]


def test_a_namespace_named_as_masked_opens_it_and_an_unknown_mark_is_one_line(names_db, subgraph, capsys):
    base = ["--db", str(names_db), THREAD]
    code, out = run(capsys, "timeline", *base, "--json")
    shown_ns = next(c["checkpoint_ns"] for c in json.loads(out)["checkpoints"] if c["checkpoint_ns"])
    code, out = run(capsys, "state", *base, "--ns", shown_ns, "--json")
    assert code == 0 and leaked(out) == []
    state = json.loads(out)
    assert state["checkpoint_ns"] == shown_ns and state["checkpoint_id"] == subgraph[1]
    code, out = run(capsys, "state", *base, "--ns", "[redacted api-key · ~40 chars · #000000]:x")
    assert code == 2 and out.startswith("error: --ns") and out.count("\n") == 1 and "redact_hash_key" in out


def test_marks_hold_across_processes_sharing_the_analysis_cache(names_db, subgraph, tmp_path):
    """Two CLI runs (processes) with one analysis cache mask a namespace alike, so the second finds what the first
    printed; with no cache (and no redact_hash_key) each process keys its own marks."""
    import os
    import subprocess
    import sys

    from fixtures import REPO_ROOT

    def cli(*args: str, cache: bool = True) -> subprocess.CompletedProcess:
        env = {**os.environ, "INSPECTOR_CACHE_DIR": str(tmp_path / "cache"),
               "INSPECTOR_CACHE_MAX_MB": "100" if cache else "0"}
        env.pop("INSPECTOR_REDACT_HASH_KEY", None)
        return subprocess.run([sys.executable, "-m", "inspector", *args, "--db", str(names_db), THREAD, "--quiet"],
                              capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=120)

    def masked_ns(done: subprocess.CompletedProcess) -> str:
        assert done.returncode == 0, done.stderr
        return next(c["checkpoint_ns"] for c in json.loads(done.stdout)["checkpoints"] if c["checkpoint_ns"])

    first, second = masked_ns(cli("timeline", "--json")), masked_ns(cli("timeline", "--json"))
    assert MARK.search(first) and first == second
    opened = cli("state", "--ns", first, "--json")
    assert opened.returncode == 0 and json.loads(opened.stdout)["checkpoint_id"] == subgraph[1]
    alone = {masked_ns(cli("timeline", "--json", cache=False)) for _ in range(2)}
    assert len(alone) == 2 and first not in alone  # each process its own key: a mark only holds within it


def test_prune_statements_name_a_masked_namespace_exactly_without_spelling_it(names_db, subgraph, capsys, tmp_path):
    code, script = run(capsys, "prune-preview", "--db", str(names_db), "--keep-latest", "1", "--sql")
    assert code == 0 and leaked(script) == []
    assert "CAST(X'" in script and subgraph[0] not in script
    copy = tmp_path / "copy.db"
    shutil.copy(names_db, copy)
    with sqlite3.connect(copy) as conn:
        before = conn.execute("SELECT count(*) FROM checkpoints WHERE checkpoint_ns = ?", subgraph[:1]).fetchone()[0]
        conn.executescript(script)
        left = conn.execute("SELECT checkpoint_ns, count(*) FROM checkpoints GROUP BY checkpoint_ns").fetchall()
    assert before > 0 and left == [("", 1)]  # keep-latest 1: the newest root checkpoint, the subgraph's rows gone


def _bundle(names_db: Path, out: Path, capsys) -> zipfile.ZipFile:
    code, text = run(capsys, "bundle", "--db", str(names_db), THREAD, "--out", str(out), "--data-dir",
                     str(names_db.parent), "--profile", "deerflow")
    assert code == 0 and leaked(text) == [], text
    return zipfile.ZipFile(out)


def test_a_bundle_masks_the_names_in_its_database_and_its_member_names(names_db, capsys, tmp_path):
    out = tmp_path / "names.zip"
    with _bundle(names_db, out, capsys) as bundle:
        members = bundle.namelist()
        assert leaked("\n".join(members)) == []
        for member in members:
            assert leaked(bundle.read(member).decode("latin-1")) == [], member
        files = [m for m in members if "/user-data/outputs/" in m]
        assert f"threads/{THREAD}/user-data/outputs/{names_case.FILE_PLAIN}" in files
        assert sum(bool(MARK.search(m)) for m in files) == 2 and len(set(files)) == 3
        manifest = json.loads(bundle.read("manifest.json"))
        bundle.extract("checkpoints.db", tmp_path)
    assert {f["member"] for f in manifest["user_data"]["files"]} == set(files)
    with sqlite3.connect(tmp_path / "checkpoints.db") as conn:
        rows = conn.execute("SELECT checkpoint_ns, task_id, task_path, channel FROM writes").fetchall()
        namespaces = {r[0] for r in conn.execute("SELECT DISTINCT checkpoint_ns FROM checkpoints")}
    assert leaked(repr(rows)) == [] and len(namespaces) == 2 and "" in namespaces
    assert "~__pregel_pull, password_check" in {r[2] for r in rows}
    assert any(r[3].startswith("branch:to:[redacted ") for r in rows)
    # the bundle opened by the inspector: the state's masked paths name its masked members, found as files
    code, text = run(capsys, "artifacts", "--db", str(out), THREAD, "--profile", "deerflow", "--json")
    assert code == 0 and leaked(text) == []
    artifacts = json.loads(text)["artifacts"]
    assert len(artifacts) == 3 and all(a["exists"] for a in artifacts), artifacts


# -- the pages ---------------------------------------------------------------------------------------------


@pytest.fixture
def app_on_names(names_db, monkeypatch):
    from inspector.ui import connection

    monkeypatch.setenv("INSPECTOR_DB", f"sqlite:///{names_db}")
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(names_db.parent))
    connection.settings.clear()
    yield names_db
    connection.settings.clear()


def _subgraph_page(subgraph, panel: str):
    from inspector.ui.routes import checkpoint_params

    params = checkpoint_params(THREAD, subgraph[1], subgraph[0], panel)
    assert subgraph[0] not in params["ns"] and MARK.match(params["ns"])  # a link names it masked
    at = open_page("thread", **params)
    assert not at.exception, at.exception
    page = rendered(at)
    assert leaked(page) == []
    assert not [w.value for w in at.warning if "is not in this thread" in w.value]  # the link found its checkpoint
    assert at.query_params["checkpoint"] == subgraph[1] and at.query_params["ns"] == params["ns"]
    return at, page


def test_graph_panel_draws_masked_names_and_highlights_the_step_opened_from_a_masked_link(app_on_names, subgraph):
    at, page = _subgraph_page(subgraph, "Graph")
    [dot] = dot_sources(at)
    assert '"password_check"' in dot and "token_counter" in dot and "subgraph [redacted api-key" in dot
    lit = re.search(r'"\[redacted [^"]+\]/token_counter" \[label="token_counter\\n×1", .*class="(n\d+)"', dot)
    assert lit, dot  # the step's node, lit by the caption's style, which says what it wrote
    assert f"g.node.{lit.group(1)} >" in html_text(at) and "Lit: step 2 · token_counter → title" in html_text(at)


def test_step_timeline_panel_names_nodes_and_namespaces_masked(app_on_names, subgraph):
    at, page = _subgraph_page(subgraph, "Step timeline")
    [bars] = [rows for rows in chart_data(at) if rows and "lane" in rows[0] and "ms" in rows[0]]
    assert {b["node"] for b in bars} >= {"token_counter", "__start__"} and leaked(str(bars)) == []
    assert all(MARK.match(b["ns"]) for b in bars) and any(b["selected"] for b in bars)
    totals = next(df.value for df in at.dataframe if "total" in df.value.columns)
    assert leaked(totals.to_csv()) == [] and "token_counter" in set(totals["node"])


def test_the_presenter_view_play_and_the_expanded_graph_draw_node_names_masked(app_on_names):
    for params in ({"present": "1"}, {"panel": "graph", "graph": "expanded"}, {"present": "1", "graph": "expanded"}):
        at = open_page("thread", thread=THREAD, **params)
        assert not at.exception, at.exception
        page = rendered(at)
        assert leaked(page) == [] and "[redacted api-key" in page and "password_check" in page, params
    at.button(key="nav_play").click().run(timeout=120)  # Play's first frame: its heading names the node that ran
    assert not at.exception, at.exception
    frame = html_text(at)
    assert 'class="si-node"' in frame and leaked(rendered(at)) == []


def test_the_thread_page_and_its_tree_name_the_root_graph_plainly_and_the_subgraph_masked(app_on_names):
    at = open_page("thread", thread=THREAD, panel="graph")
    assert not at.exception and leaked(rendered(at)) == []
    [dot] = dot_sources(at)
    assert "password_check" in dot and dot.count("[redacted api-key") >= 3
    tree = native_control(at, "tree")["points"]  # the history tree as the page sends it
    namespaces = [line.removeprefix("ns: ") for p in tree for line in p["tip"].splitlines() if line.startswith("ns: ")]
    assert namespaces and all(MARK.match(ns) for ns in namespaces)
    assert any("password_check" in p["label"] for p in tree)


def test_a_link_naming_a_masked_namespace_opens_it_after_a_restart(app_on_names, subgraph, monkeypatch):
    """A dashboard started again (a new process key, Streamlit's resources gone) reopens the analysis cache and
    with it the marks' key: a link copied before the restart still opens the subgraph's checkpoint."""
    import os

    import streamlit as st

    from inspector.safety import redaction
    from inspector.ui.routes import checkpoint_params

    at = open_page("thread", thread=THREAD)  # the dashboard running: its analysis cache open, its key in force
    assert not at.exception
    before = checkpoint_params(THREAD, subgraph[1], subgraph[0], "Graph")
    monkeypatch.setattr(redaction, "_MARKS_KEY", [os.urandom(32)])  # a new process, whose own key differs
    st.cache_resource.clear()
    assert redaction.redactor_for().name(subgraph[0]) != before["ns"]  # before the cache is open: marks differ
    reopened = open_page("thread", **before)
    assert not reopened.exception, reopened.exception
    assert not [w.value for w in reopened.warning if "is not in this thread" in w.value]
    assert reopened.query_params["checkpoint"] == subgraph[1] and reopened.query_params["ns"] == before["ns"]


def test_a_click_on_a_masked_namespace_finds_the_stored_one(app_on_names, subgraph):
    from inspector.ui import names

    ns = subgraph[0]
    assert names.shown(ns) != ns and names.param(ns) == names.shown(ns)
    assert names.stored(names.shown(ns), ["", ns]) == ns and names.stored("get_token:1", ["get_token:1"]) == "get_token:1"
    assert names.picked({"ns": names.shown(ns), "checkpoint": subgraph[1]}, ["", ns]) == tuple(subgraph)
    assert names.param("get_token:1") == "get_token:1"


def test_export_from_the_page_masks_member_names(app_on_names, monkeypatch):
    monkeypatch.setenv("INSPECTOR_PROFILE", "deerflow")  # the files are DeerFlow's; this mixed store does not say so
    from inspector.ui import bundle_view, connection
    from inspector.ui.connection import settings

    connection.settings.clear()
    at = open_page("thread", thread=THREAD)
    (button,) = [b for b in at.button if b.label == "Export thread"]
    at = button.click().run()
    assert not at.exception, at.exception
    assert leaked(rendered(at)) == [] and "report-kept.md" in all_text(at) + rendered(at)
    from inspector.store import open_store

    with open_store(f"sqlite:///{app_on_names}") as store:
        payload, manifest = bundle_view.build_bundle(store, THREAD, "tester")
    assert settings().profile == "deerflow"
    import io

    with zipfile.ZipFile(io.BytesIO(payload)) as bundle:
        members = bundle.namelist()
    assert leaked("\n".join(members)) == [] and len([m for m in members if "/outputs/" in m]) == 3


SAVER_FILE = """
from langgraph.checkpoint.memory import InMemorySaver

from corpus.hostile_names import THREAD, build_graph

SAVER = InMemorySaver()
build_graph(SAVER, {"title": "files named"}).invoke({"messages": []}, {"configurable": {"thread_id": THREAD}})
"""


def test_a_saver_read_through_its_api_names_tasks_by_their_namespace_masked(tmp_path):
    """A saver read through its API keeps no task path: the task that ran the subgraph is named from the
    subgraph's namespace, its node's name masked as the pages mask it."""
    from inspector.history.thread_history import ThreadHistory
    from inspector.safety.redaction import Redactor
    from inspector.store import open_store

    path = tmp_path / "names_saver.py"
    path.write_text(SAVER_FILE)
    r = Redactor()
    with open_store(f"{path}:SAVER") as store:
        plain = ThreadHistory(store, THREAD, mask=r)
        shown = ThreadHistory(store, THREAD, mask=r, node_name=r.name)
        before = plain.attributions(store, list(plain.history.nodes))
        made = shown.attributions(store, list(shown.history.nodes))
    assert any(names_case.NODE_SUB in a.label for a in before.values())  # named from the namespace as stored
    labels = "\n".join(a.label for a in made.values())
    assert leaked(labels) == [] and "password_check" in labels and "token_counter" in labels
    assert any(r.name(names_case.NODE_SUB) in a.label for a in made.values())
