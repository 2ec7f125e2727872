"""The inspector installs into an app's own environment and runs there: DeerFlow's pinned versions under
Python 3.12 (``tests/deerflow_pins.txt``, from DeerFlow's uv.lock), its CLI reading stores this suite wrote,
and an operator's schema that only that Python can import. Outside it, such a schema is refused at once,
in one line naming what is missing and the fix."""

from __future__ import annotations

import glob
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inspector.cli import main

REPO = Path(__file__).resolve().parent.parent
PINS = Path(__file__).with_name("deerflow_pins.txt")
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


@pytest.fixture(scope="module")
def deerflow_env(tmp_path_factory) -> Path:
    """A Python 3.12 virtualenv holding DeerFlow's pins and the inspector installed from this checkout.

    The environment is kept between runs (outside the repository, keyed by the pins), so a run installs
    only the inspector itself again; the first run also installs the pinned packages from the registry."""
    python = python312()
    if python is None:
        pytest.skip("no Python 3.12 on this machine (not on PATH, none under pyenv); Debian bookworm packages "
                    "only 3.11, so the DeerFlow-environment install is not checked here")
    key = hashlib.sha256(PINS.read_bytes() + python.encode()).hexdigest()[:12]
    cache = Path(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache"))) / "state-inspector"
    venv = cache / f"venv-deerflow-py312-{key}"
    if not (venv / "bin" / "python").exists():
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    # a copy of the package's sources: building writes build/ and *.egg-info beside them, never in the checkout
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "inspector", source / "inspector", ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           "-c", str(PINS), str(source)], capture_output=True, text=True, cwd=source, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return venv


def run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=300)


@pytest.mark.timeout(1500)  # the first run installs DeerFlow's pins from the registry
def test_installs_beside_deerflows_pins_and_runs_under_python_312(deerflow_env, deerflow_main_db, langchain_agent_db,
                                                                  tmp_path):
    versions = run(deerflow_env, "python", "-c", "import sys, importlib.metadata as m; print(sys.version_info[:2], "
                   "m.version('langgraph'), m.version('langchain-core'), m.version('state-inspector'))", cwd=tmp_path)
    assert versions.stdout.split() [:2] == ["(3,", "12)"] and "1.2.9 1.4.9" in versions.stdout, versions
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
