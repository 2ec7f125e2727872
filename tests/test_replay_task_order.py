"""Parallel writes are folded in LangGraph's order whatever the saver kept.

``langgraph-checkpoint-sqlite`` 3.1.1 (DeerFlow's pin) has no ``task_path`` column: its writes come back
in task-id order, which is not the order LangGraph applied them in. The threads of
``tests/parallel_writes_graph.py`` (a DeerFlow-shaped turn calling ``view_image`` and ``ls`` at once, six
parallel tool calls, six ``Send`` tasks beside two pulled nodes) are written by that version, installed
in a virtualenv of its own, and by the suite's own saver (3.1.2): both replay without a mismatch, with the
thread's profile and on the generic base, and an altered copy of the old store is flagged at exactly its
step. On every store the suite's saver writes, the task paths found again from the checkpoint equal the
stored ones."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from altered_copies import rewrite_stored_checkpoint
from parallel_writes_graph import PARALLEL_THREAD, SENDS_THREAD, STOPPED_THREAD

from inspector.cli import main
from inspector.diff import replay, replay_thread, verdict
from inspector.diff.replay import field_difference
from inspector.diff.task_order import in_task_order, task_paths
from inspector.profiles.langgraph import GENERIC_SCHEMA
from inspector.schema import DEFAULT_SCHEMA
from inspector.store import open_store

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
# what decides the stored layout and the writes: DeerFlow's pins of LangGraph's packages (tests/deerflow_lock.txt)
OLD_SAVER = ("langgraph", "langgraph-checkpoint", "langgraph-checkpoint-sqlite", "langchain-core")
THREADS = (PARALLEL_THREAD, STOPPED_THREAD, SENDS_THREAD)


def old_pins() -> list[str]:
    pins = [line.strip() for line in (TESTS / "deerflow_lock.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    chosen = [pin for pin in pins if pin.split("==")[0] in OLD_SAVER]
    assert "langgraph-checkpoint-sqlite==3.1.1" in chosen and len(chosen) == len(OLD_SAVER)
    return chosen


@pytest.fixture(scope="session")
def old_saver_python(tmp_path_factory) -> Path:
    """A virtualenv of its own holding ``langgraph-checkpoint-sqlite`` 3.1.1 and the LangGraph DeerFlow pins with
    it, from the package registry (once per session). Only those four packages are installed in it; what they
    need beyond them (pydantic, xxhash, ormsgpack, ...) is seen from this Python's site-packages, so the
    install takes seconds rather than the minutes DeerFlow's whole lock would."""
    venv = tmp_path_factory.mktemp("sqlite-saver-3.1.1") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                           *old_pins()], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        last = [line for line in proc.stderr.splitlines() if line.strip() and "is ignored" not in line][-1:]
        pytest.skip(f"the package index did not give {' '.join(old_pins())}: {' '.join(last)}")
    return python


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PYTHONPATH": f"{REPO}{os.pathsep}{TESTS}"}


@pytest.fixture(scope="module")
def old_store(old_saver_python, tmp_path_factory) -> Path:
    """The threads written by ``langgraph-checkpoint-sqlite`` 3.1.1 (a file not named ``deerflow.db``)."""
    versions = subprocess.run(
        [str(old_saver_python), "-c", "import importlib.metadata as m, langgraph.checkpoint.sqlite as s; "
         "print(*(m.version(n) for n in ('langgraph-checkpoint-sqlite', 'langgraph', 'langgraph-checkpoint')), "
         "s.__file__)"], capture_output=True, text=True, env=_env(), timeout=120)
    found = versions.stdout.split()
    assert found[:3] == ["3.1.1", "1.2.9", "4.1.1"] and found[3].startswith(str(old_saver_python.parent.parent))
    db = tmp_path_factory.mktemp("old-saver") / "parallel.db"
    proc = subprocess.run([str(old_saver_python), str(TESTS / "parallel_writes_graph.py"), str(db)],
                          capture_output=True, text=True, env=_env(), cwd=db.parent, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return db


@pytest.fixture(scope="module")
def new_store(tmp_path_factory) -> Path:
    """The same threads written by the suite's own saver, which stores each write's task path."""
    from parallel_writes_graph import write_store

    return write_store(tmp_path_factory.mktemp("new-saver") / "parallel.db")


def test_the_old_saver_keeps_no_task_path(old_store, new_store):
    columns = {db: {r[1] for r in sqlite3.connect(db).execute("PRAGMA table_info(writes)")} for db in (old_store, new_store)}
    assert "task_path" not in columns[old_store] and "task_path" in columns[new_store]
    with open_store(str(old_store)) as store:
        assert not store._writes_have_task_path
        writes = [w for s in store.iter_states(PARALLEL_THREAD) for w in s.writes]
    assert writes and not any(w.task_path for w in writes)


@pytest.mark.parametrize("which", ["old", "new"])
@pytest.mark.parametrize("thread_id", THREADS)
def test_parallel_writes_replay_without_a_mismatch_on_both_saver_versions(request, which, thread_id):
    db = request.getfixturevalue(f"{which}_store")
    with open_store(str(db)) as store:
        read = replay_thread(store, thread_id)  # DeerFlow's profile on the DeerFlow-shaped threads: the data says so
        generic = replay_thread(store, thread_id, schema=GENERIC_SCHEMA)
    for steps in (read, generic):
        result = verdict(steps)
        assert result.matches and result.mismatched == 0 and result.changed_without_write == 0, \
            [s.detail() for s in steps if s.status == "mismatch"]
        assert "messages" not in result.no_standard_fold_fields and "items" not in result.no_standard_fold_fields
    if thread_id == SENDS_THREAD:
        assert verdict(generic).inferred["items"] == "consistent with operator.add on all 4 step(s)"
    else:  # the parallel tool steps' messages verified through add_messages
        parallel = [s for s in read if sum(w["channel"] == "messages" for w in s.wrote) >= 2]
        assert parallel and all(f.status == "confirmed" for s in parallel for f in s.fields if f.field == "messages")
        assert "add_messages" in verdict(generic).inferred["messages"]


def _parallel_steps(store, thread_id: str):
    """(parent, child, writes as stored, writes in LangGraph's order) of the steps whose writes to one channel
    came from several tasks."""
    states = {s.checkpoint_id: s for s in store.iter_states(thread_id)}
    for child in states.values():
        parent = states.get(child.parent_checkpoint_id or "")
        if parent is None or child.metadata.get("source") != "loop":
            continue
        ordered, unplaced = in_task_order(parent, parent.writes)
        if ordered != parent.writes:
            assert not unplaced  # every task sharing a channel was placed
            yield parent, child, parent.writes, ordered


def _added(parent, writes) -> list:
    return list(parent.values.get("items") or []) + [item for w in writes if w.channel == "items" for item in w.value]


@pytest.mark.parametrize("thread_id", THREADS)
def test_the_old_saver_gives_the_writes_in_an_order_that_is_not_langgraphs(old_store, thread_id):
    """The test data exercises what it should: folded in the order the 3.1.1 store gives them (task ids), the
    parallel writes give another value than the stored one; in the order found again, the stored one."""
    schema = GENERIC_SCHEMA if thread_id == SENDS_THREAD else DEFAULT_SCHEMA
    field = "items" if thread_id == SENDS_THREAD else "messages"
    differs = 0
    with open_store(str(old_store)) as store:
        for parent, child, stored, ordered in _parallel_steps(store, thread_id):
            if thread_id == SENDS_THREAD:  # operator.add, folded by hand: the reducer is unknown to the generic base
                assert _added(parent, ordered) == child.values["items"]
                differs += _added(parent, stored) != child.values["items"]
            else:
                assert field_difference(field, replay(parent, ordered, schema)[field], child.values[field], schema) is None
                differs += field_difference(field, replay(parent, stored, schema)[field], child.values[field],
                                            schema) is not None
    assert differs >= 1


def test_an_altered_copy_of_the_old_store_is_flagged_at_exactly_its_step(old_store, tmp_path, capsys):
    copy = tmp_path / "altered.db"
    shutil.copyfile(old_store, copy)

    def swap_the_tool_answers(values):  # the two parallel tool messages in the other order
        values["messages"][-2:] = values["messages"][-2:][::-1]

    altered = rewrite_stored_checkpoint(copy, STOPPED_THREAD, swap_the_tool_answers)
    with open_store(str(copy)) as store:
        assert not store._writes_have_task_path  # the copy keeps the old layout
        read = replay_thread(store, STOPPED_THREAD)
        generic = replay_thread(store, STOPPED_THREAD, schema=GENERIC_SCHEMA)
    flagged = [s for s in read if s.status == "mismatch"]
    assert [s.checkpoint_id for s in flagged] == [altered]
    assert [(f.field, f.reducer) for f in flagged[0].mismatches] == [("messages", "add_messages")]
    # on the generic base the reducer is unknown: never a mismatch, but no standard fold gives the swapped order
    assert verdict(generic).matches and verdict(generic).no_standard_fold == 1
    (said,) = [s for s in generic if any(f.no_fold for f in s.fields)]
    assert said.checkpoint_id == altered and [f.field for f in said.fields if f.no_fold] == ["messages"]
    assert main(["replay", "--db", str(copy), STOPPED_THREAD]) == 1
    out = capsys.readouterr().out
    assert altered in out and "1 mismatched, 0 changed without a write" in out


@pytest.mark.parametrize("fixture", ["new_store", "flow_db", "deerflow_main_db", "langchain_agent_db", "deep_agent_db",
                                     "swarm_db", "supervisor_db"])
def test_task_paths_found_again_are_the_stored_ones(request, fixture):
    """On stores that keep the path, every pulled and pushed task's path is found again from its checkpoint
    alone (subgraph namespaces, joins, middleware nodes, ``create_agent``'s tool calls sent with ``Send``)."""
    db = request.getfixturevalue(fixture)
    checked = 0
    with open_store(str(db)) as store:
        for thread in store.threads(limit=100):
            for ns in sorted({r.checkpoint_ns for r in store.timeline(thread.thread_id)}):
                for state in store.iter_states(thread.thread_id, ns):
                    stored = {w.task_id: w.task_path for w in state.writes
                              if w.task_path.startswith(("~__pregel_pull, ", "~__pregel_push, "))}
                    assert task_paths(state, set(stored)) == stored, (thread.thread_id, ns, state.checkpoint_id)
                    checked += len(stored)
    assert checked >= 10


def test_a_saver_read_through_its_api_folds_parallel_writes_in_langgraphs_order(tmp_path):
    """A saver's API gives pending writes without their task path (``(task_id, channel, value)``): every task
    that shares a channel with another is placed the same way, and the threads replay without a mismatch."""
    module = tmp_path / "parallel_saver.py"
    module.write_text("from langgraph.checkpoint.memory import InMemorySaver\n"
                      "from parallel_writes_graph import write_threads\n\n"
                      "saver = InMemorySaver()\nwrite_threads(saver)\n")
    with open_store(f"{module}:saver") as store:
        states = list(store.iter_states(PARALLEL_THREAD))
        assert any(s.writes for s in states) and not any(w.task_path for s in states for w in s.writes)
        shared = 0
        for state in states:
            ordered, unplaced = in_task_order(state, state.writes)
            assert not unplaced
            shared += len({w.task_id for w in ordered if w.channel == "messages"}) > 1
        assert shared >= 2  # the two parallel tool steps
        for thread_id in THREADS:
            steps = replay_thread(store, thread_id)
            assert verdict(steps).matches and verdict(steps).mismatched == 0, \
                [s.detail() for s in steps if s.status == "mismatch"]
