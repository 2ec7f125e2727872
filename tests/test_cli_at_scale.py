"""The CLI on a store shaped like production: store-wide rankings, progress on stderr, and a start-up
that leaves LangGraph's graph package alone where no reducer is applied."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.store_generator import LONG_THREAD
from inspector.cli import main, progress

REPO_ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, extra: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *extra, "-m", "inspector", *args], capture_output=True, text=True,
                          cwd=REPO_ROOT, timeout=300)


def test_threads_sorted_by_stored_bytes_rank_the_whole_store(bench_db):
    newest = json.loads(run("threads", "--db", str(bench_db), "--json").stdout)
    assert LONG_THREAD not in {t["thread_id"] for t in newest["threads"]}  # not on the first page
    ranked = json.loads(run("threads", "--db", str(bench_db), "--json", "--sort", "stored", "--limit", "5").stdout)
    assert ranked["threads"][0]["thread_id"] == LONG_THREAD
    stored = [t["stored_bytes"] for t in ranked["threads"]]
    assert stored == sorted(stored, reverse=True)
    most = json.loads(run("threads", "--db", str(bench_db), "--json", "--sort", "checkpoints", "--limit", "1").stdout)
    assert most["threads"][0]["thread_id"] == LONG_THREAD
    bad = run("threads", "--db", str(bench_db), "--sort", "size")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr


def test_store_wide_sizes_measure_the_largest_threads(bench_db):
    out = run("sizes", "--db", str(bench_db), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["threads"][0]["thread_id"] == LONG_THREAD
    assert report["ranked_threads"] == 61 and len(report["threads"]) == 50  # health_top_threads
    assert report["store_bytes"] >= report["stored_bytes"] > 0


@pytest.mark.parametrize("command, unit", [("sizes", "checkpoints"), ("replay", "steps")])
def test_progress_counts_on_stderr_and_quiet_silences_them(bench_db, capsys, monkeypatch, command, unit):
    monkeypatch.setattr(progress, "SHOW_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    monkeypatch.setenv("INSPECTOR_CACHE_MAX_MB", "0")  # every step is counted, none read from the cache
    assert main([command, "--db", str(bench_db), LONG_THREAD, "--json"]) in (0, 1)
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.startswith(f"{command} {LONG_THREAD}: ")]
    assert lines and lines[-1].endswith(f" {unit}")
    done, total = lines[-1].split(": ")[1].removesuffix(f" {unit}").split(" / ")
    assert done == total and int(total.replace(",", "")) > 90
    assert json.loads(out)["thread_id"] == LONG_THREAD  # stdout holds only the answer
    assert main([command, "--db", str(bench_db), LONG_THREAD, "--json", "--quiet"]) in (0, 1)
    assert capsys.readouterr().err == ""


def test_short_work_shows_no_progress(demo_db, capsys):
    assert main(["sizes", "--db", str(demo_db), "demo-research"]) == 0
    assert "checkpoints" not in capsys.readouterr().err


@pytest.mark.parametrize("command", [["threads"], ["timeline", LONG_THREAD], ["sizes", "bench-small-00001"],
                                     ["sizes", LONG_THREAD], ["state", LONG_THREAD], ["state", LONG_THREAD, "--json"]])
def test_commands_that_apply_no_reducer_start_without_langgraph_graphs(bench_db, command):
    """(The long thread's messages hold base64 images: which channel holds messages is read from the default
    schema's source, without loading it.)"""
    out = run(command[0], "--db", str(bench_db), *command[1:], extra=("-X", "importtime"))
    assert out.returncode == 0, out.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "inspector.store.sqlite" in imported  # the measurement saw the inspector's own imports
    assert not {name for name in imported if name.startswith(("langgraph.graph", "langgraph.pregel"))}
    assert "langchain_core.messages" not in imported


def test_a_replay_whose_verdicts_are_cached_loads_no_reducer(bench_db, tmp_path):
    env = {**__import__("os").environ, "INSPECTOR_CACHE_DIR": str(tmp_path / "cache")}

    def replay(*extra: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, *extra, "-m", "inspector", "replay", "--db", str(bench_db), LONG_THREAD,
                               "--json", "--quiet"], capture_output=True, text=True, cwd=REPO_ROOT, env=env, timeout=300)

    cold = replay("-X", "importtime")
    warm = replay("-X", "importtime")
    assert cold.returncode == warm.returncode == 0 and cold.stdout == warm.stdout

    def imported(out: subprocess.CompletedProcess) -> set[str]:
        return {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}

    assert "langgraph.graph" in imported(cold)  # replaying applies the reducers
    assert not {name for name in imported(warm) if name.startswith("langgraph.graph") or name == "inspector.schema.reading"}


def test_a_replay_that_only_adds_messages_loads_no_langgraph_graph_and_flags_an_altered_message(tmp_path):
    """DeerFlow's reducers applied at every step (its profile named), on a thread without images: no write
    removes or replaces a message, so neither LangGraph's add_messages nor LangChain's messages load, and a
    stored message changed in a copy is still the one step and field flagged."""
    from altered_copies import rewrite_checkpoint

    from benchmarks.store_generator import Shape, generate_sqlite

    db = generate_sqlite(tmp_path / "plain.db", Shape(checkpoints=30, final_bytes=6_000, small_threads=0))

    def replay(store: Path) -> tuple[subprocess.CompletedProcess, set[str]]:
        out = subprocess.run([sys.executable, "-X", "importtime", "-m", "inspector", "replay", "--db", str(store),
                              LONG_THREAD, "--profile", "deerflow", "--json", "--quiet"], capture_output=True,
                             text=True, cwd=REPO_ROOT, env={**__import__("os").environ, "INSPECTOR_CACHE_MAX_MB": "0"},
                             timeout=300)
        return out, {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import")}

    out, imported = replay(db)
    verdict = json.loads(out.stdout)["verdict"]
    assert out.returncode == 0 and verdict["mismatched"] == verdict["unverified"] == 0 and verdict["verified"] > 25
    assert "inspector.diff.replay" in imported
    assert not {name for name in imported if name.startswith(("langgraph.graph", "langchain_core.messages"))}

    def change_last_message(values: dict) -> None:
        values["messages"][-1] = values["messages"][-1].model_copy(update={"content": "not what the agent wrote"})

    altered = rewrite_checkpoint(db, LONG_THREAD, change_last_message)
    out, _ = replay(db)
    payload = json.loads(out.stdout)
    flagged = [(s["checkpoint_id"], f["field"]) for s in payload["steps"] for f in s["fields"] if f["status"] == "mismatch"]
    assert out.returncode == 1 and flagged == [(altered, "messages")]


def test_the_default_schema_read_from_its_source_is_the_one_langgraph_reads():
    from inspector import schema
    from inspector.schema.default import DEFAULT_SCHEMA_NAME, SchemaNames, _declared, default_fields

    loaded = schema.DEFAULT_SCHEMA
    assert default_fields() == tuple(loaded.fields) and "messages" in default_fields()
    names = SchemaNames(DEFAULT_SCHEMA_NAME, _declared())
    assert names.name == loaded.name and not loaded.opaque
    for field in [*loaded.fields, "not-a-field"]:
        assert (names.reducer_name(field), names.declares(field), names.knows(field)) == (
            loaded.reducer_name(field), loaded.declares(field), loaded.knows(field)), field
    channels = ["score", *reversed(loaded.fields), "alpha"]
    assert names.order(channels) == loaded.order(channels)
    # the schema replay uses before anything loads LangGraph's graph package: the same fields, reducers and starts
    from inspector.schema.default_schema import is_add_messages, unloaded_default

    unloaded = unloaded_default()
    assert (unloaded.name, unloaded.fields, unloaded.initial, unloaded.opaque) == (
        loaded.name, loaded.fields, loaded.initial, loaded.opaque)
    assert set(unloaded.reducers) == set(loaded.reducers)
    for field in loaded.reducers:
        assert unloaded.reducer_name(field) == loaded.reducer_name(field)
        assert unloaded.reducers[field] is loaded.reducers[field] or is_add_messages(loaded.reducers[field]), field


def test_state_names_reducers_the_same_with_the_schema_loaded_or_not(demo_db, capsys):
    outputs = []
    for args in (["--json"], []):
        light = run("state", "--db", str(demo_db), "demo-deerflow-current", *args)  # a process that loads no schema
        assert light.returncode == 0, light.stderr
        assert main(["state", "--db", str(demo_db), "demo-deerflow-current", *args]) == 0  # here it is loaded
        assert capsys.readouterr().out == light.stdout
        outputs.append(light.stdout)
    reducers = json.loads(outputs[0])["reducers"]
    assert reducers["messages"] == "add_messages" and reducers["sandbox"] == "merge_sandbox"
    assert reducers["summary_text"] == "replace"


@pytest.mark.parametrize("thread", ["bench-small-00001", LONG_THREAD])
def test_health_of_a_thread_loads_no_reducer(bench_db, thread):
    """With or without base64 images in its messages."""
    out = run("health", "--db", str(bench_db), thread, "--json", "--quiet", extra=("-X", "importtime"))
    assert out.returncode in (0, 1), out.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in out.stderr.splitlines() if line.startswith("import time:")}
    assert "inspector.sizes.health" in imported
    assert not {name for name in imported if name.startswith("langgraph.graph") or name == "inspector.schema.reading"}
