"""The inspector installs into an app's own environment and runs there: beside DeerFlow's versions under
Python 3.12 (``tests/deerflow_lock.txt``, from DeerFlow's uv.lock), moving none of them, its CLI reading stores
this suite wrote, and an operator's schema that only that Python can import. Outside it, such a schema is refused at once,
in one line naming what is missing and the fix."""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from inspector.cli import main

REPO = Path(__file__).resolve().parent.parent
LOCK = Path(__file__).with_name("deerflow_lock.txt")
DEERFLOW_PROJECT = Path(__file__).with_name("deerflow_project")  # DeerFlow's uv settings (its websockets override)
UV = shutil.which("uv") or "uv"  # requirements-test.txt installs it
# A state class in Python 3.12's syntax, importing LangChain's AgentState the way DeerFlow's ThreadState does.
PY312_STATE = '''from typing import Annotated, NotRequired
import operator
from langchain.agents import AgentState

type Paths = list[str]


class AppState(AgentState):
    artifacts: Annotated[list[str], operator.add]
    title: NotRequired[str | None]
'''


def python312() -> str | None:
    """A Python 3.12 on this machine: one pyenv keeps, or on PATH (none is downloaded); a pyenv shim that
    does not run is no Python."""
    pyenv_root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = sorted(glob.glob(os.path.join(pyenv_root, "versions", "3.12*", "bin", "python3.12")), reverse=True)
    candidates += [found for found in [shutil.which("python3.12")] if found]
    for candidate in candidates:
        probe = subprocess.run([candidate, "-c", "import sys, venv; print(sys.version_info[:2])"],
                               capture_output=True, text=True)
        if probe.returncode == 0 and probe.stdout.strip() == "(3, 12)":
            return candidate
    return None


def versions(venv: Path) -> dict[str, str]:
    """Distribution name -> version of what ``venv`` holds (names normalised as the lock writes them)."""
    proc = subprocess.run([str(venv / "bin" / "python"), "-c", "import importlib.metadata as m, json; print(json.dumps("
                           "{d.metadata['Name']: d.version for d in m.distributions()}))"],
                          capture_output=True, text=True, check=True)
    import json

    return {re.sub(r"[-_.]+", "-", name).lower(): version for name, version in json.loads(proc.stdout).items()}


def app_pins() -> dict[str, str]:
    lines = [line.strip() for line in LOCK.read_text().splitlines() if line.strip() and not line.startswith("#")]
    return dict(line.split("==") for line in lines)


def moved(pins: dict[str, str], found: dict[str, str]) -> list[str]:
    """The app's pins that ``found`` (versions after an install, or what a resolver would install) changed."""
    return [f"{name} {pins[name]} -> {found[name]}" for name in sorted(pins) if name in found and found[name] != pins[name]]


def dry_run(*args: str, cwd: Path) -> dict[str, str]:
    """What ``uv pip install --dry-run ARGS`` would install: name -> version."""
    proc = subprocess.run([UV, "pip", "install", "--dry-run", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"^ \+ ([\w.-]+)==(\S+)$", proc.stderr, re.M)}


@pytest.fixture(scope="module")
def deerflow_env(tmp_path_factory) -> tuple[Path, Path]:
    """A Python 3.12 virtualenv laid out as DeerFlow's ``uv sync`` lays out its own (the lock's versions of the
    packages the inspector shares with it, ``tests/deerflow_lock.txt``), with the inspector installed beside
    them as the README says: ``uv pip install`` run in DeerFlow's project folder, no constraints file.

    The app's packages are kept between runs (outside the repository, keyed by the lock), so a run installs
    only the inspector itself again; the first run also installs them from the registry. Yields the environment
    and the copy of the inspector's sources it was installed from."""
    python = python312()
    if python is None:
        pytest.skip("no Python 3.12 on this machine (not on PATH, none under pyenv); Debian bookworm packages "
                    "only 3.11, so the DeerFlow-environment install is not checked here")
    key = hashlib.sha256(LOCK.read_bytes() + python.encode()).hexdigest()[:12]
    cache = Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))) / "state-inspector"
    app_env = cache / f"venv-deerflow-py312-{key}"
    if not (app_env / "laid-out").exists() or moved(app_pins(), versions(app_env)):  # new, or moved by an old run
        shutil.rmtree(app_env, ignore_errors=True)
        subprocess.run([python, "-m", "venv", "--without-pip", str(app_env)], check=True)
        subprocess.run([UV, "pip", "install", "--python", str(app_env / "bin" / "python"), "--no-deps", "-r", str(LOCK)],
                       check=True, capture_output=True, timeout=1200)
        (app_env / "laid-out").write_text("the lock's packages, as uv sync installs them\n")
    assert set(app_pins()) <= set(versions(app_env))
    # a copy of the package's sources: building writes build/ and *.egg-info beside them, never in the checkout
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "inspector", source / "inspector", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run([UV, "pip", "install", "--python", str(app_env / "bin" / "python"), "--reinstall-package",
                           "state-inspector", str(source)], capture_output=True, text=True, cwd=DEERFLOW_PROJECT,
                          timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return app_env, source


@pytest.mark.timeout(1500)  # the first run installs DeerFlow's packages from the registry
def test_installing_beside_deerflow_moves_none_of_its_pins(deerflow_env):
    """The README's way keeps every version DeerFlow's lock chose; the check bites where an install would move
    one: outside DeerFlow's project folder (without its websockets override) uv would move websockets."""
    venv, source = deerflow_env
    pins = app_pins()
    assert moved(pins, versions(venv)) == []
    assert {"state-inspector", "streamlit", "langgraph-checkpoint-postgres"} <= set(versions(venv))
    elsewhere = dry_run("--python", str(venv / "bin" / "python"), "--reinstall-package", "state-inspector",
                        str(source), cwd=Path(tempfile.gettempdir()))
    assert moved(pins, elsewhere) == ["websockets 16.0 -> 15.0.1"], elsewhere
    assert moved(pins, {**pins, "langgraph-checkpoint": "4.3.2"}) == ["langgraph-checkpoint 4.1.1 -> 4.3.2"]


def run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


@pytest.mark.timeout(1500)  # the first run installs DeerFlow's pins from the registry
def test_installs_beside_deerflows_pins_and_runs_under_python_312(deerflow_env, deerflow_main_db, langchain_agent_db,
                                                                  tmp_path):
    deerflow_env, _ = deerflow_env
    found = run(deerflow_env, "python", "-c", "import sys, importlib.metadata as m; print(sys.version_info[:2], "
                   "m.version('langgraph'), m.version('langchain-core'), m.version('state-inspector'))", cwd=tmp_path)
    assert found.stdout.split()[:2] == ["(3,", "12)"] and "1.2.9 1.4.9" in found.stdout, found
    # the console script and the module, from outside the checkout: the installed package, not the source tree
    threads = run(deerflow_env, "state-inspector", "threads", "--db", str(deerflow_main_db), cwd=tmp_path)
    assert threads.returncode == 0 and "df-full" in threads.stdout, threads.stderr
    replay = run(deerflow_env, "python", "-m", "inspector", "replay", "--db", str(deerflow_main_db), "df-full",
                 cwd=tmp_path)
    assert replay.returncode == 0 and "0 replay mismatch(es)" in replay.stdout, replay.stderr
    assert "Profile: DeerFlow" in run(deerflow_env, "state-inspector", "state", "--db", str(deerflow_main_db),
                                      "df-full", cwd=tmp_path).stdout
    schema = tmp_path / "app_state.py"
    schema.write_text(PY312_STATE)
    named = run(deerflow_env, "state-inspector", "replay", "--db", str(langchain_agent_db), "--schema",
                f"{schema}:AppState", "langchain-travel", cwd=tmp_path)
    assert named.returncode == 0 and f"schema {schema}:AppState" in named.stdout, named.stderr


def test_a_schema_this_python_cannot_import_is_refused_at_once_in_one_line(tmp_path, capsys, langchain_agent_db):
    schema = tmp_path / "app_state.py"
    schema.write_text(PY312_STATE if sys.version_info < (3, 12) else "import deerflow.agents\n")
    missing = tmp_path / "thread_state.py"
    missing.write_text("from langchain.agents import AgentState\nimport deerflow.checkpoint_patches\n")
    for spec, what in ((f"{schema}:AppState", "is not valid syntax for Python" if sys.version_info < (3, 12)
                        else "imports 'deerflow', not installed"),
                       (f"{missing}:ThreadState", "imports 'deerflow', not installed in this Python"),
                       ("deerflow.agents.thread_state:ThreadState", "module 'deerflow' is not installed in this Python")):
        started = time.perf_counter()
        assert main(["replay", "--db", str(langchain_agent_db), "--schema", spec, "langchain-travel"]) == 2
        elapsed = time.perf_counter() - started
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and what in err, err
        assert "run the inspector in the app's own environment" in err and sys.executable in err
        assert elapsed < 30  # no store is read and no schema imported: the refusal comes first
